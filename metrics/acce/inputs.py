"""The scorer's inputs read: which metrics an item is scored on, its splits, its reference.

:func:`metrics_of` turns an item's ``subtasks`` entry (a code, a list of metric keys, or
their text forms) into metric keys; :func:`split_flags` checks the per-item ``splits``
argument against the bench's split names; :func:`_reference` reads a reference (answer
text, or the ``answer_struct`` as a dict or its JSON) and :func:`_field` one of its fields.
Read by :func:`.core.score` and :func:`.core.parse_answer`.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

from .labels import METRICS, SPLITS, SUBTASKS


# ------------------------------------------------------------------- inputs -> metrics
_CODE_METRICS = {code: [code] for code in SUBTASKS}
_CODE_METRICS["EVOI"] = ["EVOI_FAC", "EVOI_SCE"]
_CODE_METRICS["EVOI_FAC"] = ["EVOI_FAC"]
_CODE_METRICS["EVOI_SCE"] = ["EVOI_SCE"]
_CODE_METRICS["FAC"] = ["EVOI_FAC"]
_CODE_METRICS["SCE"] = ["EVOI_SCE"]


def metrics_of(subtask: object) -> list[str]:
    """Metric keys for one item's ``subtasks`` entry: a code, a list of metric keys, or the
    text forms ``'["COMR","COMF"]'`` / ``"COMR,COMF"``. Raises ``ValueError`` on an unknown code."""
    if isinstance(subtask, (list, tuple)) and all(isinstance(code, str) for code in subtask):
        return list(_metrics_of_codes(tuple(subtask)))  # a bench has a handful of distinct lists
    if isinstance(subtask, str):
        return list(_metrics_of_codes(subtask))
    return _metrics_of(subtask)


@lru_cache(maxsize=1024)
def _metrics_of_codes(subtask: str | tuple[str, ...]) -> tuple[str, ...]:
    return tuple(_metrics_of(list(subtask) if isinstance(subtask, tuple) else subtask))


def _metrics_of(subtask: object) -> list[str]:
    if isinstance(subtask, str):
        text = subtask.strip()
        if text.startswith("["):
            try:
                subtask = json.loads(text)
            except ValueError as exc:
                raise ValueError(f"subtasks entry {subtask!r} is not a JSON list") from exc
        else:
            subtask = [p for p in re.split(r"[,\s;]+", text) if p]
    if not isinstance(subtask, (list, tuple)) or not subtask:
        raise ValueError(f"subtasks entry {subtask!r}: expected a code such as 'CHAR' or a list of metric keys")
    out: list[str] = []
    for code in subtask:
        key = str(code).strip().upper()
        if key not in _CODE_METRICS:
            raise ValueError(f"unknown ACCE subtask or metric {code!r}; expected one of {list(METRICS)} or 'EVOI'")
        for metric in _CODE_METRICS[key]:
            if metric not in out:
                out.append(metric)
    return out


def split_flags(splits: list | None, n: int) -> list[list[str]] | None:
    """The per-item ``splits`` argument as lists of known split names (``labels.SPLITS``).

    Each entry is a list of names, a single name as a string (``"unseen_characters"`` ->
    ``["unseen_characters"]``: iterating the string would give one-letter splits), or
    None / empty (the item is only in ``"all"``). A name repeated in one entry counts once.
    Raises ``ValueError`` naming the item index, the value and the allowed names when an
    entry is neither, or names a split the bench does not have: a typo would otherwise
    become a breakdown group of its own and the real split would look smaller.
    """
    if splits is None:
        return None
    if isinstance(splits, str):
        raise ValueError(f"splits must be a list with one entry per item, not the string {splits!r}")
    if len(splits) != n:
        raise ValueError(f"splits has {len(splits)} entries but predictions has {n}")
    out: list[list[str]] = []
    for i, entry in enumerate(splits):
        if entry is None:
            entry = []
        elif isinstance(entry, str):
            entry = [entry]
        elif not isinstance(entry, (list, tuple)):
            raise ValueError(f"splits[{i}] is {type(entry).__name__} {entry!r}: expected a list of split names "
                             f"from {list(SPLITS)} (or one name as a string)")
        names: list[str] = []
        for name in entry:
            key = name.strip() if isinstance(name, str) else name
            if key not in SPLITS:
                raise ValueError(f"splits[{i}] has unknown split {name!r}: expected names from {list(SPLITS)}")
            if key not in names:
                names.append(key)
        out.append(names)
    return out


def _reference(ref: object) -> dict | str:
    if isinstance(ref, dict):
        return ref
    if ref is None:
        return ""
    text = str(ref)
    if text.lstrip().startswith("{"):
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"reference looks like JSON but does not parse ({exc})") from exc
        if not isinstance(value, dict):
            raise ValueError("reference JSON must be an object (the bench's answer_struct)")
        return value
    return text


def _field(ref: dict | str, *keys: str) -> object:
    if isinstance(ref, str):
        return ref
    for key in keys:
        if key in ref and ref[key] not in (None, ""):
            return ref[key]
    raise ValueError(f"reference has no {keys[0]!r} field (keys present: {sorted(ref)})")
