"""Thinking (reasoning) mode as a run setting (issue 24): what a backend was asked, what it
applied, and how results and board rows record it.

Peer benchmarks (Chronicles-OCR, 2026) report each model with thinking on and off because
thinking lowers recognition, so a run records ``thinking``: ``{"mode": "on" | "off" |
"unknown", "budget": effort or None, "how": the switch used}``.

- ``hf:`` models: the chat template's ``enable_thinking`` switch (Qwen3 / Qwen3.5 templates).
  Default off (JieZi answers and the training recipes have no thinking block); a template
  without the switch leaves it to the model: ``unknown``.
- ``openai:`` servers: ``--thinking on|off`` is sent as ``chat_template_kwargs.enable_thinking``
  (vLLM's and SGLang's extension of the chat API); ``--thinking-budget EFFORT`` as the API's
  ``reasoning_effort`` (minimal / low / medium / high). Nothing asked: the server's default,
  ``unknown``.
- the retrieval baseline has no model to think: ``off``.
"""

from __future__ import annotations

import re

MODES = ("on", "off")
EFFORTS = ("minimal", "low", "medium", "high")
UNKNOWN = {"mode": "unknown", "budget": None, "how": "not set: the model's or server's default"}
# A reasoning block some servers return inline when they run no reasoning parser.
_THINK_BLOCK = re.compile(r"^\s*<think>.*?</think>\s*", re.DOTALL)


def check(mode: str | None, budget: str | None) -> None:
    """Raise ``ValueError`` naming the flag when ``mode`` is not on / off / None, or
    ``budget`` not one of :data:`EFFORTS` / None, or a budget comes with thinking off."""
    if mode not in (None, *MODES):
        raise ValueError(f"--thinking {mode!r}: expected on or off")
    if budget is not None and budget not in EFFORTS:
        raise ValueError(f"--thinking-budget {budget!r}: expected one of {', '.join(EFFORTS)} (the API's reasoning effort)")
    if budget is not None and mode == "off":
        raise ValueError("--thinking-budget with --thinking off: a budget applies to thinking on")


def strip_thinking(text: str) -> str:
    """``text`` without a leading ``<think>...</think>`` block (the answer is what follows)."""
    return _THINK_BLOCK.sub("", text or "", count=1)


def template_has_switch(processor) -> bool:
    """True when the processor's (or its tokenizer's) chat template reads ``enable_thinking``."""
    for obj in (processor, getattr(processor, "tokenizer", None)):
        template = getattr(obj, "chat_template", None)
        texts = template.values() if isinstance(template, dict) else [template]
        if any(isinstance(t, str) and "enable_thinking" in t for t in texts):
            return True
    return False


def hf_setting(processor, mode: str | None, budget: str | None) -> tuple[bool, dict]:
    """``(enable_thinking passed to apply_chat_template, record)`` for a transformers model.
    Raises ``ValueError`` for a budget (transformers' ``generate`` has none; cap the answer
    with ``--max-new-tokens``)."""
    check(mode, budget)
    if budget is not None:
        raise ValueError("--thinking-budget applies to openai: servers (reasoning_effort); an hf: model's length "
                         "is capped by --max-new-tokens")
    enable = mode == "on"
    if not template_has_switch(processor):
        return enable, {"mode": "unknown", "budget": None,
                        "how": "the chat template has no enable_thinking switch: the model's own behaviour"}
    return enable, {"mode": "on" if enable else "off", "budget": None,
                    "how": f"chat template enable_thinking={enable}"}


def openai_setting(mode: str | None, budget: str | None) -> tuple[dict, dict]:
    """``(extra keyword arguments of chat.completions.create, record)`` for an
    OpenAI-compatible server."""
    check(mode, budget)
    kwargs: dict = {}
    how = []
    if mode is not None:
        kwargs["extra_body"] = {"chat_template_kwargs": {"enable_thinking": mode == "on"}}
        how.append(f"chat_template_kwargs.enable_thinking={mode == 'on'}")
    if budget is not None:
        kwargs["reasoning_effort"] = budget
        how.append(f"reasoning_effort={budget}")
    if not how:
        return kwargs, dict(UNKNOWN)
    return kwargs, {"mode": mode or "on", "budget": budget, "how": "; ".join(how)}


def label(record: dict | None) -> str:
    """A board's short form: ``on``, ``off``, ``on (high)``, ``unknown``."""
    if not isinstance(record, dict):
        return "unknown"
    mode = str(record.get("mode") or "unknown")
    return f"{mode} ({record['budget']})" if record.get("budget") else mode
