"""The LLM structurizer: any OpenAI-compatible chat endpoint fills a Shuowen reading.

Works with vLLM, Ollama, llama.cpp's server or a commercial API (``POST
<base_url>/chat/completions``). The reply is constrained by a JSON Schema sent as
``response_format = {"type": "json_schema", "json_schema": {"strict": true, ...}}``;
the schema is built from the record schema's label sets (六書, functions, 重文 kinds),
so a server that honours it cannot answer outside them. Every value must come with the
exact text it was read from (``span``); the prompt tells the model to leave a field
empty (null / []) rather than guess.

- A reply cut off by the token limit (``finish_reason == "length"``) is asked again
  with twice the ``max_tokens``, up to ``max_tokens_limit``.
- Paged mode: an entry longer than ``page_chars`` characters, or with several senses
  (``一曰``), is sent in pages (whole lines, the explanation split at 。), each page with
  the head character; the page readings are merged (first gloss and class, components
  and variants united, senses concatenated).
- Replies are cached by (model, prompt version, page text) in a JSONL file when the
  build attaches one (``hub.openai_client.ReplyCache``), so an interrupted run resumes without asking again.
- Free-text Shuowen entries go to the model; structured sources (makemeahanzi, cjkvi-ids,
  Unihan) and 段玉裁's stated classes keep their rules. An entry the model cannot answer
  (no reply after the client's retries, invalid JSON after ``retries``) falls back to the rules and is recorded
  in ``skipped``.

The result goes through the same :func:`builder.records.fidelity.enforce` as the rules, so an
invented value is dropped and flagged.
"""

from __future__ import annotations

import json
from pathlib import Path

from builder.sources.adapters import Entry
from builder.sources.adapters.shuowen import ShuowenEntry
from builder.aliases import canonical
from builder.schema import Component, Formation, Provenance, Sense, Variant
from builder.records.fidelity import enforce
from builder.records.structurize import GFormation, GStr, RuleStructurizer, SourceReading, structurize_shuowen
from hub.openai_client import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, ChatClient, ChatError, ReplyCache, cache_key
from hub.skips import SkipLog
from metrics.acce import labels

PROMPT_VERSION = "shuowen-reading-1"
VARIANT_KINDS = ["古文", "籒文", "或體", "篆文", "俗字", "奇字", "異體"]

SYSTEM_PROMPT = (
    "你是《說文解字》的结构化标注员。只依据用户给出的条目原文，按 JSON Schema 填写字段；"
    "每个值都必须附上原文中逐字出现的依据片段（span），不得改写、不得补充原文没有的内容。"
    "原文没有说明的字段留空（null 或 []），绝不猜测。\n"
    "规则：「X也」之前的释义是本义（original_meaning.value 取原文文字）；「从X」的 X 为表意构件；"
    "「X聲」「X省聲」的 X 为表音构件，造字法为形声；「X亦聲」的 X 兼表意表音，形声且 yisheng=true；"
    "「象形」「象…之形」为象形；「指事」为指事；两个以上表意构件而无聲为会意；"
    "重文（古文、籒文、或體、篆文、俗字、奇字）逐条列出其字形、类别与其自身的构件；"
    "「一曰」等其他义项列入 senses。"
)


def response_schema() -> dict:
    """The JSON Schema (strict mode: every property required, no extra keys) of a reply."""
    span = {"type": "string", "description": "exact text copied from the entry"}

    def obj(props: dict) -> dict:
        return {"type": "object", "additionalProperties": False, "required": list(props), "properties": props}

    def nullable(schema: dict) -> dict:
        return {"anyOf": [schema, {"type": "null"}]}

    component = obj({
        "name": {"type": "string", "description": "the component, one character as written in the entry"},
        "functions": {"type": "array", "items": {"type": "string", "enum": list(labels.FUNCTIONS)}},
        "span": span,
        "interpretation": nullable({"type": "string"}),
        "interpretation_span": nullable(span),
    })
    return obj({
        "original_meaning": nullable(obj({"value": {"type": "string"}, "span": span})),
        "formation": nullable(obj({
            "label": {"type": "string", "enum": list(labels.FORMATIONS)},
            "yisheng": {"type": "boolean"},
            "span": span,
        })),
        "components": {"type": "array", "items": component},
        "variants": {"type": "array", "items": obj({
            "form": {"type": "string"},
            "kind": {"type": "string", "enum": VARIANT_KINDS},
            "span": span,
            "components": {"type": "array", "items": component},
        })},
        "senses": {"type": "array", "items": obj({"meaning": {"type": "string"}, "span": span})},
    })


class LLMError(RuntimeError):
    """The endpoint did not give a usable reply (names the entry and the reason)."""


