"""``jiezi eval --protocol paper``: the JieZi paper's protocol (issue 13).

One request per bench image asking for one JSON object with the eight official fields
(``harness.prompts.PAPER_PROMPT``, this project's wording; ``--prompt-file`` sends a text
the user holds instead), then ``metrics.acce.paper.score_paper`` in both modes: the
headline ``scores`` reproduce the authors' scorer (``scoring: reference``), ``scores_jiezi``
read the same replies with this project's scorer. Every backend works: ``openai:`` and
``hf:`` get the image and the prompt; the ``retrieval`` baseline composes the same JSON from
its neighbours' records.

Benches: a JieZi-Bench Hub folder or id (its ``images`` config, or, for a bench published
before that config existed, its per-question rows folded by image), or a folder in the
authors' runner layout (``harness.interop.official``). Outputs in ``--output``: ``run.json`` (the
run's identity; a different run in the same folder is refused), ``predictions.jsonl`` (one
line per image: ``id`` = image id, ``output`` = raw reply, ``error``; resumable like the
per-question protocol) and ``results.json`` (format ``jiezi-eval-results/1`` with
``protocol: "paper"``, ``scoring: "reference"``).
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import datasets

from harness import prompts
from harness.baselines.gallery import embed_images
from harness.bench import (
    BenchError,
    bench_identity,
    default_gallery,
    fingerprint,
    load_bench,
    resolve_revision,
    row_image,
    undecoded,
)
from harness.eval.backends import BACKENDS
from harness.eval.backends.base import BackendOptions, Request, parse_model_spec
from harness.eval.predlog import PredictionLog, check_run_identity
from harness.eval.sampling import stratified_sample
from harness.interop.official import is_official_bench, read_official_bench
from harness.scoring import make_judge, package_versions, scorer_settings
from hub.runfiles import RESULTS_FORMAT, write_results
from hub.read import load_hub_layout
from metrics.acce.labels import EARLY_FORM_SCRIPTS
from metrics.acce.paper import official_reference, score_paper

PROTOCOLS = ("per-question", "paper")
IMAGE_COLUMNS = ("image", "image_id", "character", "script", "reference", "unseen_character", "unseen_glyph")
FAIL_FAST_AFTER = 20  # first replies all failing: stop (wrong URL, server down)


def load_paper_images(bench: str | Path, split: str = "test", limit: int | None = None, *,
                      revision: str | None = None, seed: int = 0) -> tuple[datasets.Dataset, dict]:
    """One row per bench image (``IMAGE_COLUMNS``; ``reference`` is JSON text in the eight
    official field names) and a record of where it came from (``layout``, ``problems``).

    ``revision``: the commit of a Hub repo-id bench to read (resolve a branch or tag first
    with ``harness.bench.resolve_revision`` so every read is pinned); None for a folder.
    Raises ``harness.bench.BenchError`` when the bench cannot be read."""
    if is_official_bench(bench):
        rows, problems = read_official_bench(bench)
        if not rows:
            raise BenchError(f"{bench}: no readable image in the official layout ({problems[:1]})")
        ds = datasets.Dataset.from_dict({
            "image": [r["image_path"] for r in rows], "image_id": [r["image_id"] for r in rows],
            "character": [r["character"] for r in rows], "script": [r["script"] for r in rows],
            "reference": [json.dumps(r["reference"], ensure_ascii=False) for r in rows],
            "unseen_character": [False] * len(rows), "unseen_glyph": [False] * len(rows),
        }).cast_column("image", datasets.Image())
        info = {"layout": "official", "problems": problems}
    else:
        ds, info = _hub_images(bench, split, revision)
    if limit is not None and limit < len(ds):  # a seeded draw over the scripts, not the first N images
        metas = [{"id": i, "script": sc} for i, sc in zip(ds["image_id"], ds["script"])]
        keep, info["sample"] = stratified_sample(metas, limit, seed, keys=("script",))
        ds = ds.select(keep)
    return ds, info


def _hub_images(bench: str | Path, split: str, revision: str | None = None) -> tuple[datasets.Dataset, dict]:
    try:
        ds = load_hub_layout(bench, "images", split, revision=revision)
        if all(c in ds.column_names for c in IMAGE_COLUMNS):
            return ds.select_columns(list(IMAGE_COLUMNS)), {"layout": "hub:images", "problems": []}
    except Exception:  # a bench without the images config: fold its question rows
        pass
    rows = load_bench(bench, "all", split, revision=revision)
    metas = rows.select_columns(["image_id", "answer_struct"]).to_list()
    first: dict[str, int] = {}
    structs: dict[str, list] = {}
    for i, m in enumerate(metas):
        first.setdefault(m["image_id"], i)
        structs.setdefault(m["image_id"], []).append(m["answer_struct"])
    ds = rows.select(list(first.values())).select_columns([c for c in IMAGE_COLUMNS if c != "reference"])
    refs = [json.dumps(official_reference(structs[iid]), ensure_ascii=False) for iid in first]
    return ds.add_column("reference", refs), {"layout": "hub:questions folded by image", "problems": []}


def _bench_identity(bench: str | Path, revision: str | None, layout: str) -> dict:
    """``harness.bench.bench_identity`` (source, the resolved ``revision``, the content
    fingerprint of a Hub-layout folder); a folder in the authors' layout has no parquet
    files to fingerprint: its image rows' fingerprint (results ``bench.fingerprint``) pins it."""
    if layout == "official":
        return {"source": str(bench), "revision": None, "content_fingerprint": None}
    return bench_identity(bench, revision)


