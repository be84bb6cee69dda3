"""The options of one ``jiezi eval`` run (:class:`EvalOptions`), their checks, and the
backend settings they carry (:class:`~harness.eval.backends.base.BackendOptions`, which
``EvalOptions`` extends, so a backend flag is declared once)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

from harness.eval import strategies
from harness.eval import thinking as thinking_setting
from harness.eval.backends import BACKENDS
from harness.eval.backends.base import BackendOptions

PARAPHRASE_SOURCES = ("own", "templates")


class RunError(RuntimeError):
    """The run cannot start or continue (message says why and what to do)."""


@dataclass(kw_only=True)
class EvalOptions(BackendOptions):
    """Options of one ``jiezi eval`` run (the CLI flags of the same names), keyword only.

    The backend's own settings (``max_new_tokens``, ``temperature``, ``timeout``,
    ``max_retries``, ``device``, ``dtype``, ``batch_size``, ``retrieval_k``,
    ``retrieval_temperature``, ``embedder``, ``cache_dir``, ``progress``, ``thinking``,
    ``thinking_budget``) are :class:`~harness.eval.backends.base.BackendOptions`' fields.

    ``limit``: N rows of the split, a stratified sample (script x subtask) drawn with
    ``seed`` (:func:`harness.eval.sampling.stratified_sample`, recorded in results.json
    ``bench.sample``); ``concurrency``: parallel backend calls (default
    per backend: openai 8, hf 1, retrieval 1);
    ``strategy``: zero-shot | icl | rag | dict; ``paraphrases``: extra wordings per
    question (0-3); ``paraphrase_source``: ``own`` (this harness's wordings, never seen in
    training) or ``templates`` (the builder's other template phrasings);
    ``gallery``: JieZi-Dataset folder or id (default: next to the bench);
    ``bertscore_model``: see :func:`harness.scoring.resolve_bertscore_model`;
    ``judge``: see :func:`harness.scoring.make_judge`; ``score``: False skips results.json;
    ``bertscore``: False reports ORIM/COMI as not computed without loading a model;
    ``thinking`` (on / off; None = the backend's default) and ``thinking_budget`` (a
    reasoning effort): :mod:`harness.eval.thinking`, recorded in results.json ``model.thinking``;
    ``revision``: branch, tag or commit of a Hub repo-id bench, pinned to its commit
    (``harness.bench.resolve_revision``) and recorded in results.json.
    """

    model: str
    bench: str
    output: Path
    revision: str | None = None
    config: str = "all"
    split: str = "test"
    limit: int | None = None
    seed: int = 0
    concurrency: int | None = None
    strategy: str = "zero-shot"
    paraphrases: int = 0
    paraphrase_source: str = "own"
    bertscore_model: str | None = None
    judge: str | None = None
    score: bool = True
    bertscore: bool = True
    sample: dict | None = None  # set by the run: the --limit draw (harness.eval.sampling)


def check_options(opts: EvalOptions, spec) -> None:
    """Raise :class:`RunError` naming the first flag out of range for ``spec``'s backend."""
    if opts.strategy not in strategies.STRATEGIES:
        raise RunError(f"--strategy {opts.strategy!r}: expected one of {list(strategies.STRATEGIES)}")
    if not BACKENDS[spec.kind].prompted and (opts.strategy != "zero-shot" or opts.paraphrases):
        prompted = " and ".join(f"{k}:" for k, cls in BACKENDS.items() if cls.prompted)
        raise RunError(f"--strategy and --paraphrases apply to {prompted} models; the {spec} baseline "
                       "answers from the image alone")
    if not 0 <= opts.paraphrases <= 3:
        raise RunError(f"--paraphrases {opts.paraphrases}: expected 0..3")
    if opts.paraphrase_source not in PARAPHRASE_SOURCES:
        raise RunError(f"--paraphrase-source {opts.paraphrase_source!r}: expected one of {list(PARAPHRASE_SOURCES)}")
    if opts.limit is not None and opts.limit < 1:
        raise RunError(f"--limit {opts.limit}: expected a positive number of rows")
    try:
        thinking_setting.check(opts.thinking, opts.thinking_budget)
    except ValueError as exc:
        raise RunError(str(exc)) from exc


def backend_options(opts: EvalOptions, gallery_source: str | None) -> BackendOptions:
    """The backend settings of ``jiezi eval``'s flags, with ``gallery_source`` (the
    ``--gallery`` or the one beside the bench; None when nothing needs a gallery) as gallery."""
    values = {f.name: getattr(opts, f.name) for f in fields(BackendOptions)}
    return BackendOptions(**{**values, "gallery": gallery_source})
