"""Inputs of the Space tests: small JieZi-Bench / JieZi-Dataset folders in Hub layout,
glyph images as a visitor would upload them, and predictions files.

The folders are built by the real pipeline on the hand-built records of
``qa_fixtures`` (records -> QA pairs -> ``jiezi publish`` layout: parquet written by
``datasets``, images rendered with installed CJK fonts, README.md with YAML
``configs:``), so provenance spans are real source text. A bench of 16 questions per
subtask keeps the gallery at a few dozen images.
"""

from __future__ import annotations

import io
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from qa_fixtures import build_fixture

FONT = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"


def build_space_data(sources_dir: Path, root: Path) -> tuple[Path, Path]:
    """Build ``root/jiezi-bench`` and ``root/jiezi-dataset``; returns both paths."""
    build_fixture(sources_dir, root, bench_size=16)
    return root / "jiezi-bench", root / "jiezi-dataset"


def glyph(character: str, *, size: int = 160, transparent: bool = True, ink=(0, 0, 0)) -> Image.Image:
    """``character`` drawn in Noto Sans CJK; on a fully transparent ground (RGBA) when
    ``transparent``, else on white (RGB)."""
    mode, ground = ("RGBA", (0, 0, 0, 0)) if transparent else ("RGB", (255, 255, 255))
    img = Image.new(mode, (size, size), ground)
    face = ImageFont.truetype(FONT, int(size * 0.8))
    fill = (*ink, 255) if transparent else ink
    ImageDraw.Draw(img).text((size // 2, size // 2), character, font=face, fill=fill, anchor="mm")
    return img


def encode(image: Image.Image, fmt: str) -> bytes:
    """``image`` encoded as PNG, JPEG (converted to RGB) or WEBP (lossless, alpha kept)."""
    buf = io.BytesIO()
    if fmt.upper() == "JPEG":
        image.convert("RGB").save(buf, format="JPEG", quality=95)
    elif fmt.upper() == "WEBP":
        image.save(buf, format="WEBP", lossless=True)
    else:
        image.save(buf, format=fmt.upper())
    return buf.getvalue()


def run_retrieval_eval(bench: Path, out: Path) -> Path:
    """``jiezi eval --model retrieval`` over the whole bench (BERTScore off: only the
    predictions are needed); returns the predictions.jsonl path."""
    from typer.testing import CliRunner

    from jiezi_cli import app

    res = CliRunner().invoke(app, ["eval", "--model", "retrieval", "--bench", str(bench), "--output", str(out),
                                   "--no-bertscore", "--no-progress", "--cache-dir", str(out / "embedding-cache")])
    assert res.exit_code == 0, res.output
    path = out / "predictions.jsonl"
    assert path.exists(), res.output
    return path


def incomplete_predictions(predictions: Path, keep: int = 3) -> bytes:
    """The first ``keep`` lines of a predictions file: valid JSON, but most bench ids missing."""
    lines = predictions.read_text("utf-8").splitlines()[:keep]
    return ("\n".join(lines) + "\n").encode("utf-8")


def bench_ids(predictions: Path) -> list[str]:
    """The ids of a predictions file, in order."""
    return [json.loads(line)["id"] for line in predictions.read_text("utf-8").splitlines() if line.strip()]


class ChatCompletions(BaseHTTPRequestHandler):
    """A loopback OpenAI-compatible ``/v1/chat/completions`` endpoint standing in for a
    vLLM or SGLang server: it decodes nothing but checks that each request carries one
    image, and answers by the question's subject (the last line of the user text)."""

    # the first subject found in the question wins: 演变 before 书体 (an evolution question names scripts)
    answers = {"演变": "篆书从水工声，隶变后水旁作氵。", "字头": "江", "书体": "楷书", "结构": "⿰（左右结构）", "构件": "1. 构件「氵」：功能=表意；演变类型=保留；解释=水",
               "六书": "形声", "本义": "水名，长江", "意义": "水名，长江"}

    def do_POST(self):  # noqa: N802 (http.server API)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        user = body["messages"][-1]["content"]
        text = "".join(p.get("text", "") for p in user if p["type"] == "text")
        if sum(p["type"] == "image_url" for p in user) != 1:
            self.send_response(400)
            self.end_headers()
            return
        answer = next((a for k, a in self.answers.items() if k in text.split("\n")[-1]), "不知道")
        out = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                          "choices": [{"index": 0, "finish_reason": "stop",
                                       "message": {"role": "assistant", "content": answer}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


def serve_chat() -> tuple[ThreadingHTTPServer, str]:
    """Start :class:`ChatCompletions` on a free 127.0.0.1 port; returns (server, base URL
    ending in ``/v1``). Stop it with ``server.shutdown()``."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), ChatCompletions)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/v1"
