"""Model cards for JieZi fine-tunes, filled from a training run and (optionally) bench scores.

``write_model_card(run_dir, results=None)`` reads ``RUN_DIR/jiezi_run.json`` (written by
``training.sft``) and an optional ``results.json`` of ``jiezi eval`` (its ``scores`` are the
``jiezi/acce`` metric's dict: the eleven metric keys, ``L1``..``L4`` and ``macro`` on 0-100,
``None`` plus a reason under ``not_computed`` when a metric was not computed), renders
``cards/model_card.jinja`` with ``huggingface_hub.ModelCard.from_template`` and writes
``RUN_DIR/README.md``, the file the Hub shows as the model card.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from hub.atomic import atomic_write
from hub.runfiles import check_results
from metrics.acce.labels import LEVELS, METRICS
from training.sft import RUN_RECORD

TEMPLATE = Path(__file__).resolve().parent.parent / "cards" / "model_card.jinja"
METRIC_KEYS = METRICS  # the eleven score keys, in Table 10's order
LEVEL_KEYS = (*LEVELS, "macro")
# Table-6 settings first, in the paper's order, then the rest of the recorded settings.
_SETTING_ORDER = ("per_device_train_batch_size", "gradient_accumulation_steps", "learning_rate", "lr_scheduler_type",
                  "warmup_steps", "weight_decay", "optim", "max_length", "num_train_epochs", "bf16")


def _fmt(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def load_run(run_dir: str | os.PathLike) -> dict:
    """The run record of ``run_dir``; raises ``FileNotFoundError`` without one and
    ``ValueError`` when the run has not completed (its status is not "completed")."""
    path = Path(run_dir) / RUN_RECORD
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: is {run_dir} the output_dir of `jiezi train run`?")
    record = json.loads(path.read_text(encoding="utf-8"))
    if record.get("status") != "completed":
        raise ValueError(f"{path}: run status is {record.get('status')!r}, not 'completed' (training did not finish)")
    return record


def load_scores(results_path: str | os.PathLike) -> dict:
    """Scores, bench and scorer of a ``jiezi eval`` results.json (or of a bare scores dict).

    Returns ``{"scores", "bench" (dict: source, config, split, rows; may be empty),
    "scorer_note" (str or None)}``. Raises ``ValueError`` naming the file when it holds
    no ACCE metric key, or (``hub.runfiles.RunFileError``) the field of a results.json that
    does not fit ``hub.runfiles.Results``."""
    data = json.loads(Path(results_path).read_text(encoding="utf-8"))
    if isinstance(data, dict) and "format" in data:  # a results.json, not a bare scores dict
        check_results(data, str(results_path))
    scores = data.get("scores", data) if isinstance(data, dict) else None
    if not isinstance(scores, dict) or not any(k in scores for k in METRIC_KEYS):
        raise ValueError(f"{results_path}: no ACCE scores (expected a 'scores' object with keys like {METRIC_KEYS[:3]})")
    bench = data.get("bench") or {}
    if isinstance(bench, str):
        bench = {"source": bench}
    bertscore = (data.get("scorer") or {}).get("bertscore_model") or {}
    note = bertscore.get("note") if bertscore.get("comparable_to_paper") is False else None
    return {"scores": scores, "bench": bench, "scorer_note": note}


def _bench_text(bench: dict) -> str | None:
    if not bench.get("source"):
        return None
    where = "/".join(str(bench[k]) for k in ("config", "split") if bench.get(k))
    rows = f", {bench['rows']} questions" if bench.get("rows") else ""
    return f"`{bench['source']}`" + (f" ({where}{rows})" if where or rows else "")


def render_model_card(run_dir: str | os.PathLike, results: str | os.PathLike | None = None, *,
                      model_name: str | None = None):
    """Return a ``huggingface_hub.ModelCard`` for the run in ``run_dir`` (see the module docstring)."""
    from huggingface_hub import EvalResult, ModelCard, ModelCardData

    record = load_run(run_dir)
    run_dir = Path(run_dir)
    settings = record["settings"]
    dataset = record["dataset"]
    peft = bool(settings.get("use_peft"))
    base = record["base_model"]
    name = model_name or run_dir.name
    evaluated = load_scores(results) if results else None

    eval_results = None
    if evaluated:
        eval_results = [
            EvalResult(task_type="image-text-to-text", dataset_type=_hub_id(evaluated["bench"].get("source")),
                       dataset_name="JieZi-Bench", dataset_config=evaluated["bench"].get("config"),
                       dataset_split=evaluated["bench"].get("split"), metric_type=key.lower(), metric_name=key,
                       metric_value=float(evaluated["scores"][key]))
            for key in METRIC_KEYS + LEVEL_KEYS if evaluated["scores"].get(key) is not None
        ] or None
    card_data = ModelCardData(
        base_model=base if "/" in base and not Path(base).exists() else None,
        datasets=[dataset["source"]] if "source" in dataset and not Path(dataset["source"]).exists() else None,
        language=["zh"], library_name="peft" if peft else "transformers", pipeline_tag="image-text-to-text",
        tags=["jiezi", "acce", "ancient-chinese", "trl", "sft"] + (["lora"] if peft else []),
        model_name=name, eval_results=eval_results,
    )
    if not peft:  # LoRA settings mean nothing for a full fine-tune
        settings = {k: v for k, v in settings.items() if not k.startswith("lora_")}
    ordered = [k for k in _SETTING_ORDER if k in settings] + [k for k in settings if k not in _SETTING_ORDER]
    scores = evaluated["scores"] if evaluated else None
    not_computed = (scores or {}).get("not_computed") or {}
    runtime = record.get("train_runtime_s")
    recipe = record.get("recipe")
    return ModelCard.from_template(
        card_data,
        template_path=str(TEMPLATE),
        model_name=name,
        model_path=str(run_dir),
        base_model=base,
        peft=peft,
        recipe_name=Path(recipe).name if recipe else "(command line)",
        recipe_text=(record.get("recipe_text") or "").strip(),
        overrides=" ".join(record.get("overrides") or []),
        dataset=dataset,
        subset_pct=f"{dataset.get('subset', 1) * 100:g}%",
        settings=[(k, _fmt(settings[k])) for k in ordered],
        world_size=record.get("world_size"),
        global_batch=record.get("global_batch"),
        global_steps=record.get("global_steps"),
        epochs=_fmt(record.get("epochs")),
        first_loss=_fmt(record.get("first_logged_loss")),
        last_loss=_fmt(record.get("last_logged_loss")),
        train_loss=_fmt(record.get("train_loss")),
        runtime=f"{runtime / 3600:.2f} h" if runtime and runtime >= 3600 else f"{runtime or 0:.0f} s",
        versions=", ".join(f"{k} {v}" for k, v in (record.get("versions") or {}).items()),
        scores=scores,
        bench=_bench_text(evaluated["bench"]) if evaluated else None,
        scorer=evaluated["scorer_note"] if evaluated else None,
        scores_row=" | ".join(_fmt(scores.get(k)) for k in METRIC_KEYS) if scores else "",
        levels_row=" | ".join(_fmt(scores.get(k)) for k in LEVEL_KEYS) if scores else "",
        not_computed="; ".join(f"{k} ({v})" for k, v in not_computed.items()) if isinstance(not_computed, dict) else "",
    )


def _hub_id(source: str | None) -> str:
    """The bench's Hub id for the model-index, or ``jiezi-bench`` for a local folder."""
    if source and not Path(source).exists() and source.count("/") == 1:
        return source
    return "jiezi-bench"


def write_model_card(run_dir: str | os.PathLike, results: str | os.PathLike | None = None, *,
                     model_name: str | None = None) -> Path:
    """Render the card and write it to ``RUN_DIR/README.md`` (atomically); return the path."""
    card = render_model_card(run_dir, results, model_name=model_name)
    out = Path(run_dir) / "README.md"
    return atomic_write(out, str(card))
