"""``hf:PATH_OR_ID``: a local transformers VLM (``AutoModelForImageTextToText`` + processor +
chat template), batched, greedy; device auto: cuda, then npu (torch_npu), then cpu."""

from __future__ import annotations

from pathlib import Path

from harness.eval import thinking as thinking_setting
from harness.eval.backends.base import (
    Backend,
    BackendOptions,
    ModelSpec,
    ModelSpecError,
    Request,
    accepted_forms,
)
from hub.read import looks_local


def auto_device() -> str:
    """``cuda`` when available, else ``npu`` when torch_npu is installed and sees a
    device, else ``cpu``."""
    import torch

    if torch.cuda.is_available():
        return "cuda"
    try:
        import torch_npu  # noqa: F401  (registers torch.npu)

        if torch.npu.is_available():
            return "npu"
    except Exception:  # not installed, or no Ascend driver
        pass
    return "cpu"


class HFBackend(Backend):
    """A local transformers VLM, batched greedy generation.

    ``device``: ``auto`` (:func:`auto_device`), ``cuda``, ``npu``, ``cpu`` or e.g.
    ``cuda:1``; ``dtype``: ``auto`` (bfloat16 on cuda/npu, float32 on cpu) or a torch
    dtype name; ``batch_size``: questions per ``generate`` call (left padding);
    ``max_new_tokens``: answer length limit. The processor is loaded with
    ``AutoProcessor.from_pretrained``.
    """

    kind = "hf"
    spec_form = "hf:PATH_OR_ID"
    default_concurrency = 1
    # Local generation in a Space runs on a small machine: shorter answers keep it responsive.
    demo_max_new_tokens = 512

    @classmethod
    def parse_spec(cls, spec: str, rest: str) -> ModelSpec:
        """``PATH_OR_ID``: a local folder or a Hub model id."""
        if not rest:
            raise ModelSpecError(f"--model {spec!r}: no model path or Hub id; {accepted_forms()}")
        return ModelSpec(cls.kind, rest)

    @classmethod
    def create(cls, spec: ModelSpec, options: BackendOptions) -> "HFBackend":
        """Load the model with ``options``' device, dtype, batch size (default 8) and length.
        Raises :class:`ModelSpecError` for a local path that is no folder (fresh-user trial of
        c4a44a5: a traceback in eval, "Repo id must be in the form…" in explain)."""
        if looks_local(spec.name) and not Path(spec.name).expanduser().is_dir():
            raise ModelSpecError(f"--model {spec}: no such model folder {spec.name!r} (a Hub model id is owner/name)")
        return cls(spec, device=options.device, dtype=options.dtype, batch_size=options.batch_size or 8,
                   max_new_tokens=options.max_new_tokens, thinking=options.thinking,
                   thinking_budget=options.thinking_budget)

    def __init__(self, spec: ModelSpec, *, device: str = "auto", dtype: str = "auto", batch_size: int = 8,
                 max_new_tokens: int = 1024, trust_remote_code: bool = False, thinking: str | None = None,
                 thinking_budget: str | None = None):
        import torch
        from transformers import AutoModelForImageTextToText, AutoProcessor

        self.spec = spec
        self.device = auto_device() if device == "auto" else device
        if dtype == "auto":
            self.dtype = torch.bfloat16 if self.device.split(":")[0] in ("cuda", "npu") else torch.float32
        else:
            self.dtype = getattr(torch, dtype)
        self.batch_size = int(batch_size)
        self.max_new_tokens = int(max_new_tokens)
        self.processor = AutoProcessor.from_pretrained(spec.name, trust_remote_code=trust_remote_code)
        self._enable_thinking, self.thinking = thinking_setting.hf_setting(self.processor, thinking, thinking_budget)
        tok = getattr(self.processor, "tokenizer", None)
        if tok is not None:
            tok.padding_side = "left"  # decoder-only generation continues from the right end
        self.model = AutoModelForImageTextToText.from_pretrained(spec.name, dtype=self.dtype,
                                                                 trust_remote_code=trust_remote_code)
        self.model.to(self.device).eval()

    def settings(self) -> dict:
        """Model and decoding settings for results.json."""
        cfg = self.model.config
        return {"backend": "hf", "model": self.spec.name, "model_type": getattr(cfg, "model_type", None),
                "device": self.device, "dtype": str(self.dtype).replace("torch.", ""), "batch_size": self.batch_size,
                "max_new_tokens": self.max_new_tokens, "decoding": "greedy (do_sample=False)",
                "processor": type(self.processor).__name__, "thinking": self.thinking}

    def generate(self, requests: list[Request]) -> list[str]:
        """Answer a batch with one ``model.generate`` call; returns the decoded new tokens."""
        import torch

        conversations = [r.messages for r in requests]
        # Qwen3.5's chat templates open a thinking block unless told not to; JieZi answers
        # (and the training recipes) have none, so off unless --thinking on. Templates
        # without the switch ignore it (recorded as unknown: harness/eval/thinking.py).
        inputs = self.processor.apply_chat_template(
            conversations, add_generation_prompt=True, tokenize=True, return_dict=True, return_tensors="pt",
            padding=True, enable_thinking=self._enable_thinking)
        inputs = inputs.to(self.device)
        if "pixel_values" in inputs and inputs["pixel_values"].is_floating_point():
            inputs["pixel_values"] = inputs["pixel_values"].to(self.dtype)
        tok = getattr(self.processor, "tokenizer", self.processor)
        with torch.inference_mode():
            out = self.model.generate(**inputs, max_new_tokens=self.max_new_tokens, do_sample=False,
                                      pad_token_id=tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id)
        new = out[:, inputs["input_ids"].shape[1]:]
        return [thinking_setting.strip_thinking(t).strip()
                for t in self.processor.batch_decode(new, skip_special_tokens=True)]
