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
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from openai_server import Call, OpenAIServer, Reply
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


# the first subject found in the question's last line wins: 构件 and 演变 first (the component
# question names 演变类型, the evolution question names the scripts)
CHAT_ANSWERS = {"构件": "1. 构件「氵」：功能=表意；演变类型=保留；解释=水", "演变": "篆书从水工声，隶变后水旁作氵。",
                "字头": "江", "书体": "楷书", "结构": "⿰（左右结构）", "六书": "形声", "本义": "水名，长江",
                "意义": "水名，长江"}


def serve_chat(fail: tuple[str, ...] = ()) -> OpenAIServer:
    """The fake OpenAI server (``tests/openai_server.py``) standing in for a vLLM or SGLang
    server: it decodes nothing but checks that each request carries one image (else HTTP
    400), and answers by the question's subject (the last line of the user text); a question
    holding a word of ``fail`` gets HTTP 500. Started; stop it with ``close()``."""

    def respond(call: Call) -> str | Reply:
        text = "".join(call.texts)
        if len(call.image_bytes) != 1:
            return Reply("expected one image", status=400)
        if any(word in text for word in fail):
            return Reply("server exploded", status=500)
        return next((a for k, a in CHAT_ANSWERS.items() if k in text.split("\n")[-1]), "不知道")

    return OpenAIServer(respond=respond)
