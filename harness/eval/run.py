"""``jiezi eval``: run a model over JieZi-Bench and score it.

:func:`evaluate` loads the bench (``datasets.load_dataset(path_or_id, config,
split=...)``), asks the model every question (bounded concurrency, batches for ``hf:``,
a progress bar), appends each answer to ``OUTPUT/predictions.jsonl`` as it arrives
(:mod:`harness.eval.predlog`), and scores the answers with the ACCE metric core into
``OUTPUT/results.json``.

A backend that reads the bench images itself (``ocr``, ``fused``) reads every distinct
image once, batched, before answering, and writes ``OUTPUT/decisions.json``: per image id
the decided character and script, the confidence, whether it abstained, which component
read it (``both``, ``ocr``, ``retrieval``, ``fusion``) and the candidates of each.

Resuming: ``OUTPUT/run.json`` records what the run is (model, bench fingerprint,
config, split, strategy, paraphrases, prompt version, decoding); running the same command
again skips every id already answered without error and asks the rest (failed ones
included). A different run in the same folder is refused, never mixed in.

``results.json`` (format ``jiezi-eval-results/1``): ``model`` (spec, backend, decoding
settings; for the baseline its settings and gallery fingerprint), ``bench`` (source,
config, split, content fingerprint, rows, images, limit), ``strategy``,
``prompt_version``, ``scores`` (the metric core's output: the eleven metrics on 0-100 or
None with the reason in ``not_computed``, ``L1``..``L4``, ``macro``, ``lenient``,
``FORC_partial``, ``counts``, ``skipped``, ``warnings``), ``breakdown`` (by script, by
split, by script x split), ``scorer`` (the metric's settings and the BERTScore model
record with ``comparable_to_paper``), ``warnings`` (run-level: unanswered questions, a
changed ``--limit``), ``run`` (questions asked, answers reused from an earlier run,
errors, generation / scoring / wall seconds), ``packages`` (versions), and ``paraphrase``
for paraphrase runs. A run in which every question failed is not scored (RunError).

Paraphrase robustness (``paraphrases=N``, paper Table 13): every question is also asked
in ``N`` other wordings, each wording with its own predictions file
(``predictions-p1.jsonl`` ...) and scores; results.json gets the per-wording scores and the
mean change against the original wording.

The options and their checks are :mod:`harness.eval.options`, the asking loop
:mod:`harness.eval.ask`, and results.json's parts and scores :mod:`harness.eval.results`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from harness import prompts
from harness.baselines.embed import make_embedder
from harness.baselines.gallery import Gallery
from harness.bench import META_COLUMNS, default_gallery, fingerprint, load_bench, resolve_revision
from harness.eval import strategies
from harness.eval.ask import Worker, answer_all, bench_neighbours, pending
from harness.eval.backends import BACKENDS
from harness.eval.backends.base import parse_model_spec
from harness.eval.options import EvalOptions, RunError, backend_options, check_options
from harness.eval.predlog import check_run_identity
from harness.eval.results import add_scores, cached_scores, jsonable, results_head, run_warnings, scoring_key
from harness.eval.sampling import stratified_sample
from harness.scoring import make_judge, scorer_settings
from hub.atomic import atomic_write_json
from hub.runfiles import write_results


def _run_identity(opts: EvalOptions, spec, bench_fp: str, decoding: dict) -> dict:
    # The endpoint is not part of a run's identity: a server restarted elsewhere serving the
    # same model continues the run.
    return {"model": f"{spec.kind}:{spec.name}", "bench_fingerprint": bench_fp, "config": opts.config, "split": opts.split,
            "strategy": opts.strategy, "paraphrases": opts.paraphrases,
            "paraphrase_source": opts.paraphrase_source if opts.paraphrases else None,
            "prompt_version": prompts.PROMPT_VERSION if BACKENDS[spec.kind].prompted else None, "decoding": decoding,
            # only when asked for, so run folders of earlier versions (no such key) still resume
            **({"thinking": [opts.thinking, opts.thinking_budget]} if opts.thinking or opts.thinking_budget else {})}


def _decoding_identity(settings: dict, gallery) -> dict:
    """The backend settings that change answers (not concurrency, timeouts or devices)."""
    keep = ("backend", "model", "max_tokens", "max_new_tokens", "temperature", "dtype", "retrieval", "ocr",
            "vocabulary", "fusion")
    out = {k: settings[k] for k in keep if k in settings}
    if gallery is not None:
        out["gallery_fingerprint"] = gallery.fingerprint
        out["embedder"] = gallery.embedder.name
    return out


def _check_identity(output: Path, identity: dict) -> None:
    check_run_identity(output, identity, RunError)


def _load_rows(opts: EvalOptions, revision: str | None = None):
    """``(ds, bench fingerprint, metas, ids)`` of the bench split (at ``revision``, the
    resolved commit of a repo id), cut at ``--limit``; the fingerprint is of the whole
    split. Raises :class:`RunError` on duplicate ids."""
    ds = load_bench(opts.bench, opts.config, opts.split, revision=revision)
    bench_fp = fingerprint(ds)
    metas = ds.select_columns([c for c in META_COLUMNS if c in ds.column_names]).to_list()
    opts.sample = None
    if opts.limit is not None and opts.limit < len(ds):
        # a stratified draw, not the first N rows (the bench is sorted by script)
        keep, opts.sample = stratified_sample(metas, opts.limit, opts.seed)
        ds, metas = ds.select(keep), [metas[i] for i in keep]
    ids = [m["id"] for m in metas]
    if len(set(ids)) != len(ids):
        raise RunError(f"bench {opts.bench} {opts.config}/{opts.split} has duplicate ids")
    return ds, bench_fp, metas, ids


def _start_backend(spec, opts: EvalOptions):
    """``(backend, gallery)``: the registered backend of ``spec`` and the JieZi-Dataset
    gallery when the backend or the strategy needs one (else None)."""
    cls = BACKENDS[spec.kind]
    needs_gallery = cls.needs_gallery or opts.strategy != "zero-shot"
    gallery_source = (opts.gallery or default_gallery(opts.bench)) if needs_gallery else None
    backend = cls.create(spec, backend_options(opts, gallery_source))
    gallery = None
    if needs_gallery:
        gallery = backend.gallery if backend.gallery is not None else Gallery(
            gallery_source, make_embedder(opts.embedder), cache_dir=opts.cache_dir, progress=opts.progress)
    return backend, gallery


def _ask(opts: EvalOptions, spec, backend, gallery, ds, metas: list[dict], ids: list[str], bench_fp: str):
    """Check the run folder's identity, find neighbours, ask what is not answered yet.
    Returns ``(output, items, retried, records, n_errors, generation seconds)``."""
    output = Path(opts.output)
    output.mkdir(parents=True, exist_ok=True)
    _check_identity(output, _run_identity(opts, spec, bench_fp, _decoding_identity(backend.settings(), gallery)))
    neighbours = None
    if gallery is not None:
        neighbours = bench_neighbours(backend, ds, metas, gallery, max(opts.retrieval_k, strategies.SHOTS * 4),
                                      bench_fp, opts)
    logs, items, retried = pending(output, metas, ids, opts)
    worker = Worker(backend, ds, metas, opts, gallery, neighbours if backend.prompted else None)
    gen_s = answer_all(spec, worker, items, logs, opts, ids)
    if backend.reads_images:  # which component read each glyph, with its candidates
        atomic_write_json(output / "decisions.json", jsonable(backend.decision_records()), fsync=True)
    records = {w: {i: logs[w].records.get(i) for i in ids} for w in logs}
    n_errors = {w: sum(1 for r in recs.values() if r is None or r.get("error")) for w, recs in records.items()}
    return output, items, retried, records, n_errors, gen_s


def evaluate(opts: EvalOptions) -> dict:
    """Run ``opts.model`` over the bench and write predictions and results (see module
    docstring). Returns the results dict (also written to ``OUTPUT/results.json`` unless
    ``opts.score`` is False). Raises :class:`RunError`, ``harness.bench.BenchError``,
    ``harness.eval.backends.base.ModelSpecError`` or ``harness.scoring.ScoringSetupError`` with a
    message naming the problem; a backend failure on one item is recorded, not raised.
    """
    t_start = time.time()
    spec = parse_model_spec(opts.model)
    check_options(opts, spec)
    settings, bert_record = (scorer_settings(opts.bertscore_model, bertscore=opts.bertscore,
                                             progress=opts.progress) if opts.score
                             else (None, None))
    judge = make_judge(opts.judge) if opts.score else None
    revision = resolve_revision(opts.bench, opts.revision)  # one commit for every read of this run
    ds, bench_fp, metas, ids = _load_rows(opts, revision)
    backend, gallery = _start_backend(spec, opts)
    output, items, retried, records, n_errors, gen_s = _ask(opts, spec, backend, gallery, ds, metas, ids, bench_fp)
    if opts.score and n_errors[0] == len(ids):
        # Scoring a run with no answer at all would print a table of zeros that reads like a
        # (very bad) model; it is a broken run, not a result.
        last = next((r.get("error") for r in reversed(list(records[0].values())) if r and r.get("error")), None)
        raise RunError(f"{spec}: all {len(ids)} questions failed, nothing to score; last error: {(last or '').rstrip('.')}. "
                       "The failures are recorded in predictions.jsonl and a rerun asks them again.")
    previous = output / "results.json"
    reused = len(ids) - sum(1 for w, _, _ in items if w == 0)
    run = {"questions_asked": len(items), "answers_reused": reused, "errors": n_errors[0],
           "errors_retried": retried[0], "generation_s": round(gen_s, 2),
           "command": " ".join(sys.argv) if sys.argv else None,
           "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t_start))}
    results = results_head(opts, spec, backend, gallery, bench_fp, metas, run,
                           run_warnings(records, n_errors, ids, previous), revision=revision)
    if not opts.score:
        results["run"]["wall_time_s"] = round(time.time() - t_start, 2)
        return results
    # A rerun that asked nothing new and scores the same files the same way reuses the scores.
    key = scoring_key(output, len(records), ids, bert_record, opts)
    cached = cached_scores(previous, key) if not items else None
    if cached is not None:
        cached["run"].update(questions_asked=0, answers_reused=reused, reused_scores=True,
                             wall_time_s=round(time.time() - t_start, 2))
        return cached
    results["run"]["scoring_key"] = key
    t_score = time.time()
    add_scores(results, metas, records, n_errors, settings, judge, bert_record, opts, output)
    results["run"]["scoring_s"] = round(time.time() - t_score, 2)
    results["run"]["wall_time_s"] = round(time.time() - t_start, 2)
    results["run"]["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    write_results(output / "results.json", jsonable(results))
    return results