def paper_messages(image, text: str, *, system: bool) -> list[dict]:
    """Chat messages of one paper-protocol request: the system prompt (unless the user's own
    prompt file is used) and one user turn with the image and ``text``."""
    user = {"role": "user", "content": [{"type": "image", "image": image}, {"type": "text", "text": text}]}
    if not system:
        return [user]
    return [{"role": "system", "content": [{"type": "text", "text": prompts.SYSTEM_PROMPT}]}, user]




def compose_retrieval_json(baseline, sims, idx) -> str:
    """The retrieval baseline's eight-field JSON for one image, for ONE character: the
    baseline decides the character and its script first (:meth:`RetrievalBaseline.decide`,
    abstaining below its calibrated confidence: every field then stays empty), then every
    field comes from that character's records (:meth:`RetrievalBaseline.character_facts`);
    a field they lack stays empty, never borrowed from a neighbour. An early form (甲骨文,
    金文) gets no structure, formation or components: no source analyses that form."""
    out: dict = {"现代字典字头": "", "字形": "", "造字法": [], "结构": "", "特殊结构": "",
                 "构件": {}, "本义": "", "历代字形演变": ""}
    if len(idx) == 0:
        return json.dumps(out, ensure_ascii=False)
    d = baseline.decide(sims, idx, count=True)
    if d.abstained:
        return json.dumps(out, ensure_ascii=False)
    f = baseline.character_facts(d.character, d.script, d.rows)
    out.update({"现代字典字头": d.character, "字形": d.script, "本义": f.get("original_meaning") or "",
                "历代字形演变": f.get("evolution") or ""})
    # the bench asks an early form no L2 question: no answer from the modern records
    if d.script not in EARLY_FORM_SCRIPTS:
        out["结构"] = f.get("structure") or ""
        out["造字法"] = [f"{x}字" for x in f.get("formation") or []]
        out["构件"] = {c["name"]: {"功能": list(c.get("functions") or []), "演变类型": c.get("evolution_type") or "",
                                  "解释": c.get("interpretation") or ""} for c in f.get("components") or []}
    return json.dumps(out, ensure_ascii=False)


