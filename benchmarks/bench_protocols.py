"""Cost of a full-bench run under both protocols (issue 13): requests, prompt + completion
tokens and wall time, against a loopback OpenAI-compatible server.

The server answers every request with the bench's own reference (the per-question answer
text, or the image's eight-field reference JSON for a paper-protocol request), so both runs
are complete and realistic in length, and the scores printed beside the costs are the
ceiling of each protocol. Tokens are counted by the server: one token per character of
text (Chinese text is about one token per character in current tokenizers) plus
``--image-tokens`` per image; the counts compare the two protocols, they are not any one
model's bill.

    python benchmarks/bench_protocols.py --bench out/jiezi-bench [--limit-images N]

Prints one line per protocol; expected on the full default bench: about 1,024 requests
(paper) vs 7,996 (per question).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the fake OpenAI server
from harness.bench import load_bench
from harness.eval.backends.base import image_data_url
from harness.eval.protocol_paper import evaluate_paper, load_paper_images
from harness.eval.options import EvalOptions
from harness.eval.run import evaluate
from harness.prompts import PAPER_PROMPT
from openai_server import Call, OpenAIServer


class Counter:
    """Requests and token counts seen by the server (thread-safe)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.requests = self.prompt_tokens = self.completion_tokens = 0

    def add(self, prompt: int, completion: int) -> None:
        with self.lock:
            self.requests += 1
            self.prompt_tokens += prompt
            self.completion_tokens += completion

    def reset(self) -> None:
        with self.lock:
            self.requests = self.prompt_tokens = self.completion_tokens = 0


def start_server(answers: dict[str, list[tuple[str, str]]], paper: dict[str, str], counter: Counter,
                 image_tokens: int) -> OpenAIServer:
    """The tests' fake OpenAI server (``tests/openai_server.py``) on 127.0.0.1:
    ``answers[image sha]`` = [(question, answer)], ``paper[image sha]`` = reference JSON;
    tokens counted into ``counter``. Started; stop it with ``close()``."""

    def respond(call: Call) -> str:
        texts = [p.get("text", "") for p in call.parts() if p.get("type") == "text"]
        user, shas = (texts[-1] if texts else ""), call.image_hashes
        sha = shas[0] if shas else ""
        if PAPER_PROMPT in user:
            reply = paper.get(sha, "{}")
        else:
            reply = next((a for q, a in answers.get(sha, []) if q in user), "")
        counter.add(sum(len(t) for t in texts) + image_tokens * len(shas), len(reply))
        return reply

    return OpenAIServer(respond=respond)


def reference_tables(bench: str, limit_images: int | None):
    """Server lookup tables and the per-question row limit covering the first images."""
    rows = load_bench(bench, "all", "test")
    images, _ = load_paper_images(bench, "test", limit_images)
    keep = set(images["image_id"])
    sha_of: dict[str, str] = {}
    for r in images:
        sha_of[r["image_id"]] = hashlib.sha256(base64.b64decode(image_data_url(r["image"]).split(",", 1)[1])).hexdigest()
    paper = {sha_of[r["image_id"]]: r["reference"] for r in images.select_columns(["image_id", "reference"])}
    answers: dict[str, list] = {}
    n_rows = 0
    for i, r in enumerate(rows.select_columns(["image_id", "question", "answer"])):
        if r["image_id"] not in keep:
            break  # the bench's rows of one image are consecutive
        answers.setdefault(sha_of[r["image_id"]], []).append((r["question"], r["answer"]))
        n_rows = i + 1
    return answers, paper, n_rows, len(images)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", required=True, help="JieZi-Bench folder (Hub layout)")
    ap.add_argument("--limit-images", type=int, default=None, help="only the first N images (default: all)")
    ap.add_argument("--image-tokens", type=int, default=256, help="tokens counted per image")
    ap.add_argument("--concurrency", type=int, default=8)
    args = ap.parse_args(argv)
    answers, paper, n_rows, n_images = reference_tables(args.bench, args.limit_images)
    counter = Counter()
    server = start_server(answers, paper, counter, args.image_tokens)
    url = server.url
    model = f"openai:loopback-reference@{url}"
    print(f"bench {args.bench}: {n_images} images, {n_rows} questions; {args.image_tokens} tokens per image")
    print(f"{'protocol':<14}{'requests':>10}{'prompt tok':>14}{'completion tok':>16}{'wall s':>9}  scores (CHAR / COMR)")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for protocol in ("paper", "per-question"):
                counter.reset()
                opts = EvalOptions(model=model, bench=args.bench, output=Path(tmp) / protocol, progress=False,
                                   bertscore=False, concurrency=args.concurrency, max_retries=0,
                                   limit=args.limit_images if protocol == "paper" else n_rows)
                t0 = time.perf_counter()
                res = evaluate_paper(opts) if protocol == "paper" else evaluate(opts)
                wall = time.perf_counter() - t0
                scores = res["scores"]
                char = scores["CHAR"]["with_failures"] if protocol == "paper" else scores["CHAR"]
                comr = scores["COMR"]["with_failures"] if protocol == "paper" else scores["COMR"]
                print(f"{protocol:<14}{counter.requests:>10,}{counter.prompt_tokens:>14,}{counter.completion_tokens:>16,}"
                      f"{wall:>9.1f}  {char:.1f} / {comr:.1f}")
    finally:
        server.close()


if __name__ == "__main__":
    main()
