"""``predictions.jsonl``: the append-only, resumable record of a run's answers.

One JSON object per line (UTF-8, JSON Lines), a ``hub.runfiles.PredictionRow`` each:
``id`` (bench row id), ``output`` (raw model text, None when the call failed),
``parsed`` (``metrics.acce.core.parse_answer`` of the output, None when unparseable),
``latency_s`` (seconds of the backend call that produced it; a batch shares one call),
``error`` (None, or the error text of a failed call).

Each answer is appended as one line and flushed as soon as it arrives, so a crash loses at
most the answers in flight. A line cut off by a crash is removed when the file is opened
again. An id whose latest line has an error is not done: a resumed run asks it again and
appends the new line; :meth:`PredictionLog.compact` finally rewrites the file (atomically,
``hub.atomic``) with exactly one line per id, in bench order, which is the form the
leaderboard accepts.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from hub.atomic import atomic_open, atomic_write_json
from hub.runfiles import PREDICTION_FIELDS, check_prediction, prediction_problem

class PredictionLog:
    """The predictions file at ``path`` (created when missing).

    ``records``: latest record per id (read at open, updated by :meth:`append`);
    ``bad_lines``: lines that were not JSON objects with an ``id`` (skipped, counted);
    ``repaired``: True when a cut-off last line was removed at open.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.records: dict[str, dict] = {}
        self.bad_lines = 0
        self.repaired = False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._load()
        self._fh = open(self.path, "a", encoding="utf-8")

    def _load(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            # The last line was being written when the run stopped: drop it (it is re-asked).
            keep = data.rfind(b"\n") + 1
            with open(self.path, "r+b") as fh:
                fh.truncate(keep)
            data = data[:keep]
            self.repaired = True
        for line in data.decode("utf-8", errors="replace").splitlines():
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                self.bad_lines += 1
                continue
            if prediction_problem(rec) is not None:  # not a prediction: counted, and its id asked again
                self.bad_lines += 1
                continue
            self.records[rec["id"]] = rec

    def done(self) -> set[str]:
        """Ids whose latest record has no error."""
        return {k for k, r in self.records.items() if r.get("error") is None}

    def errors(self) -> set[str]:
        """Ids whose latest record has an error."""
        return {k for k, r in self.records.items() if r.get("error") is not None}

    def append(self, record: dict) -> None:
        """Append one record (one ``write`` of one full line, then flush); its fields are
        those of ``hub.runfiles.PredictionRow``, checked first (:class:`hub.runfiles.RunFileError`)."""
        rec = check_prediction({k: record.get(k) for k in PREDICTION_FIELDS}, f"{self.path}: new line")
        self._fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        self._fh.flush()
        self.records[rec["id"]] = rec

    def sync(self) -> None:
        """Flush and fsync the file."""
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        """Flush, fsync and close."""
        if not self._fh.closed:
            self.sync()
            self._fh.close()

    def compact(self, order: list[str]) -> None:
        """Rewrite the file atomically with the latest record per id: ids of ``order``
        first (in that order), then any other ids in file order."""
        self.close()
        seen = set(order)
        ids = [i for i in order if i in self.records] + [i for i in self.records if i not in seen]
        with atomic_open(self.path, fsync=True) as fh:
            for i in ids:
                fh.write(json.dumps(self.records[i], ensure_ascii=False) + "\n")
        self._fh = open(self.path, "a", encoding="utf-8")

    def __enter__(self) -> "PredictionLog":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def check_run_identity(output: Path, identity: dict, error: type[Exception] = RuntimeError) -> None:
    """Keep one run per output folder: write ``identity`` to ``output/run.json`` on the first
    call; later, raise ``error`` naming every key whose value differs from the stored one
    (another model, bench, protocol ... would mix two runs' predictions). A folder holding
    predictions but no run.json is refused too, since what they answer is unknown."""
    path = output / "run.json"
    if not path.exists():
        if any(output.glob("predictions*.jsonl")):
            raise error(f"{output}: holds predictions but no run.json, so it is not known what they answer; "
                        "use a new --output folder")
        atomic_write_json(path, identity, fsync=True)
        return
    old = json.loads(path.read_text("utf-8"))
    diff = sorted(k for k in set(old) | set(identity) if old.get(k) != identity.get(k))
    if diff:
        details = "; ".join(f"{k}: {old.get(k)!r} -> {identity.get(k)!r}" for k in diff)
        raise error(f"{output} holds another run ({details}); use a new --output folder to keep both")