class _Answerer:
    """Answers image rows with one backend (never raises: a failure is recorded)."""

    def __init__(self, opts, spec, ds: datasets.Dataset, prompt: str, own_prompt: bool):
        self.opts, self.spec, self.ds, self.prompt, self.own_prompt = opts, spec, ds, prompt, own_prompt
        self.backend = self._backend()
        self.composed: dict[int, str] = {}
        self._ds_lock = threading.Lock()
        self._ids = ds["image_id"]
        self.raw = undecoded(ds)  # images opened through hub/imageio.py's guard
        if not BACKENDS[spec.kind].prompted:
            self._compose_all()

    def _backend(self):
        """The registered backend of the spec (``harness.eval.backends.BACKENDS``); one that answers
        without a prompt (the retrieval baseline) must compose the JSON from its ``baseline``."""
        o = self.opts
        cls = BACKENDS[self.spec.kind]
        if cls.reads_images:
            raise ValueError(f"backend {self.spec.kind!r} is a per-question baseline; --protocol paper composes the "
                             "eight-field JSON from the retrieval baseline only (use --model retrieval)")
        gallery = (o.gallery or default_gallery(o.bench)) if cls.needs_gallery else None
        backend = cls.create(self.spec, BackendOptions(
            max_new_tokens=o.max_new_tokens, temperature=o.temperature, timeout=o.timeout, max_retries=o.max_retries,
            device=o.device, dtype=o.dtype, batch_size=o.batch_size, gallery=gallery, retrieval_k=o.retrieval_k,
            retrieval_temperature=o.retrieval_temperature, embedder=o.embedder, cache_dir=o.cache_dir,
            progress=o.progress, thinking=getattr(o, "thinking", None), thinking_budget=getattr(o, "thinking_budget", None)))
        if not cls.prompted and not hasattr(backend, "baseline"):
            raise ValueError(f"backend {self.spec.kind!r} answers without a prompt and has no baseline to compose "
                             "the eight-field JSON from; --protocol paper cannot use it")
        return backend

    def _compose_all(self) -> None:
        baseline = self.backend.baseline
        key = hashlib.sha256("\n".join(self.ds["image_id"]).encode()).hexdigest()[:20]
        cache = baseline.gallery.cache_dir / f"paper-{key}-{baseline.gallery.embedder.name}.npy"
        queries = embed_images(self.ds, "image", baseline.gallery.embedder, cache=cache, progress=self.opts.progress,
                               desc="embed bench images")
        sims, idx = baseline.gallery.search(queries, self.opts.retrieval_k)
        for i in range(len(self.ds)):
            self.composed[i] = compose_retrieval_json(baseline, sims[i], idx[i])

    def __call__(self, batch: list[int]) -> list[dict]:
        t0 = time.perf_counter()
        try:
            if self.composed:
                texts = [self.composed[i] for i in batch]
            else:
                with self._ds_lock:  # decoding images; the Arrow table is shared between threads
                    images = [row_image(self.raw, i, f"image {self._ids[i]}") for i in batch]
                reqs = [Request(self._ids[i], paper_messages(im, self.prompt, system=not self.own_prompt))
                        for i, im in zip(batch, images)]
                texts = self.backend.generate(reqs)
                if len(texts) != len(reqs):
                    raise RuntimeError(f"backend returned {len(texts)} replies for {len(reqs)} requests")
        except Exception as exc:
            if len(batch) > 1:  # isolate the image that broke the batch
                return [r for i in batch for r in self([i])]
            return [self._record(batch[0], None, time.perf_counter() - t0, exc)]
        dt = time.perf_counter() - t0
        return [self._record(i, t, dt, None) for i, t in zip(batch, texts)]

    def _record(self, i: int, text: str | None, dt: float, exc: Exception | None) -> dict:
        err = None if exc is None else f"{type(exc).__name__}: {exc}"[:2000]
        return {"id": self._ids[i], "output": text, "parsed": None, "latency_s": round(dt, 4), "error": err}


