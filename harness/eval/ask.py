"""Asking the questions of a ``jiezi eval`` run: the wordings of each row (the bench's own and
the paraphrases), the gallery neighbours of the bench images, the worker that turns bench rows
into backend requests and records every answer, and the bounded-concurrency loop that appends
each record to the run's :class:`~harness.eval.predlog.PredictionLog` as it arrives.

A prediction record is a ``predictions.jsonl`` row (``hub.runfiles``): ``id``, ``output``
(None when the call failed), ``parsed``, ``latency_s``, ``error``.
"""

from __future__ import annotations

import hashlib
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path

from tqdm.auto import tqdm

from harness import prompts
from harness.baselines.gallery import embed_images
from harness.bench import question_kind, row_image, undecoded
from harness.eval import strategies
from harness.eval.backends.base import Request
from harness.eval.options import EvalOptions, RunError
from harness.eval.predlog import PredictionLog
from hub import templates as qa_templates
from metrics.acce.core import parse_answer

# With no answer yet, this many failures in a row (or 4 x the concurrency, if more) end the run.
FAIL_FAST_AFTER = 20


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


def bench_neighbours(backend, ds, metas: list[dict], gallery, k: int, bench_fp: str,
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


class Worker:
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


def _generate(worker: Worker, items: list, logs: dict[int, PredictionLog], batch_size: int, concurrency: int,
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


def pending(output: Path, metas: list[dict], ids: list[str], opts: EvalOptions):
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


def answer_all(spec, worker: Worker, items: list, logs: dict[int, PredictionLog], opts: EvalOptions,
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
