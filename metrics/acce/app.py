"""Gradio app of the ``jiezi/acce`` Space: score ACCE answers in the browser.

``evaluate.utils.launch_gradio_widget`` builds its form with ``gr.inputs``, which Gradio 4+
removed, so this is a Gradio 6 ``Blocks`` app instead. It loads the metric from its own
folder (``evaluate.load(<this folder>/acce.py)``), so the same file runs on the Space, where
the folder is the repository root, and in a checkout (``python metrics/acce/app.py``).

Tabs: a table of (prediction, reference, subtasks) rows; a JSONL upload of harness or bench
rows; the structured reading of one answer (``parse_answer``).
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import re
from pathlib import Path

import gradio as gr

HERE = Path(__file__).resolve().parent

EXAMPLES = [
    ["江", '{"character": "江"}', "CHAR"],
    ["该字形属于小篆。", '{"script": "篆书"}', "SCRC"],
    ["左右结构（⿰）", '{"structure": "⿰"}', "STRC"],
    ["形聲字，从水，工声。", '{"formation": ["形声"], "yisheng": false}', "FORC"],
    ["1. 构件氵：功能=表意；演变类型=保留；解释=象水流之形。；2. 构件工：功能=表音；演变类型=保留；解释=表示读音。",
     '{"components": [{"name": "水", "functions": ["表意"], "interpretation": "象水流之形", "evolution_type": "保留"},'
     ' {"name": "工", "functions": ["表音"], "interpretation": "声符", "evolution_type": "保留"}]}',
     "COMR,COMF,COMI,COME"],
    ["本义为长江。", '{"original_meaning": "长江"}', "ORIM"],
]
SUBTASK_CHOICES = ["CHAR", "SCRC", "STRC", "COMR", "FORC", "ORIM", "EVOI"]


@functools.lru_cache(maxsize=1)
def load_metric():
    """The ACCE metric loaded by evaluate from this folder (cached).

    Loaded by the script's path: evaluate resolves a folder ``X`` to ``X/X.py``, and a Space
    checkout folder is not named ``acce`` (it is often ``app``, which would pick this file).
    """
    import evaluate

    return evaluate.load(str(HERE / "acce.py"))


def _module():
    return importlib.import_module(type(load_metric()).__module__)


def _judge_options(base_url: str, model: str, api_key: str) -> dict:
    if base_url and model:
        return {"judge_base_url": base_url.strip(), "judge_model": model.strip(), "judge_api_key": api_key or None}
    return {}


def _subtasks(cell: object) -> list[str]:
    text = str(cell or "").strip()
    if text.startswith("["):
        return [str(x) for x in json.loads(text)]
    return [p for p in re.split(r"[,\s;]+", text) if p]


def score_rows(rows: list[dict], use_bertscore: bool, bert_model: str, base_url: str, judge_model: str,
               api_key: str) -> dict:
    """Score rows ``{"prediction", "reference", "subtasks", ["id", "script", "splits"]}``."""
    if not rows:
        raise gr.Error("No rows to score.")
    scripts = [r.get("script") for r in rows]
    splits = [r.get("splits") for r in rows]
    return load_metric().compute(
        predictions=[r.get("prediction") or "" for r in rows],
        references=[r.get("reference") or "" for r in rows],
        subtasks=[r["subtasks"] for r in rows],
        ids=[str(r.get("id", i)) for i, r in enumerate(rows)],
        scripts=scripts if all(scripts) else None,
        splits=[s or [] for s in splits] if any(splits) else None,
        bertscore=bool(use_bertscore),
        bertscore_model=(bert_model or None),
        progress=False,
        **_judge_options(base_url, judge_model, api_key),
    )


def score_table(table, use_bertscore, bert_model, base_url, judge_model, api_key) -> dict:
    """Score the rows of the table tab (empty rows are ignored)."""
    values = table.values.tolist() if hasattr(table, "values") else list(table or [])
    rows = []
    for i, row in enumerate(values):
        pred, ref, subs = (list(row) + ["", "", ""])[:3]
        if not str(subs or "").strip():
            continue
        try:
            rows.append({"id": str(i), "prediction": pred, "reference": ref, "subtasks": _subtasks(subs)})
        except ValueError as exc:
            raise gr.Error(f"row {i}: subtasks {subs!r} is not a code list ({exc})") from exc
    return score_rows(rows, use_bertscore, bert_model, base_url, judge_model, api_key)


def read_jsonl(path: str) -> list[dict]:
    """Rows of a JSONL file of predictions: ``prediction`` plus the bench's ``answer_struct`` or
    ``answer`` (or ``reference``), ``metrics`` or ``subtask`` (or ``subtasks``), and optionally
    ``id``, ``script``, ``splits`` or the bench's ``unseen_character`` / ``unseen_glyph`` flags."""
    rows = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except ValueError as exc:
                raise gr.Error(f"line {n}: not JSON ({exc})") from exc
            subs = rec.get("metrics") or rec.get("subtasks") or rec.get("subtask")
            if subs is None or "prediction" not in rec:
                raise gr.Error(f"line {n}: needs 'prediction' and 'metrics' (or 'subtask')")
            splits = rec.get("splits")
            columns = _module().SPLIT_FLAG_COLUMNS  # split name -> bench flag column (labels.py)
            if splits is None and any(key in rec for key in columns.values()):
                splits = [flag for flag, key in columns.items() if rec.get(key)]
            rows.append({
                "id": rec.get("id", str(n)),
                "prediction": rec["prediction"],
                "reference": rec.get("answer_struct") or rec.get("reference") or rec.get("answer"),
                "subtasks": subs if isinstance(subs, list) else _subtasks(subs),
                "script": rec.get("script"),
                "splits": splits,
            })
    return rows


