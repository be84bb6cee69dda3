"""The JieZi-Bench leaderboard: validate, score and store submissions; list, rank and verify rows.

One code path for the CLI (``jiezi leaderboard submit|show|verify``) and the Gradio Space:

- :func:`harness.board.submit.submit` ``(file_bytes, model_name, meta, board_dir) -> Row``
  validates a ``predictions.jsonl`` (:mod:`harness.board.validate`), scores it with the
  board's fixed settings (:mod:`harness.board.scores`) and stores one immutable row
  (:mod:`harness.board.store`); it raises :class:`harness.board.row.SubmissionError` with a
  plain-words message on any problem. A paper-protocol run goes through
  :mod:`harness.board.paper`.
- :func:`harness.board.table.table` ``(board_dir) -> list[Row]`` gives the submitted rows
  and the paper's Table 10 rows (:mod:`harness.board.reported`), ranked within each
  (protocol, scoring) group.
- :func:`harness.board.verify.verify` ``(board_dir, row) -> dict`` re-scores a stored row
  from its stored predictions with the board's settings and checks its stored scores.

A row keeps, besides its scores, the run that produced it (``details["run"]``, from the
``results.json`` of ``jiezi eval``: :mod:`harness.board.runs`) and the board's bench
identity (``details["bench"]``: source, revision, content fingerprint, image sizes). Model
names are compared with the paper's under NFKC and a Unicode TR39 confusable skeleton
(:mod:`harness.board.names`).
"""
