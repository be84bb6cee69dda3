"""Tiny Qwen-VL checkpoints and the processor workaround of training/processor.py."""

from __future__ import annotations

import pytest
import torch
from PIL import Image
from tiny_vlm import build_tiny_vlm
from transformers import AutoModelForImageTextToText, Qwen2VLProcessor
from transformers.utils import is_torchvision_available

from training.processor import load_processor, save_processor, video_free_class

MESSAGES = [
    {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "这个字形属于哪种书体？"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "篆书"}]},
]


@pytest.mark.parametrize("family", ["qwen2_vl", "qwen2_5_vl", "qwen3_vl"])
def test_tiny_vlm_loads_runs_and_round_trips(family, tmp_path):
    path = build_tiny_vlm(family, tmp_path / family)
    model = AutoModelForImageTextToText.from_pretrained(path)
    processor = load_processor(path)
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

    # saving with the video-free processor and reloading gives the same encoding
    save_processor(processor, tmp_path / "resaved")
    again = load_processor(tmp_path / "resaved")
    assert type(again).__name__ == type(processor).__name__
    assert again.chat_template == processor.chat_template
    assert torch.equal(again(images=[image], text=[text], return_tensors="pt")["input_ids"], batch["input_ids"])

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


def test_video_free_class_keeps_the_real_name_and_checks_other_parts(tmp_path):
    cls = video_free_class(Qwen2VLProcessor)
    assert cls.__name__ == "Qwen2VLProcessor" and issubclass(cls, Qwen2VLProcessor)
    tokenizer = load_processor(build_tiny_vlm("qwen2_vl", tmp_path)).tokenizer
    with pytest.raises(TypeError, match="image_processor"):
        cls(image_processor="not an image processor", tokenizer=tokenizer, video_processor=None)


@pytest.mark.skipif(is_torchvision_available(), reason="the workaround is only needed without torchvision")
def test_autoprocessor_needs_torchvision_so_load_processor_exists(tmp_path):
    from transformers import AutoProcessor

    path = build_tiny_vlm("qwen2_5_vl", tmp_path / "m")
    with pytest.raises(ImportError, match="Torchvision"):
        AutoProcessor.from_pretrained(path)
