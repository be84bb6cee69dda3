"""Dry run of a recipe on JieZi-Dataset: global batch, steps and token budget.

Step arithmetic follows ``transformers.Trainer`` (5.x, ``set_initial_training_values``):
each of ``devices`` processes sees ``ceil(rows / (per_device_batch * devices))`` batches per
epoch; an optimizer step takes ``gradient_accumulation_steps`` of them (a last partial
group counts as a step); total steps ``ceil(epochs * steps_per_epoch)`` (or ``max_steps``
when set); warmup steps ``ceil(total * warmup_steps)`` when ``warmup_steps < 1``.

Tokens per row (sequence length the model sees, cut at ``max_length``):

- ``processor`` method (exact): the recipe's processor is found offline (a local folder
  or the Hugging Face cache) and ``processor.apply_chat_template`` tokenizes a
  deterministic sample of rows with their images;
- ``estimate`` method (no processor): image tokens exactly as the Qwen image processors
  compute them (``smart_resize`` to multiples of ``patch * merge`` pixels within
  ``[min_pixels, max_pixels]``, then ``h * w / (patch * merge)^2``) with each family's
  published vision settings (:data:`FAMILY_VISION`); text tokens approximated as one token
  per CJK character (Qwen vocabularies hold common Han characters as single tokens; rare
  ones split into more, frequent words merge into fewer) plus one token per 4 other
  non-space characters, plus the Qwen chat format tokens (5 per turn:
  ``<|im_start|>``, role, newline, ``<|im_end|>``, newline; 2 vision delimiters; the
  default system prompt of Qwen2/2.5-VL; an empty think block per assistant turn for
  Qwen3.5). It is computed over every row.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from training.arguments import make_parser
from training.data import load_jiezi_dataset, nested_subset_indices

# Vision settings (patch size, merge size, min_pixels, max_pixels) of the released checkpoints'
# preprocessor configs: Qwen2-VL / Qwen2.5-VL 14 px patches, 3,136..12,845,056 pixels;
# Qwen3-VL and Qwen3.5 16 px patches, 65,536..16,777,216 pixels. Used only for estimates:
# with the processor at hand, its own values are read (vision_settings).
FAMILY_VISION: dict[str, tuple[int, int, int, int]] = {
    "qwen2_vl": (14, 2, 3136, 12845056),
    "qwen2_5_vl": (14, 2, 3136, 12845056),
    "qwen3_vl": (16, 2, 65536, 16777216),
    "qwen3_5": (16, 2, 65536, 16777216),
}
# Hub id fragment -> model family, for estimates when no config.json is at hand.
_FAMILY_BY_NAME = (("qwen3.5", "qwen3_5"), ("qwen3_5", "qwen3_5"), ("qwen3-vl", "qwen3_vl"),
                   ("qwen2.5-vl", "qwen2_5_vl"), ("qwen2-vl", "qwen2_vl"))
_QWEN2_SYSTEM_TOKENS = 11  # "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
_THINK_TOKENS = 4  # "<think>\n\n</think>\n\n" of the Qwen3.5 training templates
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f\u2ff0-\u2fff\u3000-\u303f\uff00-\uffef]")


@dataclass
class Plan:
    """The dry-run figures of one recipe on one dataset (see the module docstring)."""

    recipe: str
    model: str
    family: str
    devices: int
    per_device_batch: int
    gradient_accumulation: int
    global_batch: int
    subset: float
    rows: int
    qa_turns: int
    epochs: float
    steps_per_epoch: int
    total_steps: int
    warmup_steps: int
    max_length: int | None
    mean_tokens_per_row: float
    mean_image_tokens_per_row: float
    rows_over_max_length: int
    tokens_per_epoch: int
    token_budget: int
    token_method: str
    rows_counted: int

    def as_dict(self) -> dict:
        """Plain-JSON view."""
        return asdict(self)


@functools.lru_cache(maxsize=4096)
def image_tokens(width: int, height: int, patch_size: int, merge_size: int, min_pixels: int, max_pixels: int) -> int:
    """Visual tokens of one image for a Qwen-VL model (transformers' ``smart_resize``).

    The image is resized to multiples of ``patch_size * merge_size`` pixels with a pixel
    count in ``[min_pixels, max_pixels]``; each ``merge_size x merge_size`` block of
    patches becomes one token. Raises ``ValueError`` for an aspect ratio above 200.
    Cached: glyph images come in few sizes and the estimate calls this once per row.
    """
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import smart_resize

    factor = patch_size * merge_size
    h, w = smart_resize(height, width, factor=factor, min_pixels=min_pixels, max_pixels=max_pixels)
    return (h // factor) * (w // factor)


def vision_settings(processor) -> tuple[int, int, int, int]:
    """``(patch_size, merge_size, min_pixels, max_pixels)`` of a Qwen-VL processor's image processor."""
    ip = processor.image_processor
    size = getattr(ip, "size", None) or {}
    min_pixels = getattr(ip, "min_pixels", None) or size.get("shortest_edge")
    max_pixels = getattr(ip, "max_pixels", None) or size.get("longest_edge")
    return ip.patch_size, ip.merge_size, int(min_pixels), int(max_pixels)


def check_max_length(max_length: int | None, image_sizes, processor, *, margin: int = 32) -> None:
    """Raise ``ValueError`` when ``max_length`` cannot hold the largest image's tokens.

    TRL truncates from the end (``keep_start``) and the glyph image sits in the first user
    turn, so text is cut before any image token is; this check makes sure the image
    tokens (plus ``margin`` tokens of chat format) fit at all. ``image_sizes``: ``(w, h)``.
    """
    if max_length is None or not image_sizes:
        return
    settings = vision_settings(processor)
    worst = max(set(image_sizes), key=lambda wh: image_tokens(wh[0], wh[1], *settings))
    needed = image_tokens(worst[0], worst[1], *settings) + margin
    if needed > max_length:
        raise ValueError(
            f"max_length={max_length} cannot hold the {needed - margin} image tokens of a {worst[0]}x{worst[1]} "
            f"glyph image (+{margin} format tokens): raise max_length or lower the image processor's max_pixels"
        )


def model_family(model_id: str, config=None) -> str:
    """The Qwen-VL family (``FAMILY_VISION`` key) of a model, from its config or its name."""
    if config is not None and getattr(config, "model_type", None) in FAMILY_VISION:
        return config.model_type
    name = model_id.lower()
    for fragment, family in _FAMILY_BY_NAME:
        if fragment in name:
            return family
    raise ValueError(f"cannot tell the Qwen-VL family of {model_id!r}; expected one of {list(FAMILY_VISION)}")


def estimate_text_tokens(text: str) -> int:
    """Approximate Qwen tokens of ``text``: 1 per CJK character + 1 per 4 other non-space characters."""
    cjk = len(_CJK.findall(text))
    other = sum(1 for ch in text if not ch.isspace()) - cjk
    return cjk + math.ceil(other / 4)


def estimate_row_tokens(messages: list[dict], image_wh: tuple[int, int], family: str) -> tuple[int, int]:
    """``(total, image)`` estimated tokens of one row (module docstring, ``estimate`` method)."""
    img = image_tokens(image_wh[0], image_wh[1], *FAMILY_VISION[family])
    total = img + 2
    if family in ("qwen2_vl", "qwen2_5_vl") and messages and messages[0]["role"] != "system":
        total += _QWEN2_SYSTEM_TOKENS
    for message in messages:
        content = message["content"]
        text = content if isinstance(content, str) else "".join(p.get("text") or "" for p in content
                                                               if p.get("type") == "text")
        total += 5 + estimate_text_tokens(text)
        if family == "qwen3_5" and message["role"] == "assistant":
            total += _THINK_TOKENS
    return total, img


def steps(rows: int, per_device: int, accumulation: int, devices: int, epochs: float, max_steps: int,
          warmup: float) -> tuple[int, int, int]:
    """``(steps_per_epoch, total_steps, warmup_steps)`` as ``transformers.Trainer`` computes them."""
    batches = math.ceil(rows / (per_device * devices))
    per_epoch = max(batches // accumulation + int(batches % accumulation > 0), 1)
    total = max_steps if max_steps and max_steps > 0 else math.ceil(epochs * per_epoch)
    warm = int(warmup) if warmup >= 1 else math.ceil(total * warmup)
    return per_epoch, total, warm


def parse_recipe(recipe: str | Path, overrides: list[str] | None = None):
    """Parse a recipe with the training parser (TRL's plus ``JieZiArguments``).

    ``use_cpu`` is forced on so recipes asking for bf16 parse on a machine without an
    accelerator; nothing else changes. Returns the five argument dataclasses."""
    return make_parser().parse_args_and_config(["--config", str(recipe), "--use_cpu", "true", *(overrides or [])])


def _offline_processor(model_id: str, revision: str | None):
    from transformers import AutoProcessor  # heavy: only when a processor is looked up

    try:
        return AutoProcessor.from_pretrained(model_id, revision=revision, local_files_only=True)
    except Exception:  # not in the cache / not a folder: fall back to the estimate
        return None


def plan_recipe(recipe: str | Path, dataset: str | None = None, *, devices: int = 8, subset: float | None = None,
                sample: int = 512, cache: dict | None = None, use_processor: bool = True) -> Plan:
    """Dry-run ``recipe`` on ``dataset`` (default: the recipe's ``dataset_name``).

    ``devices``: data-parallel processes assumed (the recipes assume 8). ``subset``
    overrides the recipe's. ``sample``: rows tokenized exactly when the processor is
    available (the first rows in nested-subset order). ``cache`` reuses loaded datasets
    between recipes. Raises what :func:`training.data.load_jiezi_dataset` raises.
    """
    script_args, args, model_args, _, jiezi_args = parse_recipe(recipe)
    dataset = dataset or script_args.dataset_name
    subset = jiezi_args.subset if subset is None else subset
    config = script_args.dataset_config or "all"
    key = (dataset, config, script_args.dataset_train_split, subset, jiezi_args.subset_seed)
    cache = {} if cache is None else cache
    if key not in cache:
        cache[key] = load_jiezi_dataset(dataset, config, script_args.dataset_train_split, subset=subset,
                                        subset_seed=jiezi_args.subset_seed, progress=False)
    ds, summary = cache[key]

    model_id = model_args.model_name_or_path
    processor = _offline_processor(model_id, model_args.model_revision) if use_processor else None
    if processor is not None:
        from trl.data_utils import prepare_multimodal_messages

        from transformers import AutoConfig

        family = model_family(model_id, AutoConfig.from_pretrained(model_id, local_files_only=True))
        picked = nested_subset_indices(ds["id"], min(1.0, sample / len(ds)), 0) if len(ds) > sample else range(len(ds))
        rows = ds.select(picked)
        totals, images = [], []
        settings = vision_settings(processor)
        for row in rows:
            messages = prepare_multimodal_messages(row["messages"], images=row["images"])
            ids = processor.apply_chat_template(messages, tokenize=True, return_dict=True)["input_ids"]
            totals.append(len(ids[0]) if ids and isinstance(ids[0], list) else len(ids))
            images.append(image_tokens(*row["images"][0].size, *settings))
        method = f"processor ({len(totals)} rows tokenized with {model_id}'s processor)"
    else:
        family = model_family(model_id)
        totals, images = [], []
        for messages, wh in zip(_iter_messages(ds), summary.image_sizes):
            total, img = estimate_row_tokens(messages, wh, family)
            totals.append(total)
            images.append(img)
        method = "estimate (see training/plan.py: CJK chars + other chars/4 + chat format + exact image tokens)"

    cut = [min(t, args.max_length) if args.max_length else t for t in totals]
    mean_tokens = sum(cut) / len(cut)
    per_epoch, total, warm = steps(summary.rows, args.per_device_train_batch_size, args.gradient_accumulation_steps,
                                   devices, args.num_train_epochs, args.max_steps, args.warmup_steps)
    tokens_per_epoch = round(mean_tokens * summary.rows)
    over = sum(1 for t in totals if args.max_length and t > args.max_length)
    return Plan(
        recipe=str(recipe), model=model_id, family=family, devices=devices,
        per_device_batch=args.per_device_train_batch_size, gradient_accumulation=args.gradient_accumulation_steps,
        global_batch=args.per_device_train_batch_size * args.gradient_accumulation_steps * devices,
        subset=subset, rows=summary.rows, qa_turns=summary.qa_turns, epochs=args.num_train_epochs,
        steps_per_epoch=per_epoch, total_steps=total, warmup_steps=warm, max_length=args.max_length,
        mean_tokens_per_row=round(mean_tokens, 1), mean_image_tokens_per_row=round(sum(images) / len(images), 1),
        rows_over_max_length=round(over * summary.rows / len(totals)), tokens_per_epoch=tokens_per_epoch,
        token_budget=round(tokens_per_epoch * (total / per_epoch if per_epoch else args.num_train_epochs)),
        token_method=method, rows_counted=len(totals),
    )


def _iter_messages(ds):
    for batch in ds.select_columns(["messages"]).iter(batch_size=1024):
        yield from batch["messages"]