def _check_identity(output: Path, identity: dict) -> None:
    check_run_identity(output, identity, RuntimeError)


def _answer_all(answerer: _Answerer, todo: list[int], log: PredictionLog, concurrency: int, batch: int,
                progress: bool) -> None:
    """Ask every image in ``todo``; records are appended as they arrive. Raises
    ``RuntimeError`` when the first ``FAIL_FAST_AFTER`` replies all failed."""
    from tqdm.auto import tqdm

    batches = [todo[k:k + batch] for k in range(0, len(todo), batch)]
    failed_first, any_reply = 0, False
    with ThreadPoolExecutor(max_workers=concurrency) as pool, \
            tqdm(total=len(todo), desc="answer (paper)", unit="image", disable=not progress) as bar:
        for records in pool.map(answerer, batches):
            for rec in records:
                log.append(rec)
                bar.update(1)
                any_reply = any_reply or rec["error"] is None
                failed_first += rec["error"] is not None and not any_reply
            if not any_reply and failed_first >= max(FAIL_FAST_AFTER, 4 * concurrency):
                pool.shutdown(wait=False, cancel_futures=True)
                raise RuntimeError(f"the first {failed_first} images all failed; last error: {rec['error']}. "
                                   "Check the model spec, server URL and key; a rerun asks them again.")


def _scores(replies: list, references: list, settings, judge) -> dict:
    both = {}
    for mode in ("reference", "jiezi"):
        res = score_paper(replies, references, mode=mode, settings=settings, judge=judge)
        both[mode] = res
    return both


def evaluate_paper(opts, prompt_file: str | Path | None = None) -> dict:
    """Run ``opts.model`` (a ``harness.eval.options.EvalOptions``) over the bench under the paper's
    protocol and write ``run.json``, ``predictions.jsonl`` and ``results.json`` (module doc).

    Returns the results dict. ``opts.strategy`` and ``opts.paraphrases`` must be the
    defaults (the paper's protocol has one fixed request). ``opts.revision`` pins a Hub
    repo-id bench to one commit (``harness.bench.resolve_revision``), read for every image
    and recorded in results.json ``bench.revision`` and run.json. Raises ``RuntimeError`` /
    ``harness.bench.BenchError`` / ``ValueError`` with the cause; one failed image is
    recorded and counted as a failure, not raised.
    """
    t_start = time.time()
    if opts.strategy != "zero-shot" or opts.paraphrases:
        raise ValueError("--protocol paper sends one fixed request per image: --strategy and --paraphrases do not apply")
    spec = parse_model_spec(opts.model)
    prompt, prompt_record = prompts.paper_prompt(prompt_file)
    # one commit for every read of this run; a folder (Hub or the authors' layout) has none
    revision = resolve_revision(opts.bench, opts.revision)
    ds, bench_info = load_paper_images(opts.bench, opts.split, opts.limit, revision=revision,
                                       seed=getattr(opts, "seed", 0))
    bench_info["identity"] = _bench_identity(opts.bench, revision, bench_info["layout"])
    bench_fp = fingerprint(ds)
    ids = ds["image_id"]
    if len(set(ids)) != len(ids):
        raise BenchError(f"bench {opts.bench}: duplicate image ids")
    settings, bert_record = scorer_settings(opts.bertscore_model, bertscore=opts.bertscore, progress=opts.progress)
    judge = make_judge(opts.judge)
    output = Path(opts.output)
    output.mkdir(parents=True, exist_ok=True)
    answerer = _Answerer(opts, spec, ds, prompt, prompt_file is not None)
    prompted = BACKENDS[spec.kind].prompted
    _check_identity(output, {"protocol": "paper", "model": f"{spec.kind}:{spec.name}", "bench_fingerprint": bench_fp,
                             **({"bench_revision": revision} if revision else {}),
                             "split": opts.split, "prompt": prompt_record if prompted else None,
                             "max_new_tokens": opts.max_new_tokens, "temperature": opts.temperature,
                             **({"thinking": [opts.thinking, opts.thinking_budget]}
                                if getattr(opts, "thinking", None) or getattr(opts, "thinking_budget", None) else {})})
    log = PredictionLog(output / "predictions.jsonl")
    done = log.done()
    todo = [i for i, iid in enumerate(ids) if iid not in done]
    t_gen = time.time()
    try:
        concurrency = max(1, opts.concurrency or answerer.backend.default_concurrency)
        batch = max(1, opts.batch_size or getattr(answerer.backend, "batch_size", 1))
        _answer_all(answerer, todo, log, concurrency, batch, opts.progress)
    finally:
        log.close()
    gen_s = time.time() - t_gen
    log.compact(ids)
    log.close()
    replies = [(log.records.get(i) or {}).get("output") for i in ids]
    errors = sum(1 for i in ids if (log.records.get(i) or {}).get("error"))
    if errors == len(ids):
        raise RuntimeError(f"{spec}: all {len(ids)} images failed, nothing to score")
    t_score = time.time()
    both = _scores(replies, [json.loads(r) for r in ds["reference"]], settings, judge)
    results = _results(opts, spec, answerer, bench_info, bench_fp, ds, prompt_record, both, bert_record)
    results["run"] = {"requests": len(todo), "replies_reused": len(ids) - len(todo), "errors": errors,
                      "generation_s": round(gen_s, 2), "scoring_s": round(time.time() - t_score, 2),
                      "wall_time_s": round(time.time() - t_start, 2),
                      "command": " ".join(sys.argv) if sys.argv else None}
    write_results(output / "results.json", results)
    return results


