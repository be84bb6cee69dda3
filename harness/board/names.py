"""Model names and submission metadata: the checks a name and the metadata pass, and the
comparison key of names (NFKC and a Unicode TR39 confusable skeleton), so a submission never
takes, or looks like, the name of a row reported in the paper."""

from __future__ import annotations

import math
import re
import unicodedata
from functools import lru_cache

from confusable_homoglyphs.confusables import confusables_data

from harness.board.reported import paper_rows
from harness.board.row import SubmissionError
from harness.board.validate import lone_surrogate

_NAME = re.compile(r"^[^\W_][\w .+\-()]{0,79}$")


# ----------------------------------------------------------------------------- inputs
def check_model_name(name: str) -> str:
    """Return the name with runs of white space made one space, or raise
    :class:`SubmissionError`: 1-80 characters,
    letters, digits, spaces and ``. _ - + ( )``, starting with a letter or digit (so no
    path such as ``../x``)."""
    if re.search(r"[^\S ]", name or ""):  # tabs, newlines ...: never part of a name on the board
        raise SubmissionError(f"the model name {name!r} is not allowed: it contains a tab or line break")
    text = " ".join((name or "").split())  # runs of spaces would make look-alike names
    if not text:
        raise SubmissionError("the model name is empty")
    if not _NAME.match(text) or ".." in text:
        raise SubmissionError(
            f"the model name {text!r} is not allowed: use 1-80 letters, digits, spaces and . _ - + ( ), "
            "starting with a letter or digit (no slashes or '..')")
    return text


@lru_cache(maxsize=1)
def _confusable_representatives() -> dict[str, str]:
    """Character -> the representative of its confusable class (Unicode TR39
    ``confusables.txt`` as shipped by ``confusable_homoglyphs``): single characters linked by
    a confusable mapping, in either direction, form one class, and its lowest code point
    stands for it (``е`` Cyrillic, ``e`` Latin -> ``e``; ``1``, ``I``, ``l`` -> ``1``)."""
    parent: dict[str, str] = {}

    def find(c: str) -> str:
        while parent.get(c, c) != c:
            parent[c] = parent.get(parent[c], parent[c])
            c = parent[c]
        return c

    for char, glyphs in confusables_data.items():
        for g in glyphs:
            other = g["c"].strip("\u200e\u200f")  # the data wraps right-to-left glyphs in marks
            if len(char) == 1 and len(other) == 1:
                a, b = find(char), find(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return {c: find(c) for c in parent}


def name_key(name: str) -> str:
    """The comparison key of a model name: NFKC (full-width ``Ｑ`` -> ``Q``), case folded,
    white space collapsed, then every character replaced by its confusable class
    (Unicode TR39 skeleton, see :func:`_confusable_representatives`), so ``Ｑwen3.5-9B``,
    ``Qwеn3.5-9B`` (Cyrillic е) and ``qwen3.5-9b`` share the key of ``Qwen3.5-9B``."""
    reps = _confusable_representatives()
    text = " ".join(unicodedata.normalize("NFKC", name).casefold().split())
    skeleton = "".join(reps.get(c, c) for c in text)
    # a second pass: case folding can turn a mapped character into another member of a class
    return "".join(reps.get(c, c) for c in skeleton.casefold())


_META_FIELDS = {"organization": str, "url": str, "paper": str, "base_model": str, "params": (str, int, float),
                "license": str, "notes": str, "contact": str, "training_data": str, "date": str}


def check_meta(meta: dict | None) -> dict:
    """Validate submission metadata: a JSON object with only the keys of
    ``organization, url, paper, base_model, params, license, notes, contact,
    training_data, date`` (strings up to 500 characters; ``params`` may be a number).
    Raises :class:`SubmissionError` naming the key."""
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise SubmissionError(f"the metadata must be a JSON object, not {type(meta).__name__}")
    for key, value in meta.items():
        if key not in _META_FIELDS:
            raise SubmissionError(f"metadata field {key!r} is not accepted; allowed: {sorted(_META_FIELDS)}")
        if not isinstance(value, _META_FIELDS[key]) or isinstance(value, bool):
            raise SubmissionError(f"metadata field {key!r} must be text{' or a number' if key == 'params' else ''}")
        if isinstance(value, str) and len(value) > 500:
            raise SubmissionError(f"metadata field {key!r} is longer than 500 characters")
        if isinstance(value, str) and lone_surrogate(value):
            raise SubmissionError(f"metadata field {key!r} is not valid Unicode text: it holds a lone surrogate "
                                  f"({lone_surrogate(value)})")
        if isinstance(value, float) and not math.isfinite(value):
            raise SubmissionError(f"metadata field {key!r} must be a finite number")
    return dict(meta)


def unreserved_name(model_name: str) -> str:
    """``model_name`` checked (:func:`check_model_name`) and not one of the paper's rows.
    The board shows those names as "reported in paper"; a submission under the same name,
    or one that only looks the same (full-width or Cyrillic letters, compared by
    :func:`name_key`), would make the comparison ambiguous. Raises :class:`SubmissionError`."""
    name = check_model_name(model_name)
    taken = {name_key(r.model_name): r.model_name for r in paper_rows()}
    if name_key(name) in taken:
        raise SubmissionError(f"the model name {name!r} is a row reported in the paper ({taken[name_key(name)]!r}) "
                              "or looks the same as one; choose a name that tells your run apart, e.g. add your "
                              "organisation or a version")
    return name
