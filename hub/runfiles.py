"""The files of an evaluation run, typed: ``predictions.jsonl`` rows and ``results.json``.

These are what a leaderboard submission is (``schemas/predictions.schema.json``,
``schemas/results.schema.json``, written from the models below by ``python -m hub.runfiles
schemas`` and checked by ``tests/test_hub_runfiles.py``). Every writer and reader goes
through here: ``jiezi eval`` (both protocols) writes them, the board, the builder's
baseline figures, the training card and a resumed run read them.

- :class:`PredictionRow`: one line of ``predictions.jsonl``: ``id`` (non-empty string),
  ``output`` (the raw answer, null when the call failed; required), ``parsed`` (object or
  null), ``latency_s`` (number or null), ``error`` (string or null); no other field.
- :class:`Results`: ``results.json`` (format ``jiezi-eval-results/1``): ``protocol``,
  ``scoring``, ``model`` (``spec`` at least), ``bench`` (``fingerprint`` at least: the
  board checks it against its own), ``scores`` (per metric: a 0-100 number or null; in a paper-protocol run an object
  ``{success_mean, with_failures, n}``), and the optional parts listed on the model. Nested
  records keep keys this version does not know (a newer writer's additions read fine).

Readers return the plain dicts they were given (validated, not rebuilt: the bytes a run wrote
are what a board stores). A file that does not fit raises :class:`RunFileError` naming the
file, the line (predictions) and the field. Files of earlier versions validate: every part
added since the first format is optional.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from hub.atomic import atomic_write_json

RESULTS_FORMAT = "jiezi-eval-results/1"
SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


class RunFileError(ValueError):
    """A run file does not fit its model; the message names the file, the line and the field."""


class PredictionRow(BaseModel):
    """One ``predictions.jsonl`` line (a bench question, or in the paper protocol a bench image)."""

    model_config = ConfigDict(extra="forbid", strict=True, title="JieZi-Bench prediction (one predictions.jsonl line)")

    id: str = Field(min_length=1, description="bench row id (paper protocol: bench image id)")
    output: Union[str, None] = Field(description="the model's raw answer; null when the call failed")
    parsed: Union[dict, None] = Field(None, description="the answer parsed by metrics.acce.core.parse_answer")
    latency_s: Union[float, None] = Field(None, allow_inf_nan=False, description="seconds of the call")
    error: Union[str, None] = Field(None, description="why the call failed; null when it did not")


#: the fields of a predictions line, in file order
PREDICTION_FIELDS = tuple(PredictionRow.model_fields)
_REQUIRED = tuple(k for k, f in PredictionRow.model_fields.items() if f.is_required())
# what each field must be, in the words of an error message
_MUST_BE = {"id": "a non-empty string", "output": "a string or null", "parsed": "an object or null",
            "latency_s": "a number or null", "error": "a string or null"}


def prediction_problem(obj) -> str | None:
    """What is wrong with one parsed predictions line (``"field 'output' must be a string or
    null"``, ``"unknown field(s) [...]"``, ``"missing field(s) [...]"``), or None when it fits."""
    if not isinstance(obj, dict):
        return f"expected a JSON object, got {type(obj).__name__}"
    unknown = [k for k in obj if k not in PREDICTION_FIELDS]
    if unknown:
        return f"unknown field(s) {unknown}; allowed fields are {list(PREDICTION_FIELDS)}"
    missing = [k for k in _REQUIRED if k not in obj]
    if missing:
        return f"missing field(s) {missing}"
    try:
        PredictionRow.model_validate(obj)
    except ValidationError as exc:
        name = str(exc.errors()[0]["loc"][0])
        return f"field {name!r} must be {_MUST_BE.get(name, 'valid')}"
    return None


def check_prediction(obj, where: str) -> dict:
    """``obj`` when it fits :class:`PredictionRow`, else :class:`RunFileError` naming
    ``where`` (``"FILE: line N"``) and the field."""
    problem = prediction_problem(obj)
    if problem:
        raise RunFileError(f"{where}: {problem}")
    return obj


class _Record(BaseModel):
    """A nested record: typed where the readers rely on it, open to keys added later."""

    model_config = ConfigDict(extra="allow")


class ModelRecord(_Record):
    """What answered: ``spec`` (the ``--model`` value), the backend and its settings."""

    spec: str
    backend: Union[str, None] = None
    model: Union[str, None] = None
    thinking: Union[dict, None] = None


class BenchRecord(_Record):
    """What was asked: the bench's source and revision, content fingerprint, config, split,
    the fingerprint of the rows asked, their number, images, the ``--limit`` draw."""

    fingerprint: str
    rows: Union[int, None] = Field(None, ge=0)
    source: Union[str, None] = None
    revision: Union[str, None] = None
    content_fingerprint: Union[str, None] = None
    config: Union[str, None] = None
    split: Union[str, None] = None
    images: Union[int, None] = None
    limit: Union[int, None] = None
    sample: Union[dict, None] = None


class PaperScore(BaseModel):
    """A metric of a paper-protocol run: the mean over replies with JSON, over all replies, and
    how many replies were scored."""

    model_config = ConfigDict(extra="allow")

    success_mean: Union[float, None]
    with_failures: Union[float, None]
    n: int = Field(ge=0)


Score = Union[float, None, PaperScore]
_SCORE_KEYS = ("CHAR", "SCRC", "STRC", "COMR", "COMF", "COMI", "COME", "FORC", "ORIM", "EVOI_FAC", "EVOI_SCE",
               "L1", "L2", "L3", "L4", "macro")


class Results(BaseModel):
    """``results.json`` of ``jiezi eval`` (module docstring); the board takes it as the run
    record of a submission (``--results``)."""

    model_config = ConfigDict(extra="allow", title="JieZi-Bench run results (results.json)")

    format: Literal["jiezi-eval-results/1"]
    protocol: Literal["per-question", "paper"] = "per-question"
    scoring: Literal["jiezi", "reference"] = "jiezi"
    model: ModelRecord
    bench: BenchRecord
    scores: dict[str, Any] = Field({}, description="per metric and level: 0-100 or null (paper protocol: PaperScore); "
                                               "counts, not_computed, lenient, warnings beside them")
    scores_jiezi: Union[dict[str, Any], None] = None
    breakdown: Union[dict, None] = None
    scorer: Union[dict, None] = None
    strategy: Union[dict, None] = None
    prompt_version: Union[str, None] = None
    prompt: Union[dict, None] = None
    paraphrase: Union[dict, None] = None
    items: Union[list, None] = None
    warnings: list[str] = []
    run: dict = {}
    packages: dict = {}

    @field_validator("scores", "scores_jiezi")
    @classmethod
    def _metric_values(cls, value):
        """Each metric and level is a number in 0-100, null, or a paper-protocol score."""
        for key in _SCORE_KEYS:
            v = (value or {}).get(key)
            if isinstance(v, dict):
                PaperScore.model_validate(v)
            elif v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)):
                raise ValueError(f"{key}: expected a number, null or {{success_mean, with_failures, n}}, got {v!r}")
        return value


