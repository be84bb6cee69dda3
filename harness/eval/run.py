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
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from harness import prompts
from harness.baselines.embed import make_embedder
from harness.baselines.retrieval import Gallery, embed_images
from harness.bench import (
    META_COLUMNS,
    bench_identity,
    default_gallery,
    fingerprint,
    load_bench,
    question_kind,
    resolve_revision,
    row_image,
    undecoded,
)
from harness.eval import strategies
from harness.eval import thinking as thinking_setting
from harness.eval.backends import BACKENDS
from harness.eval.backends.base import BackendOptions, Request, parse_model_spec
from harness.eval.predlog import PredictionLog, atomic_write_json, check_run_identity
from harness.eval.sampling import keep_config_fields, restrict_metrics, stratified_sample
from harness.scoring import make_judge, package_versions, score_rows, scorer_settings
from hub import templates as qa_templates
from metrics.acce import labels
from metrics.acce.core import parse_answer

RESULTS_FORMAT = "jiezi-eval-results/1"
PARAPHRASE_SOURCES = ("own", "templates")
# With no answer yet, this many failures in a row (or 4 x the concurrency, if more) end the run.
FAIL_FAST_AFTER = 20


class RunError(RuntimeError):
    """The run cannot start or continue (message says why and what to do)."""


@dataclass
class EvalOptions:
    """Options of one ``jiezi eval`` run (the CLI flags of the same names).

    ``limit``: N rows of the split, a stratified sample (script x subtask) drawn with
    ``seed`` (:func:`harness.eval.sampling.stratified_sample`, recorded in results.json
    ``bench.sample``); ``concurrency``: parallel backend calls (default
    per backend: openai 8, hf 1, retrieval 1); ``batch_size``: questions per hf call;
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
    thinking: str | None = None
    thinking_budget: str | None = None
    concurrency: int | None = None
    batch_size: int | None = None
    strategy: str = "zero-shot"
    paraphrases: int = 0
    paraphrase_source: str = "own"
    gallery: str | None = None
    bertscore_model: str | None = None
    judge: str | None = None
    max_new_tokens: int = 1024
    temperature: float = 0.0
    max_retries: int = 4
    timeout: float = 120.0
    device: str = "auto"
    dtype: str = "auto"
    retrieval_k: int = 10
    retrieval_temperature: float = 0.02
    embedder: str = "hog"
    cache_dir: Path | None = None
    progress: bool = True
    score: bool = True
    bertscore: bool = True
    sample: dict | None = None  # set by the run: the --limit draw (harness.eval.sampling)


def predictions_path(output: Path, wording: int = 0) -> Path:
    """``predictions.jsonl`` for the original wording, ``predictions-p<k>.jsonl`` for paraphrase k."""
    return Path(output) / ("predictions.jsonl" if wording == 0 else f"predictions-p{wording}.jsonl")


def template_paraphrases(kind: str, original: str, n: int) -> list[str]:
    """Up to ``n`` phrasings of template ``kind`` from ``hub.templates`` (the
    builder's other wordings) that differ from ``original``."""
    if kind not in qa_templates.TEMPLATES:
        return []
    # a bench question may open by naming the script shown ("图中字形为金文。"): keep it
    prefix, core = qa_templates.split_script_prefix(original.strip())
    out = []
    for i in range(len(qa_templates.TEMPLATES[kind])):
        zh, _ = qa_templates.question(kind, i)
        if zh.strip() != core.strip() and prefix + zh not in out:
            out.append(prefix + zh)
    return out[:n]


def _wordings(meta: dict, opts: EvalOptions) -> list[str]:
    """The question texts of one row: the bench's own, then the paraphrases."""
    if opts.paraphrases <= 0:
        return [meta["question"]]
    kind = question_kind(meta)
    if opts.paraphrase_source == "templates":
        extra = template_paraphrases(kind, meta["question"], opts.paraphrases)
    else:
        extra = prompts.paraphrases(prompts.question_type(kind), meta["question"], opts.paraphrases)
    return [meta["question"], *extra]


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


def _backend_options(opts: EvalOptions, gallery_source: str | None) -> BackendOptions:
    """The backend settings of ``jiezi eval``'s flags."""
    return BackendOptions(max_new_tokens=opts.max_new_tokens, temperature=opts.temperature, timeout=opts.timeout,
                          max_retries=opts.max_retries, device=opts.device, dtype=opts.dtype,
                          batch_size=opts.batch_size, gallery=gallery_source, retrieval_k=opts.retrieval_k,
                          retrieval_temperature=opts.retrieval_temperature, embedder=opts.embedder,
                          cache_dir=opts.cache_dir, progress=opts.progress, thinking=opts.thinking,
                          thinking_budget=opts.thinking_budget)


def _bench_queries(ds, metas: list[dict], gallery, bench_fp: str, opts: EvalOptions):
    """``(image_ids, rows, embeddings, key)`` of the distinct bench images: their ids, a
    dataset of one row each, their gallery embeddings (cached) and the cache key."""
    first: dict[str, int] = {}
    for i, m in enumerate(metas):
        first.setdefault(m["image_id"], i)
    image_ids = list(first)
    key = hashlib.sha256(("\n".join(image_ids) + bench_fp).encode()).hexdigest()[:20]
    cache = gallery.cache_dir / f"bench-{key}-{gallery.embedder.name}.npy"
    sub = ds.select([first[i] for i in image_ids])
    queries = embed_images(sub, "image", gallery.embedder, cache=cache, progress=opts.progress, desc="embed bench")
    return image_ids, sub, queries, key


def _bench_neighbours(backend, ds, metas: list[dict], gallery, k: int, bench_fp: str,
                      opts: EvalOptions) -> dict[str, tuple]:
    """``{image_id: (sims, idx)}`` for every distinct bench image; hands the backend its
    neighbours (``k`` = ``--retrieval-k``) and, for a backend that reads images, the images."""
    image_ids, sub, queries, key = _bench_queries(ds, metas, gallery, bench_fp, opts)
    sims, idx = gallery.search(queries, k)
    neighbours = {iid: (sims[j], idx[j]) for j, iid in enumerate(image_ids)}
    backend.prepare({i: (s[:opts.retrieval_k], x[:opts.retrieval_k]) for i, (s, x) in neighbours.items()})
    if backend.reads_images:
        name = backend.settings().get("ocr", {}).get("name", "reader")
        vocab = backend.settings().get("vocabulary", "")
        tag = hashlib.sha256(f"{name}|{vocab}|{gallery.fingerprint}".encode()).hexdigest()[:12]
        backend.read_images(sub, image_ids, queries, cache=gallery.cache_dir / f"ocr-bench-{key}-{tag}.json")
    return neighbours


def _parse(output: str | None, metrics) -> dict | None:
    if not output:
        return None
    try:
        return parse_answer(output, list(metrics))
    except ValueError:
        return None


class _Worker:
    """Builds requests and calls the backend for one batch of work items; never raises."""

    def __init__(self, backend, ds, metas, opts, gallery, neighbours):
        self.backend, self.ds, self.metas, self.opts = backend, ds, metas, opts
        self.gallery, self.neighbours = gallery, neighbours
        self.raw = undecoded(ds)  # images opened through hub/imageio.py's guard
        self._ds_lock = threading.Lock()

    def _request(self, item) -> Request:
        wording, i, question = item
        meta = self.metas[i]
        kind = question_kind(meta)
        key = meta["id"]
        if not self.backend.prompted:  # answers from the image id alone (the retrieval baseline)
            return Request(key, [], image_id=meta["image_id"], kind=kind, extra={"wording": wording, "index": i})
        with self._ds_lock:  # decoding one image; the Arrow table is shared
            image = row_image(self.raw, i, f"bench row {key} (image {meta['image_id']})")
        idx = self.neighbours[meta["image_id"]][1] if self.neighbours else None
        messages = strategies.build_messages(self.opts.strategy, image, question, prompts.question_type(kind),
                                             meta["subtask"], self.gallery, idx)
        return Request(key, messages, image_id=meta["image_id"], kind=kind, extra={"wording": wording, "index": i})

    def __call__(self, batch: list) -> list[tuple[int, dict]]:
        out, ready = [], []
        for item in batch:
            try:
                ready.append(self._request(item))
            except Exception as exc:  # a bad row (e.g. an unreadable image) fails alone
                out.append((item[0], self._record(item[1], None, 0.0, exc)))
        if ready:
            out.extend(self._call(ready))
        return out

    def _call(self, reqs: list[Request]) -> list[tuple[int, dict]]:
        t0 = time.perf_counter()
        try:
            texts = self.backend.generate(reqs)
            if len(texts) != len(reqs):
                raise RuntimeError(f"backend returned {len(texts)} answers for {len(reqs)} questions")
        except Exception as exc:
            if len(reqs) > 1:  # isolate the item that broke the batch
                return [r for req in reqs for r in self._call([req])]
            return [(reqs[0].extra["wording"], self._record(reqs[0].extra["index"], None,
                                                            time.perf_counter() - t0, exc))]
        dt = time.perf_counter() - t0
        return [(r.extra["wording"], self._record(r.extra["index"], t, dt, None)) for r, t in zip(reqs, texts)]

    def _record(self, i: int, text: str | None, dt: float, exc: Exception | None) -> dict:
        meta = self.metas[i]
        err = None if exc is None else f"{type(exc).__name__}: {exc}"[:2000]
        return {"id": meta["id"], "output": text, "parsed": _parse(text, meta["metrics"]) if text is not None else None,
                "latency_s": round(dt, 4), "error": err}


def _generate(worker: _Worker, items: list, logs: dict[int, PredictionLog], batch_size: int, concurrency: int,
              progress: bool) -> None:
    batches = [items[i:i + batch_size] for i in range(0, len(items), batch_size)]
    it = iter(batches)
    last_sync = time.monotonic()
    # One bad item is recorded and the run goes on; but when nothing has worked yet and the
    # first answers all fail (a wrong URL, a server that is down, a bad key), asking the other
    # thousands of questions only burns hours of retries. Stop and say so; what was recorded
    # stays, and a rerun asks the failed ids again.
    give_up_after = max(FAIL_FAST_AFTER, 4 * concurrency)
    failed_first, any_answer = 0, False
    with ThreadPoolExecutor(max_workers=concurrency) as pool, \
            tqdm(total=len(items), desc="answer", unit="q", disable=not progress) as bar:
        pending = set()

        def submit() -> None:
            batch = next(it, None)
            if batch is not None:
                pending.add(pool.submit(worker, batch))

        for _ in range(2 * concurrency):  # a bounded window: memory stays flat
            submit()
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                pending.discard(fut)
                for wording, rec in fut.result():
                    logs[wording].append(rec)
                    bar.update(1)
                    if rec["error"] is None:
                        any_answer = True
                    elif not any_answer:
                        failed_first += 1
                if not any_answer and failed_first >= give_up_after:
                    for other in pending:
                        other.cancel()
                    raise RunError(f"the first {failed_first} questions all failed and none was answered; "
                                   f"last error: {rec['error'].rstrip('.')}. Check the model spec, server URL and key; "
                                   "the failures are recorded and a rerun asks them again.")
                submit()
            if time.monotonic() - last_sync > 5:
                for log in logs.values():
                    log.sync()
                last_sync = time.monotonic()


def _avg_delta(base: dict, variants: list[dict]) -> dict:
    keys = list(labels.METRICS) + ["L1", "L2", "L3", "L4", "macro"]
    out = {}
    for k in keys:
        diffs = [v[k] - base[k] for v in variants if v.get(k) is not None and base.get(k) is not None]
        out[k] = sum(diffs) / len(diffs) if diffs else None
    return out


def _check_options(opts: EvalOptions, spec) -> None:
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
    backend = cls.create(spec, _backend_options(opts, gallery_source))
    gallery = None
    if needs_gallery:
        gallery = backend.gallery if backend.gallery is not None else Gallery(
            gallery_source, make_embedder(opts.embedder), cache_dir=opts.cache_dir, progress=opts.progress)
    return backend, gallery


def _pending(output: Path, metas: list[dict], ids: list[str], opts: EvalOptions):
    """``(logs, items, retried)``: one open :class:`PredictionLog` per wording, the
    ``(wording, row, question)`` items still to ask, and per wording how many ids are
    asked again after an error."""
    wordings = [_wordings(m, opts) for m in metas]
    n_wordings = 1 + opts.paraphrases
    logs = {w: PredictionLog(predictions_path(output, w)) for w in range(n_wordings)}
    retried = {w: len(set(ids) & log.errors()) for w, log in logs.items()}
    items = []
    for w in range(n_wordings):
        done = logs[w].done()
        for i, m in enumerate(metas):
            if m["id"] not in done and w < len(wordings[i]):
                items.append((w, i, wordings[i][w]))
    return logs, items, retried


def _answer_all(spec, worker: _Worker, items: list, logs: dict[int, PredictionLog], opts: EvalOptions,
                ids: list[str]) -> float:
    """Ask every item, then compact the logs to ``ids``; returns the generation seconds."""
    backend = worker.backend
    concurrency = max(1, opts.concurrency or backend.default_concurrency)
    batch_size = max(1, opts.batch_size or getattr(backend, "batch_size", 1))
    t_gen = time.time()
    try:
        _generate(worker, items, logs, batch_size, concurrency, opts.progress)
    except RunError as exc:
        raise RunError(f"{spec}: {exc}") from exc  # name the model and server that failed
    finally:
        for log in logs.values():
            log.close()
    gen_s = time.time() - t_gen
    for log in logs.values():
        log.compact(ids)
        log.close()
    return gen_s


def _run_warnings(records: dict, n_errors: dict, ids: list[str], previous: Path) -> list[str]:
    """Run-level warnings: unanswered and empty answers, a changed ``--limit``."""
    warnings = []
    if n_errors[0]:
        warnings.append(f"{n_errors[0]} of {len(ids)} questions have no answer (backend errors, see the 'error' field "
                        "of predictions.jsonl); they score 0. Rerun the same command to ask them again.")
    n_empty = sum(1 for r in records[0].values() if r and not r.get("error") and not (r.get("output") or "").strip())
    if n_empty:
        warnings.append(f"{n_empty} of {len(ids)} questions got an empty answer (a baseline gives none when it "
                        "abstains or the decided character's record lacks the field); they score 0")
    try:
        prev_rows = json.loads(previous.read_text("utf-8"))["bench"]["rows"] if previous.exists() else None
    except (ValueError, KeyError, TypeError):
        prev_rows = None
    if prev_rows is not None and prev_rows != len(ids):
        warnings.append(f"results.json scored {prev_rows} rows before and now scores {len(ids)} (--limit changed); "
                        "predictions.jsonl keeps every answer")
    return warnings


def _results_head(opts: EvalOptions, spec, backend, gallery, bench_fp: str, metas: list[dict], run: dict,
                  warnings: list[str], *, revision: str | None = None) -> dict:
    """results.json without the scores: model, bench (with the resolved ``revision`` and the
    content fingerprint), strategy, warnings, run, packages."""
    prompted = BACKENDS[spec.kind].prompted
    return {
        "format": RESULTS_FORMAT,
        "protocol": "per-question", "scoring": "jiezi",  # issue 13: see harness/eval/protocol_paper.py
        "model": {"spec": str(spec), **backend.settings()},
        "bench": {**bench_identity(opts.bench, revision), "config": opts.config, "split": opts.split,
                  "fingerprint": bench_fp, "rows": len(metas), "images": len({m["image_id"] for m in metas}),
                  "limit": opts.limit, "sample": opts.sample},
        "strategy": {"name": opts.strategy, "shots": strategies.SHOTS if opts.strategy != "zero-shot" else 0,
                     "retriever": gallery.describe() if (gallery is not None and prompted) else None},
        "prompt_version": prompts.PROMPT_VERSION if prompted else None,
        "warnings": warnings,
        "run": run,
        "packages": package_versions(),
    }


def _scoring_key(output: Path, n_wordings: int, ids: list[str], bert_record, opts: EvalOptions) -> str:
    """Digest of what the scores depend on: prediction files, rows, BERTScore model, judge."""
    return hashlib.sha256(json.dumps({
        "predictions": [hashlib.sha256(predictions_path(output, w).read_bytes()).hexdigest() for w in range(n_wordings)],
        "rows": ids, "bertscore": bert_record, "bertscore_on": opts.bertscore, "judge": opts.judge,
        "judge_env": [os.environ.get(k) for k in ("JIEZI_JUDGE_BASE_URL", "JIEZI_JUDGE_MODEL")],
    }, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _cached_scores(previous: Path, scoring_key: str) -> dict | None:
    """The earlier results.json when it was scored with ``scoring_key``, else None."""
    if not previous.exists():
        return None
    try:
        cached = json.loads(previous.read_text("utf-8"))
    except ValueError:
        return None
    return cached if cached.get("run", {}).get("scoring_key") == scoring_key else None


def _add_scores(results: dict, metas: list[dict], records: dict, n_errors: dict, settings, judge, bert_record,
                opts: EvalOptions, output: Path) -> None:
    """Score every wording into ``results`` (scores, breakdown, scorer, paraphrase)."""
    n_wordings = len(records)
    outputs = [{i: (r or {}).get("output") for i, r in records[w].items()} for w in range(n_wordings)]
    metas = [m for m in restrict_metrics(metas, opts.config) if m["metrics"]]  # the config's own fields only
    scores = score_rows(metas, outputs[0], settings, judge)
    results["scores"] = keep_config_fields({k: v for k, v in scores.items() if k not in ("breakdown", "settings")},
                                           opts.config)
    results["breakdown"] = keep_config_fields(scores.get("breakdown"), opts.config)
    results["scorer"] = {"settings": scores.get("settings"), "bertscore_model": bert_record}
    if n_wordings > 1:
        per = {"original": {m: scores.get(m) for m in (*labels.METRICS, "L1", "L2", "L3", "L4", "macro")}}
        variants = []
        for w in range(1, n_wordings):
            s = score_rows(metas, outputs[w], settings, judge)
            per[f"paraphrase_{w}"] = {m: s.get(m) for m in (*labels.METRICS, "L1", "L2", "L3", "L4", "macro")}
            per[f"paraphrase_{w}"]["errors"] = n_errors[w]
            variants.append(s)
        results["paraphrase"] = keep_config_fields({
            "source": opts.paraphrase_source, "wordings": n_wordings, "scores": per,
            "avg_delta": _avg_delta(scores, variants),
            "files": [predictions_path(output, w).name for w in range(n_wordings)]}, opts.config)


def _ask(opts: EvalOptions, spec, backend, gallery, ds, metas: list[dict], ids: list[str], bench_fp: str):
    """Check the run folder's identity, find neighbours, ask what is not answered yet.
    Returns ``(output, items, retried, records, n_errors, generation seconds)``."""
    output = Path(opts.output)
    output.mkdir(parents=True, exist_ok=True)
    _check_identity(output, _run_identity(opts, spec, bench_fp, _decoding_identity(backend.settings(), gallery)))
    neighbours = None
    if gallery is not None:
        neighbours = _bench_neighbours(backend, ds, metas, gallery, max(opts.retrieval_k, strategies.SHOTS * 4),
                                       bench_fp, opts)
    logs, items, retried = _pending(output, metas, ids, opts)
    worker = _Worker(backend, ds, metas, opts, gallery, neighbours if backend.prompted else None)
    gen_s = _answer_all(spec, worker, items, logs, opts, ids)
    if backend.reads_images:  # which component read each glyph, with its candidates
        atomic_write_json(output / "decisions.json", _jsonable(backend.decision_records()))
    records = {w: {i: logs[w].records.get(i) for i in ids} for w in logs}
    n_errors = {w: sum(1 for r in recs.values() if r is None or r.get("error")) for w, recs in records.items()}
    return output, items, retried, records, n_errors, gen_s


def evaluate(opts: EvalOptions) -> dict:
    """Run ``opts.model`` over the bench and write predictions and results (see module
    docstring). Returns the results dict (also written to ``OUTPUT/results.json`` unless
    ``opts.score`` is False). Raises :class:`RunError`, ``harness.bench.BenchError``,
    ``harness.eval.backends.ModelSpecError`` or ``harness.scoring.ScoringSetupError`` with a
    message naming the problem; a backend failure on one item is recorded, not raised.
    """
    t_start = time.time()
    spec = parse_model_spec(opts.model)
    _check_options(opts, spec)
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
    results = _results_head(opts, spec, backend, gallery, bench_fp, metas, run,
                            _run_warnings(records, n_errors, ids, previous), revision=revision)
    if not opts.score:
        results["run"]["wall_time_s"] = round(time.time() - t_start, 2)
        return results
    # A rerun that asked nothing new and scores the same files the same way reuses the scores.
    scoring_key = _scoring_key(output, len(records), ids, bert_record, opts)
    cached = _cached_scores(previous, scoring_key) if not items else None
    if cached is not None:
        cached["run"].update(questions_asked=0, answers_reused=reused, reused_scores=True,
                             wall_time_s=round(time.time() - t_start, 2))
        return cached
    results["run"]["scoring_key"] = scoring_key
    t_score = time.time()
    _add_scores(results, metas, records, n_errors, settings, judge, bert_record, opts, output)
    results["run"]["scoring_s"] = round(time.time() - t_score, 2)
    results["run"]["wall_time_s"] = round(time.time() - t_start, 2)
    results["run"]["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    atomic_write_json(output / "results.json", _jsonable(results))
    return results


def _jsonable(obj):
    """Plain JSON values (numpy scalars, sets and tuples converted)."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, Path):
        return str(obj)
    return obj


def options_dict(opts: EvalOptions) -> dict:
    """The options as plain JSON values."""
    return _jsonable(asdict(opts))