def paginate(raw: str, page_chars: int) -> list[str]:
    """Split an entry's raw text into pages of at most ``page_chars`` characters.

    Pages are runs of whole lines; a line longer than a page (a long 說解) is split after
    a 。. Every page is a contiguous substring of ``raw``, so spans read from a page are
    spans of the entry.
    """
    pieces: list[tuple[str, str]] = []  # (separator before it in raw, text)
    for li, line in enumerate(raw.split("\n")):
        sep = "\n" if li else ""
        start = 0
        while True:
            end = min(len(line), start + page_chars)
            if end < len(line):
                cut = line.rfind("。", start, end)
                end = cut + 1 if cut > start else end
            pieces.append((sep if start == 0 else "", line[start:end]))
            start = end
            if start >= len(line):
                break
    pages: list[str] = []
    for sep, text in pieces:
        if pages and len(pages[-1]) + len(sep) + len(text) <= page_chars:
            pages[-1] += sep + text
        else:
            pages.append(text)
    return [p for p in pages if p.strip()]


class LLMStructurizer:
    """Structurize Shuowen entries with an OpenAI-compatible chat endpoint.

    ``base_url``: e.g. ``http://127.0.0.1:8000/v1``; ``model``: the served model name;
    ``api_key``: sent as a Bearer token when given. ``max_tokens`` is the first budget,
    doubled on ``finish_reason == "length"`` up to ``max_tokens_limit``; ``page_chars``
    and ``page_senses`` trigger paged mode; ``timeout`` (seconds per attempt) and
    ``max_retries`` (after a connection error, a timeout, 408/409/429 or 5xx) are the
    project's one client's (``hub.openai_client.ChatClient``); ``retries`` asks again after
    a reply that is not a JSON object.
    """

    name = "llm"
    io_bound = True

    def __init__(self, base_url: str, model: str, api_key: str | None = None, *, max_tokens: int = 1024,
                 max_tokens_limit: int = 8192, page_chars: int = 400, page_senses: int = 3,
                 temperature: float = 0.0, timeout: float = DEFAULT_TIMEOUT, max_retries: int = DEFAULT_MAX_RETRIES,
                 retries: int = 2):
        self.client = ChatClient(base_url, model, api_key=api_key, timeout=timeout, max_retries=max_retries)
        self.base_url = self.client.base_url
        self.model = model
        self.max_tokens = max_tokens
        self.max_tokens_limit = max_tokens_limit
        self.page_chars = page_chars
        self.page_senses = page_senses
        self.temperature = temperature
        self.retries = retries
        self.rules = RuleStructurizer()
        self.skipped = SkipLog()
        self.calls = 0
        self.cache: ReplyCache | None = None

    def fingerprint(self) -> str:
        """What determines this structurizer's output (enters the build's checkpoint key)."""
        return f"llm:{self.model}:{self.base_url}:{self.max_tokens}:{self.page_chars}:{self.page_senses}:{PROMPT_VERSION}"

    def attach_cache(self, path: Path) -> None:
        """Use (and extend) a reply cache at ``path`` (``hub.openai_client.ReplyCache``)."""
        self.cache = ReplyCache(path)

    # -- one request ------------------------------------------------------------------

    def ask(self, head: str, page: str, name: str) -> dict:
        """The parsed JSON reply for one page (cached by model, prompt version and page).
        Raises :class:`LLMError`."""
        key = cache_key(self.model, PROMPT_VERSION, f"{head}\n{page}")
        if self.cache is not None and self.cache.get(key) is not None:
            return self.cache.get(key)
        reply = self._request(head, page, name)
        if self.cache is not None:
            self.cache.put(key, reply)
        return reply

    def _request(self, head: str, page: str, name: str) -> dict:
        user = f"字頭：{head}\n條目原文（span 必須逐字取自此處）：\n{page}"
        messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]
        response_format = {"type": "json_schema",
                           "json_schema": {"name": "shuowen_reading", "strict": True, "schema": response_schema()}}
        max_tokens, errors = self.max_tokens, []
        while True:
            self.calls += 1
            try:
                reply = self.client.complete(messages, temperature=self.temperature, response_format=response_format,
                                             max_tokens=max_tokens)
            except ChatError as exc:
                raise LLMError(f"{name}: request failed: {exc}") from exc
            if reply.finish_reason == "length":
                if max_tokens >= self.max_tokens_limit:
                    raise LLMError(f"{name}: reply still truncated at max_tokens={max_tokens}")
                max_tokens = min(max_tokens * 2, self.max_tokens_limit)
                continue
            try:
                parsed = json.loads(reply.text)
                if not isinstance(parsed, dict):
                    raise ValueError("reply is not a JSON object")
                return parsed
            except ValueError as exc:
                errors.append(f"invalid JSON reply: {exc}")
                if len(errors) > self.retries:
                    raise LLMError(f"{name}: {'; '.join(errors)}") from exc

    # -- an entry ---------------------------------------------------------------------

    def pages(self, entry: ShuowenEntry) -> list[str]:
        """The pages of an entry (one page unless it is long or has many senses)."""
        if len(entry.raw) <= self.page_chars and entry.explanation.count("一曰") < self.page_senses:
            return [entry.raw]
        limit = self.page_chars
        if entry.explanation.count("一曰") >= self.page_senses:
            limit = min(limit, max(40, len(entry.raw) // (entry.explanation.count("一曰") + 1)))
        return paginate(entry.raw, limit)

    def structurize(self, entry: Entry) -> list[SourceReading]:
        """Readings of one entry; Shuowen through the model, everything else by rules."""
        if not isinstance(entry, ShuowenEntry):
            return self.rules.structurize(entry)
        try:
            replies = [self.ask(entry.character, page, f"shuowen:{entry.entry_id}") for page in self.pages(entry)]
        except LLMError as exc:
            self.skipped.add("shuowen", f"data/{entry.entry_id}.json", f"LLM structurizer failed ({exc}); "
                             "rule-based reading used instead", kind="llm-failed")
            return self.rules.structurize(entry)
        readings = self._to_readings(entry, merge_replies(replies))
        # 段玉裁's stated class keeps its rule (the model reads 許慎's text only).
        readings += [r for r in structurize_shuowen(entry) if r.source == "duan"]
        texts = {entry.key: entry.raw}
        if entry.duan is not None:
            texts[entry.duan.key] = entry.duan.raw
        return [enforce(r, texts) for r in readings]

    def _prov(self, entry: Entry, span: str, field: str) -> Provenance:
        return Provenance(source=entry.source, entry_id=entry.entry_id, span=span or "", rule=f"llm:{self.model}:{field}")

    def _components(self, entry: Entry, items: list) -> list[Component]:
        out: list[Component] = []
        for c in items or []:
            if not isinstance(c, dict) or not isinstance(c.get("name"), str) or not c["name"].strip():
                continue
            fns = [f for f in c.get("functions") or [] if f in labels.FUNCTIONS]
            comp = Component(name=canonical(c["name"].strip()), functions=list(dict.fromkeys(fns)),
                             provenance=[self._prov(entry, c.get("span") or "", "component")])
            if c.get("interpretation"):
                comp.interpretation = str(c["interpretation"])
                comp.interpretation_provenance = [self._prov(entry, c.get("interpretation_span") or "", "interpretation")]
            out.append(comp)
        return out

    def _to_readings(self, entry: ShuowenEntry, reply: dict) -> list[SourceReading]:
        head = entry.character
        r = SourceReading(source="shuowen", entry_key=entry.key, character=head)
        om = reply.get("original_meaning")
        if isinstance(om, dict) and om.get("value"):
            r.original_meaning = GStr(value=str(om["value"]), provenance=[self._prov(entry, om.get("span") or "", "gloss")])
        fm = reply.get("formation")
        if isinstance(fm, dict) and fm.get("label") in labels.FORMATIONS:
            yi = bool(fm.get("yisheng")) and fm["label"] == "形声"
            r.formation = GFormation(value=Formation(label=fm["label"], yisheng=yi),
                                     provenance=[self._prov(entry, fm.get("span") or "", "formation")])
        r.components = self._components(entry, reply.get("components"))
        for s in reply.get("senses") or []:
            if isinstance(s, dict) and s.get("meaning"):
                r.senses.append(Sense(meaning=str(s["meaning"]), provenance=[self._prov(entry, s.get("span") or "", "sense")]))
        rule_readings = structurize_shuowen(entry)  # readings (反切, pinyin) are fields, not text
        r.readings = rule_readings[0].readings
        out = [r]
        for v in reply.get("variants") or []:
            if not isinstance(v, dict) or not isinstance(v.get("form"), str) or len(v["form"].strip()) != 1:
                continue
            kind = v.get("kind") if v.get("kind") in VARIANT_KINDS else "異體"
            vcomps = self._components(entry, v.get("components"))
            prov = self._prov(entry, v.get("span") or "", "variant")
            r.variants.append(Variant(form=v["form"].strip(), kind=kind, components=vcomps, provenance=[prov]))
            vr = SourceReading(source="shuowen", entry_key=entry.key, character=v["form"].strip(), head=head,
                               form_kind=kind, components=vcomps, readings=[x.model_copy() for x in r.readings],
                               # no analysis from the head (see structurize.structurize_shuowen)
                               original_meaning=r.original_meaning.model_copy(deep=True) if r.original_meaning else None)
            out.append(vr)
        return out


def merge_replies(replies: list[dict]) -> dict:
    """Merge the replies of an entry's pages: first gloss and class, components and
    variants united (functions merged per name), senses concatenated."""
    if len(replies) == 1:
        return replies[0]
    out: dict = {"original_meaning": None, "formation": None, "components": [], "variants": [], "senses": []}
    for rep in replies:
        if not isinstance(rep, dict):
            continue
        for k in ("original_meaning", "formation"):
            if out[k] is None and rep.get(k):
                out[k] = rep[k]
        for c in rep.get("components") or []:
            if not isinstance(c, dict):
                continue
            have = next((x for x in out["components"] if x.get("name") == c.get("name")), None)
            if have is None:
                out["components"].append(dict(c))
            else:
                have["functions"] = list(dict.fromkeys((have.get("functions") or []) + (c.get("functions") or [])))
        for v in rep.get("variants") or []:
            if isinstance(v, dict) and not any(x.get("form") == v.get("form") for x in out["variants"]):
                out["variants"].append(v)
        out["senses"] += [s for s in rep.get("senses") or [] if isinstance(s, dict)]
    return out