def _field_path(error: dict) -> str:
    return ".".join(str(p) for p in error["loc"]) or "(top level)"


def check_results(data, where: str) -> dict:
    """``data`` when it fits :class:`Results`, else :class:`RunFileError` naming ``where``,
    the field and what was expected (the first problem, and how many more)."""
    if not isinstance(data, dict):
        raise RunFileError(f"{where}: expected a JSON object, got {type(data).__name__}")
    try:
        Results.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        first = errors[0]
        more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
        raise RunFileError(f"{where}: field {_field_path(first)!r}: {first['msg']}{more}") from exc
    return data


def read_results(path: str | os.PathLike) -> dict:
    """``results.json`` at ``path``, validated. Raises :class:`RunFileError` naming the file
    (not UTF-8 JSON, or a field that does not fit)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise RunFileError(f"{path}: not a readable UTF-8 JSON file ({exc})") from exc
    return check_results(data, str(path))


def write_results(path: str | os.PathLike, results: dict) -> Path:
    """Validate ``results`` and write it to ``path`` atomically (fsynced, ``hub.atomic``).
    Raises :class:`RunFileError` before writing anything when it does not fit."""
    check_results(results, str(path))
    return atomic_write_json(path, results, fsync=True)


def json_schemas() -> dict[str, dict]:
    """``{file name: JSON Schema}`` of the two run files (what ``schemas/`` holds)."""
    return {"predictions.schema.json": PredictionRow.model_json_schema(),
            "results.schema.json": Results.model_json_schema()}


def write_schemas(folder: str | os.PathLike = SCHEMA_DIR) -> list[Path]:
    """Write :func:`json_schemas` into ``folder``; returns the paths."""
    return [atomic_write_json(Path(folder) / name, schema, indent=2) for name, schema in json_schemas().items()]


if __name__ == "__main__":  # python -m hub.runfiles schemas [FOLDER]
    if sys.argv[1:2] != ["schemas"]:
        sys.exit("usage: python -m hub.runfiles schemas [FOLDER]")
    for written in write_schemas(*sys.argv[2:3]):
        print(f"wrote {written}")
