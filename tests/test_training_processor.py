"""Tiny Qwen-VL checkpoints, and their processors through plain ``AutoProcessor``."""

from __future__ import annotations

import pytest
import torch
import transformers
from PIL import Image
from tiny_vlm import _FAMILY, FAMILIES, build_tiny_vlm
from transformers import AutoModelForImageTextToText, AutoProcessor

MESSAGES = [
    {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "这个字形属于哪种书体？"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "篆书"}]},
]


@pytest.mark.parametrize("family", FAMILIES)
def test_autoprocessor_loads_saves_and_reloads_every_family(family, tmp_path):
    path = build_tiny_vlm(family, tmp_path / family)
    processor = AutoProcessor.from_pretrained(path)
    processor_name, _, video_processor_name, _, patch = _FAMILY[family]
    assert type(processor) is getattr(transformers, processor_name)
    # all three parts, the video processor with the checkpoint's own patch settings
    assert type(processor.video_processor) is getattr(transformers, video_processor_name)
    assert processor.video_processor.patch_size == processor.image_processor.patch_size == patch

    image = Image.new("RGB", (96, 80), "white")
    text = processor.apply_chat_template(MESSAGES, tokenize=False)
    batch = processor(images=[image], text=[text], return_tensors="pt")
    processor.save_pretrained(tmp_path / "resaved")
    again = AutoProcessor.from_pretrained(tmp_path / "resaved")
    assert type(again) is type(processor) and type(again.video_processor) is type(processor.video_processor)
    assert again.chat_template == processor.chat_template
    resaved = again(images=[image], text=[text], return_tensors="pt")
    assert torch.equal(resaved["input_ids"], batch["input_ids"])
    assert torch.equal(resaved["pixel_values"], batch["pixel_values"])


@pytest.mark.parametrize("family", ["qwen2_vl", "qwen2_5_vl", "qwen3_vl"])
def test_tiny_vlm_loads_runs_and_expands_image_tokens(family, tmp_path):
    path = build_tiny_vlm(family, tmp_path / family)
    model = AutoModelForImageTextToText.from_pretrained(path)
    processor = AutoProcessor.from_pretrained(path)
    assert model.config.model_type == family
    assert sum(p.numel() for p in model.parameters()) < 1_000_000
    assert model.config.image_token_id == processor.tokenizer.convert_tokens_to_ids("<|image_pad|>")

    image = Image.new("RGB", (96, 80), "white")
    text = processor.apply_chat_template(MESSAGES, tokenize=False)
    assert "<|vision_start|><|image_pad|><|vision_end|>" in text and text.endswith("<|im_end|>\n")
    batch = processor(images=[image], text=[text], return_tensors="pt")
    # every merged visual token is in input_ids: grid (t*h*w) / merge^2 image pads
    n_visual = int(batch["image_grid_thw"].prod()) // processor.image_processor.merge_size**2
    assert int((batch["input_ids"] == model.config.image_token_id).sum()) == n_visual >= 4
    loss = model(**batch, labels=batch["input_ids"]).loss
    assert torch.isfinite(loss) and loss.item() > 0

    prompt = processor.apply_chat_template(MESSAGES[:1], tokenize=False, add_generation_prompt=True)
    inputs = processor(images=[image], text=[prompt], return_tensors="pt")
    out = model.generate(**inputs, max_new_tokens=4, do_sample=False)
    assert out.shape[1] > inputs["input_ids"].shape[1]


def test_tiny_vlm_is_deterministic(tmp_path):
    a = AutoModelForImageTextToText.from_pretrained(build_tiny_vlm("qwen2_vl", tmp_path / "a"))
    b = AutoModelForImageTextToText.from_pretrained(build_tiny_vlm("qwen2_vl", tmp_path / "b"))
    for (name, pa), (_, pb) in zip(a.state_dict().items(), b.state_dict().items()):
        assert torch.equal(pa, pb), name


def test_unknown_family_is_rejected(tmp_path):
    with pytest.raises(ValueError, match="qwen9_vl"):
        build_tiny_vlm("qwen9_vl", tmp_path)
