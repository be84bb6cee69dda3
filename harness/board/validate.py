"""Validating a submitted ``predictions.jsonl`` (:func:`validate_predictions`) and the ids of
a row (:func:`content_id`, :func:`row_id`).

Submission format (the ``predictions.jsonl`` that ``jiezi eval`` writes): UTF-8 JSON
Lines, one ``hub.runfiles.PredictionRow`` per bench row of the board's config/split, each id
exactly once (``schemas/predictions.schema.json``); plain JSON only (no NaN/Infinity, no
duplicate keys), valid Unicode text. A submission's id is
the SHA-256 of its content (the (id, output) pairs sorted by id), so the same answers
submitted twice are one row."""

from __future__ import annotations

import hashlib
import json
import re

from harness.board.row import SubmissionError
from harness.eval.thinking import label as thinking_label
from hub.runfiles import PREDICTION_FIELDS, prediction_problem

MAX_BYTES = 50_000_000  # bytes; a full-bench predictions file is a few MB
_SHOWN_PROBLEMS = 5


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _reject_constant(name: str):
    raise ValueError(f"{name} is not plain JSON")


def _no_duplicate_keys(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"key {k!r} appears twice")
        out[k] = v
    return out


def _problems(kind: str, items: list[str]) -> str:
    shown = ", ".join(repr(i) for i in items[:_SHOWN_PROBLEMS])
    more = f" and {len(items) - _SHOWN_PROBLEMS} more" if len(items) > _SHOWN_PROBLEMS else ""
    return f"{len(items)} {kind}: {shown}{more}"


def _read_line(n: int, line: str) -> tuple[dict | None, str | None]:
    """One predictions line as ``(object, None)``, or ``(None, problem)`` naming line ``n``,
    the field and what was expected."""
    try:
        obj = json.loads(line, parse_constant=_reject_constant, object_pairs_hook=_no_duplicate_keys)
    except ValueError as exc:
        return None, f"line {n}: not plain JSON ({exc})"
    problem = prediction_problem(obj)  # the fields and their types: hub.runfiles.PredictionRow
    if problem:
        return None, f"line {n}: {problem}"
    # Text decoded from UTF-8 holds no surrogate; only a JSON escape (\\uD800-\\uDFFF) can make one.
    bad = None if not _SURROGATE_ESCAPE.search(line) else next(
        ((k, found) for k in PREDICTION_FIELDS if k in obj and (found := lone_surrogate(obj[k]))), None)
    if bad:
        # A JSON escape such as "\ud800" decodes to half a UTF-16 pair: not a character,
        # so the answer cannot be stored or hashed as UTF-8 text.
        return None, (f"line {n}: field {bad[0]!r} is not valid Unicode text: it holds a lone surrogate "
                      f"({bad[1]}); write the character itself or a full surrogate pair")
    return obj, None


def validate_predictions(data: bytes, bench_ids: list[str], *, max_bytes: int = MAX_BYTES) -> list[dict]:
    """Parse and check a submitted predictions file; returns one dict per line.

    Checks, in order: size (``max_bytes``), UTF-8, each non-empty line a plain JSON object
    (no NaN/Infinity, no duplicate keys), only :data:`ALLOWED_FIELDS` with the right types,
    every id of ``bench_ids`` exactly once and no other id. Raises
    :class:`SubmissionError` naming the line, field or ids at fault.
    """
    if len(data) > max_bytes:
        raise SubmissionError(f"the file is {len(data) / 1e6:.1f} MB; the limit is {max_bytes / 1e6:.0f} MB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise SubmissionError(f"the file is not UTF-8 text: invalid byte 0x{data[exc.start]:02x} on line {line} "
                              f"(byte offset {exc.start})") from exc
    text = text.removeprefix("\ufeff")
    rows, problems = [], []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        obj, problem = _read_line(n, line)
        if problem:
            problems.append(problem)
            continue
        rows.append(obj)
        if len(problems) > 50:
            break
    if problems:
        raise SubmissionError(_problems("bad line(s)", problems))
    if not rows:
        raise SubmissionError("the file holds no predictions")
    seen: dict[str, int] = {}
    for r in rows:
        seen[r["id"]] = seen.get(r["id"], 0) + 1
    dupes = [i for i, c in seen.items() if c > 1]
    expected = set(bench_ids)
    unknown_ids = [i for i in seen if i not in expected]
    missing_ids = [i for i in bench_ids if i not in seen]
    msgs = []
    if dupes:
        msgs.append(_problems("duplicate id(s)", dupes))
    if missing_ids:
        msgs.append(_problems("missing bench id(s)", missing_ids))
    if unknown_ids:
        msgs.append(_problems("id(s) not in the bench", unknown_ids))
    if msgs:
        raise SubmissionError("; ".join(msgs) + f" (the board expects each of its {len(bench_ids)} bench ids exactly once)")
    return rows


def content_id(rows: list[dict]) -> str:
    """SHA-256 (hex) of the (id, output) pairs sorted by id: the submission's identity."""
    h = hashlib.sha256()
    for r in sorted(rows, key=lambda r: r["id"]):
        h.update(json.dumps([r["id"], r.get("output")], ensure_ascii=False).encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()


def row_id(rows: list[dict], run: dict | None) -> str:
    """A per-question row's id: :func:`content_id`, and for a run that recorded thinking on
    or off (:mod:`harness.eval.thinking`) that setting too, so the same model may hold one row
    per setting even where two settings gave the same answers; unknown keeps the bare
    content id (rows of earlier versions keep theirs)."""
    label = thinking_label((run or {}).get("thinking"))
    if label == "unknown":
        return content_id(rows)
    return hashlib.sha256(f"thinking={label}\n{content_id(rows)}\n".encode()).hexdigest()


_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(value) -> str | None:
    """The first string inside ``value`` (str, list or dict, nested) that is not valid
    Unicode text (a lone UTF-16 surrogate such as ``"\\ud800"``, which JSON can escape but
    UTF-8 cannot encode), as ``repr`` of the code point and its index; else None."""
    if isinstance(value, str):
        m = _SURROGATE.search(value)
        return f"U+{ord(m.group()):04X} at character {m.start()}" if m else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        found = lone_surrogate(k) if isinstance(k, str) else None
        found = found or lone_surrogate(v)
        if found:
            return found
    return None