def _results(opts, spec, answerer, bench_info, bench_fp, ds, prompt_record, both, bert_record) -> dict:
    ids = ds["image_id"]
    items = [{"id": iid, "reference": both["reference"]["per_item"][k], "jiezi": both["jiezi"]["per_item"][k]}
             for k, iid in enumerate(ids)]
    return {
        "format": RESULTS_FORMAT, "protocol": "paper", "scoring": "reference",
        "model": {"spec": str(spec), **answerer.backend.settings()},
        "bench": {**bench_info["identity"], "layout": bench_info["layout"], "split": opts.split,
                  "fingerprint": bench_fp, "images": len(ids), "rows": len(ids), "limit": opts.limit,
                  "sample": bench_info.get("sample"), "problems": bench_info["problems"]},
        "prompt": prompt_record if BACKENDS[spec.kind].prompted else None,
        "scores": {k: v for k, v in both["reference"].items() if k not in ("per_item", "settings")},
        "scores_jiezi": {k: v for k, v in both["jiezi"].items() if k not in ("per_item", "settings")},
        "scorer": {"reference": both["reference"]["settings"], "jiezi": both["jiezi"]["settings"],
                   "bertscore_model": bert_record},
        "items": items,
        "warnings": [f"{len(bench_info['problems'])} bench image(s) unreadable and left out"]
        if bench_info["problems"] else [],
        "packages": package_versions(),
    }


def print_paper_results(results: dict, output: Path) -> None:
    """Print the paper-protocol scores of both modes (0-100; success mean / with failures)."""
    from metrics.acce.paper import PAPER_METRICS

    counts = results["scores"]["counts"]
    print(f"protocol paper: {results['bench']['images']} images, {counts['failures']} replies without JSON, "
          f"{results['run']['errors']} request errors; results in {Path(output) / 'results.json'}")
    print(f"{'metric':<14}{'reference':>22}{'jiezi':>22}")
    for metric in PAPER_METRICS:
        cells = []
        for key in ("scores", "scores_jiezi"):
            v = results[key][metric]
            cells.append("n/a" if v["success_mean"] is None else f"{v['success_mean']:.1f} / {v['with_failures']:.1f}")
        print(f"{metric:<14}{cells[0]:>22}{cells[1]:>22}")
