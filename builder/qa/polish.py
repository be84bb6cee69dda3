"""Optional LLM polish of rule-composed reasoning answers, with a fidelity gate.

The paper had an LLM write the reasoning answers under the record's constraints. Here
the answers are composed by rule (always grounded); a polish pass may rewrite COMI, EVOI
and exegesis answers into more fluent prose through any OpenAI-compatible
``/chat/completions`` endpoint. A rewrite is accepted only when it adds no fact: every
quoted form (「」, 《》, “”), every ACCE label, every Latin word or number and every Han
character outside a small list of connective characters must already occur in the
rule-composed answer. Otherwise the rule answer is kept and the rejection counted.

Replies are cached on disk (``cache_path``, JSON Lines keyed by a hash of model, prompt
and answer: ``hub.openai_client.ReplyCache``), so a resumed build makes no repeated calls.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from hub.openai_client import DEFAULT_MAX_RETRIES, ChatClient, ChatError, ReplyCache, cache_key
from metrics.acce import labels

POLISH_KINDS = ("COMI", "EVOI", "EXEGESIS")

SYSTEM_PROMPT = (
    "你是汉字学编辑。请把用户给出的文字学说明改写得更通顺、更符合辞书体例，"
    "保持原有的分段、编号与【】小标题。只能调整语序和连接词，不得增加、删除或改动任何事实："
    "不得引入原文没有的字形、字、书体、造字法、读音、出处或年代。直接输出改写后的文字。"
)

# Characters a rewrite may add without adding a fact: function words and connectives.
CONNECTIVES = set(
    "的了是在其之而为於于由此该字形与及和并且即乃亦也者所以则故因从中上下内外间后前时"
    "已经仍均都皆各每一二两三个种类其中如下所述可见由此看来因而进而同时此外另外然而但即为"
    "被把将向对就还又再更最很较其所与及至以为作成有无不没乃系属表示说明写作称叫谓"
    "用来着过便仅只这那些它们便即当可能"
    "，。；：、！？（）【】「」《》“”‘’—…·\n -"
)
_QUOTED = re.compile(r"「([^」]+)」|《([^》]+)》|“([^”]+)”")
_LATIN_NUM = re.compile(r"[A-Za-z\u00c0-\u024f]+|\d+")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\U00020000-\U0003134f]")
_LABELS = (set(labels.SCRIPTS) | set(labels.FORMATIONS) | set(labels.FUNCTIONS)
           | set(labels.EVOLUTION_TYPES) | set(labels.STRUCTURE_ZH.values()) | set(labels.STRUCTURES))


def added_facts(original: str, rewrite: str) -> list[str]:
    """What ``rewrite`` states that ``original`` does not (empty list = faithful).

    Returns human-readable reasons: new quoted forms, new ACCE labels, new Latin words or
    numbers, new Han characters outside :data:`CONNECTIVES`.
    """
    reasons = []
    q_orig = {"".join(m) for m in _QUOTED.findall(original)}
    for m in _QUOTED.findall(rewrite):
        q = "".join(m)
        if q not in q_orig and q not in original:
            reasons.append(f"new quoted form {q!r}")
    for lab in _LABELS:
        if lab in rewrite and lab not in original:
            reasons.append(f"new label {lab!r}")
    orig_tokens = set(_LATIN_NUM.findall(original))
    for tok in _LATIN_NUM.findall(rewrite):
        if tok not in orig_tokens:
            reasons.append(f"new token {tok!r}")
    orig_han = set(_HAN.findall(original))
    new_han = sorted({ch for ch in _HAN.findall(rewrite) if ch not in orig_han and ch not in CONNECTIVES})
    if new_han:
        reasons.append("new characters " + "".join(new_han))
    return reasons


class Polisher:
    """Rewrites reasoning answers through an OpenAI-compatible chat endpoint.

    ``endpoint``: base URL (``http://host:port/v1``); ``model``: model name;
    ``api_key``: optional bearer token; ``cache_path``: JSON Lines reply cache
    (``hub.openai_client.ReplyCache``); ``timeout`` (seconds per attempt) and
    ``max_retries``: the project's one client's (``hub.openai_client.ChatClient``). A
    server that gives no usable reply keeps the rule answer (counted as ``error``), never
    aborts the build.
    """

    def __init__(self, endpoint: str, model: str, *, api_key: str | None = None,
                 cache_path: Path | None = None, timeout: float = 60.0, max_retries: int = DEFAULT_MAX_RETRIES):
        self.client = ChatClient(endpoint, model, api_key=api_key, timeout=timeout, max_retries=max_retries)
        self.endpoint = self.client.base_url
        self.model = model
        self.cache = ReplyCache(cache_path) if cache_path else None

    def describe(self) -> dict:
        """What the polish depends on (part of the stage fingerprint)."""
        return {"endpoint": self.endpoint, "model": self.model, "prompt": hashlib.sha256(SYSTEM_PROMPT.encode()).hexdigest()[:12]}

    def _call(self, text: str) -> str:
        key = cache_key(self.model, SYSTEM_PROMPT, text)
        if self.cache is not None and self.cache.get(key) is not None:
            return self.cache.get(key)
        messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": text}]
        reply = self.client.complete(messages, temperature=0).text.strip()
        if self.cache is not None:
            self.cache.put(key, reply)
        return reply

    def polish(self, answer: str) -> tuple[str, str, list[str]]:
        """Return ``(text, status, reasons)``: status ``accepted`` (text is the rewrite),
        ``rejected`` (rule answer kept; reasons say what was added) or ``error``."""
        try:
            reply = self._call(answer)
        except ChatError as exc:
            return answer, "error", [str(exc)[:200]]
        if not reply:
            return answer, "rejected", ["empty reply"]
        reasons = added_facts(answer, reply)
        if reasons:
            return answer, "rejected", reasons
        return reply, "accepted", []

    def polish_item(self, item: dict) -> tuple[dict, str]:
        """Polish one QA dict (:meth:`builder.qa.facts.QA.to_dict`) when its kind is polishable;
        an accepted rewrite gets a provenance entry with rule ``polish:<model>``."""
        if item["kind"] not in POLISH_KINDS:
            return item, "skipped"
        text, status, _ = self.polish(item["answer"])
        if status == "accepted" and text != item["answer"]:
            item = dict(item)
            item["answer"] = text
            item["provenance"] = item["provenance"] + [{
                "field": "answer", "source": "llm", "entry_id": self.model,
                "span": "rewrite checked against the rule answer", "rule": f"polish:{self.model}"}]
        return item, status