def score_file(file, use_bertscore, bert_model, base_url, judge_model, api_key) -> dict:
    """Score an uploaded JSONL file."""
    if file is None:
        raise gr.Error("Upload a JSONL file first.")
    path = file if isinstance(file, str) else getattr(file, "name", file)
    return score_rows(read_jsonl(path), use_bertscore, bert_model, base_url, judge_model, api_key)


def parse_one(text: str, subtask: str) -> dict:
    """The structured reading of one answer, or a note that it is unparseable."""
    parsed = _module().parse_answer(text or "", subtask)
    return parsed if parsed is not None else {"unparseable": True}


def _readme() -> str:
    text = (HERE / "README.md").read_text(encoding="utf-8") if (HERE / "README.md").exists() else ""
    return re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)


def build_demo() -> gr.Blocks:
    """The Space's Blocks app (not launched)."""
    with gr.Blocks(title="ACCE metric (JieZi-Bench)") as demo:
        gr.Markdown("# ACCE: Ancient Chinese Character Exegesis metrics\nScores JieZi-Bench answers on the eleven "
                    "ACCE metrics. Subtasks: a code (CHAR, SCRC, STRC, FORC, ORIM, EVOI) or the component "
                    "row's `COMR,COMF,COMI,COME`.")
        with gr.Accordion("Scorer settings", open=False):
            use_bert = gr.Checkbox(value=True, label="BERTScore (ORIM, COMI)")
            bert_model = gr.Textbox(value="bert-base-chinese", label="BERTScore model (Hub name or folder)")
            base_url = gr.Textbox(value=os.environ.get("JIEZI_JUDGE_BASE_URL", ""), label="Judge base URL (OpenAI-compatible)")
            judge_model = gr.Textbox(value=os.environ.get("JIEZI_JUDGE_MODEL", ""), label="Judge model")
            api_key = gr.Textbox(value="", type="password", label="Judge API key (or $JIEZI_JUDGE_API_KEY)")
        settings = [use_bert, bert_model, base_url, judge_model, api_key]
        with gr.Tab("Table"):
            table = gr.Dataframe(value=EXAMPLES, headers=["prediction", "reference", "subtasks"],
                                 datatype=["str", "str", "str"], column_count=3, interactive=True, wrap=True)
            table_btn = gr.Button("Score", variant="primary")
            table_out = gr.JSON(label="Scores")
            table_btn.click(score_table, inputs=[table, *settings], outputs=table_out)
        with gr.Tab("JSONL file"):
            upload = gr.File(label="predictions.jsonl", file_types=[".jsonl", ".json"])
            file_btn = gr.Button("Score file", variant="primary")
            file_out = gr.JSON(label="Scores")
            file_btn.click(score_file, inputs=[upload, *settings], outputs=file_out)
        with gr.Tab("Parse one answer"):
            answer = gr.Textbox(lines=6, label="Answer")
            subtask = gr.Dropdown(SUBTASK_CHOICES, value="COMR", label="Subtask")
            parse_btn = gr.Button("Parse")
            parse_out = gr.JSON(label="Parsed answer")
            parse_btn.click(parse_one, inputs=[answer, subtask], outputs=parse_out)
        gr.Markdown(_readme())
    return demo


if __name__ == "__main__":
    build_demo().launch()
