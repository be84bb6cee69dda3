"""The one fidelity check every structurizer's output passes through.

A value stays only when the source text it cites supports it:

1. each provenance ``span`` is an exact substring of the cited entry's raw text;
2. the value is found in, or named by, that span: a text value (gloss, definition,
   interpretation, sense) must occur in the span (after removing punctuation and
   whitespace and folding traditional/simplified with OpenCC); an IDS must occur in it;
   a 六書 label needs its cue (形声: 聲 / pictophonetic; 亦声: 亦聲 / 兼 / 包; 会意: 會意 /
   ideographic / a 从-analysis without 聲; 象形: 象 / pictographic; 指事: 指事); a
   component needs its name (or one of its written forms, ``builder.aliases``) and each
   function its cue (表音: ``X聲`` / ``"phonetic"`` / 表音; 表意: 从 / ``"semantic"`` / 會意 /
   表意 ...); a reading's pinyin or 反切, a variant's form (or its ``U+XXXX``) and kind, the
   radical-stroke value must occur in the span.

Values that fail are removed and recorded as :class:`builder.schema.FidelityFlag` on the
reading (so an LLM that invents a field, or a rule that misfires, never reaches a record
unflagged). :func:`check_record` re-checks a finished record's spans against its ``raw``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from builder.aliases import surface_forms
from builder.schema import FidelityFlag, GlyphRecord, Provenance

_PUNCT = re.compile(r"[\s，。；、：:;,.!?！？“”‘’\"'「」『』《》〈〉()（）\[\]{}【】…—\-·|/\\]+")

_ANNOTATION = re.compile(r"(?:\[[^\]]*\]|（[^）]*）)(?=[亦省]?[聲声])")

FORMATION_CUES: dict[str, tuple[str, ...]] = {
    "形声": ("聲", "声", "pictophonetic", "形声", "形聲"),
    "会意": ("會意", "会意", "ideographic"),
    "象形": ("象", "pictographic"),
    "指事": ("指事", "指示"),
    "转注": ("轉注", "转注"),
    "假借": ("假借",),
}
YISHENG_CUES = ("亦聲", "亦声", "兼", "包", "苞")
FUNCTION_CUES: dict[str, tuple[str, ...]] = {
    "表音": ("phonetic", "表音", "provides the pronunciation"),  # makemeahanzi hints: "卖 also provides the pronunciation"
    "符号": ("符號", "符号", "記號", "记号", "指事"),
}
VARIANT_CUES: dict[str, tuple[str, ...]] = {
    "古文": ("古文",), "籒文": ("籒文", "籀文"), "或體": ("或",), "篆文": ("篆文", "小篆"),
    "俗字": ("俗",), "奇字": ("奇字",), "異體": ("",), "簡体": ("kSimplifiedVariant", "簡体", "简体", "簡"),
    "繁體": ("kTraditionalVariant", "簡体", "繁"),
}


@lru_cache(maxsize=1)
def _t2s():
    import opencc

    return opencc.OpenCC("t2s")


@lru_cache(maxsize=65536)
def norm_text(s: str) -> str:
    """Punctuation and whitespace removed, NFKC, traditional folded to simplified, lower-case."""
    s = _PUNCT.sub("", unicodedata.normalize("NFKC", s))
    return _t2s().convert(s).lower()


def text_supported(value: str, span: str) -> bool:
    """A text value is supported when it (without a final 也) occurs in the span."""
    v = value.strip()
    if v.endswith("也") and len(v) > 1:
        v = v[:-1]
    nv = norm_text(v)
    return bool(nv) and nv in norm_text(span)


def formation_supported(label: str, yisheng: bool, span: str) -> bool:
    """Whether ``span`` carries a cue for the 六書 ``label`` (and the 亦声 flag)."""
    cues = FORMATION_CUES.get(label, ())
    ok = any(c in span for c in cues)
    if label == "会意" and not ok:
        ok = bool(re.search(r"[从從]", span)) and "聲" not in span
    if label == "形声" and yisheng:
        ok = ok and (any(c in span for c in YISHENG_CUES) or ("会意" in span and "形声" in span))
    return ok


def name_supported(name: str, span: str) -> bool:
    """A component name is supported when one of its written forms (or its
    traditional/simplified form) occurs in the span."""
    forms = surface_forms(name)
    if any(f in span for f in forms):
        return True
    t = _t2s().convert(span)
    return any(_t2s().convert(f) in t for f in forms)


def function_supported(fn: str, name: str, span: str) -> bool:
    """Whether the span states function ``fn`` (表意/表音/符号) for component ``name``.

    表音: ``X聲`` / ``X省聲`` / ``X亦聲`` for a written form X of the name, or a
    ``"phonetic"`` / 表音 label. 表意: the name in a 从-run, ``X亦聲``, the other part of an
    ``…聲`` analysis, or a ``"semantic"`` / 會意 / 表意 / hint label; never for a name the
    span gives only as a phonetic (``工`` in ``从水工聲``).
    """
    forms = surface_forms(name)
    # a bracketed alternative form or an editor's parenthesis may sit between X and 聲
    span = _ANNOTATION.sub("", span)
    if fn == "表音":
        if any(c in span for c in FUNCTION_CUES["表音"]):
            return True
        return _followed_by(span, forms, ("聲", "声", "亦聲", "亦声", "省聲", "省声"))
    if fn == "表意":
        if _followed_by(span, forms, ("亦聲", "亦声")):
            return True
        if any(c in span for c in ("semantic", "會意", "会意", "表意", "hint", "ideographic", "之意")):
            return True
        if _followed_by(span, forms, ("聲", "声", "省聲", "省声")):
            return False  # named as the phonetic only
        if _in_cong_run(span, forms) or _followed_by(span, forms, ("見而",)):
            return True  # 从X; 小 「丨見而分之」: 丨 is shown
        return "聲" in span or "声" in span  # the non-phonetic part of an X聲 analysis
    return any(c in span for c in FUNCTION_CUES.get(fn, ()))


def _followed_by(span: str, forms: set[str], tails: tuple[str, ...]) -> bool:
    for f in forms:
        i = span.find(f)
        while i >= 0:
            if span.startswith(tails, i + len(f)):
                return True
            i = span.find(f, i + 1)
    return False


def _in_cong_run(span: str, forms: set[str]) -> bool:
    """Whether a form occurs after a 从/從 within the same clause."""
    for f in forms:
        i = span.find(f)
        while i >= 0:
            j = max(span.rfind("从", 0, i), span.rfind("從", 0, i))
            if j >= 0 and not any(p in span[j:i] for p in "，。；"):
                return True
            i = span.find(f, i + 1)
    return False


def span_in_source(p: Provenance, texts: dict[str, str]) -> str | None:
    """None when ``p.span`` is a substring of its entry's raw text, else the reason."""
    raw = texts.get(f"{p.source}:{p.entry_id}")
    if raw is None:
        return f"no raw text for {p.source}:{p.entry_id}"
    if not p.span or p.span not in raw:
        return f"span {p.span[:40]!r} is not in {p.source}:{p.entry_id}"
    return None


class _Checker:
    def __init__(self, texts: dict[str, str]):
        self.texts = texts
        self.flags: list[FidelityFlag] = []

    def ok(self, field: str, value: str, provs: list[Provenance], test) -> bool:
        """True when some provenance's span is in its source and ``test(span)`` holds."""
        reasons = []
        for p in provs:
            bad = span_in_source(p, self.texts)
            if bad:
                reasons.append(bad)
                continue
            if test(p.span):
                return True
            reasons.append(f"{p.source}:{p.entry_id} span {p.span[:40]!r} does not support it")
        first = provs[0] if provs else None
        self.flags.append(FidelityFlag(field=field, value=str(value)[:200],
                                       reason="; ".join(reasons) or "no provenance",
                                       source=first.source if first else None,
                                       span=first.span[:200] if first else None))
        return False


def enforce(reading, texts: dict[str, str], *, copy: bool = False):
    """Check every value of a :class:`builder.records.structurize.SourceReading` against ``texts``.

    ``texts`` maps ``"<source>:<entry_id>"`` to raw text. Removes the unsupported values
    (in place, or from a deep copy with ``copy=True``), appends one
    :class:`FidelityFlag` per removed value to ``flags`` and returns the reading.
    """
    r = reading.model_copy(deep=True) if copy else reading
    ck = _Checker(texts)
    if r.original_meaning and not ck.ok("original_meaning", r.original_meaning.value, r.original_meaning.provenance,
                                        lambda s: text_supported(r.original_meaning.value, s)):
        r.original_meaning = None
    if r.definition_en and not ck.ok("definition_en", r.definition_en.value, r.definition_en.provenance,
                                     lambda s: text_supported(r.definition_en.value, s)):
        r.definition_en = None
    if r.evolution and not ck.ok("evolution", r.evolution.value, r.evolution.provenance,
                                 lambda s: text_supported(r.evolution.value, s)):
        r.evolution = None
    if r.special_structure and not ck.ok("special_structure", r.special_structure.value, r.special_structure.provenance,
                                         lambda s: text_supported(r.special_structure.value, s)):
        r.special_structure = None
    if r.radical_stroke and not ck.ok("radical_stroke", r.radical_stroke.value, r.radical_stroke.provenance,
                                      lambda s: r.radical_stroke.value in s):
        r.radical_stroke = None
    if r.formation:
        f = r.formation.value
        if not ck.ok("formation", f.label + ("+亦声" if f.yisheng else ""), r.formation.provenance,
                      lambda s: formation_supported(f.label, f.yisheng, s)):
            r.formation = None
    r.ids_options = [o for o in r.ids_options
                     if ck.ok("ids", o.ids, o.provenance, lambda s, o=o: o.ids in s)]
    r.components = _check_components(ck, "components", r.components)
    r.inherited_components = _check_components(ck, "inherited_components", r.inherited_components)
    readings = []
    for rd in r.readings:
        if rd.pinyin and not ck.ok("readings.pinyin", rd.pinyin, rd.provenance,
                                   lambda s, v=rd.pinyin: v in unicodedata.normalize("NFC", s.replace("\u0261", "g"))):
            continue
        if rd.fanqie and not ck.ok("readings.fanqie", rd.fanqie, rd.provenance, lambda s, v=rd.fanqie: v in s):
            continue
        readings.append(rd)
    r.readings = readings
    variants = []
    for v in r.variants:
        if not ck.ok(f"variants[{v.form}]", f"{v.form} {v.kind}", v.provenance,
                     lambda s, v=v: (v.form in s or f"U+{ord(v.form):04X}" in s)
                     and any(c in s for c in VARIANT_CUES.get(v.kind, ("",)))):
            continue
        v.components = _check_components(ck, f"variants[{v.form}].components", v.components)
        variants.append(v)
    r.variants = variants
    r.senses = [s for s in r.senses
                if ck.ok("senses", s.meaning, s.provenance, lambda sp, s=s: text_supported(s.meaning, sp))]
    r.flags = list(r.flags) + ck.flags
    return r


def _check_components(ck: _Checker, field: str, comps):
    kept = []
    for c in comps:
        if not ck.ok(f"{field}[{c.name}].name", c.name, c.provenance, lambda s, c=c: name_supported(c.name, s)):
            continue
        c.functions = [fn for fn in c.functions
                       if ck.ok(f"{field}[{c.name}].functions", fn, c.provenance,
                                lambda s, fn=fn, c=c: function_supported(fn, c.name, s))]
        if c.interpretation and not ck.ok(f"{field}[{c.name}].interpretation", c.interpretation,
                                          c.interpretation_provenance,
                                          lambda s, c=c: text_supported(c.interpretation, s)):
            c.interpretation = None
            c.interpretation_provenance = []
        kept.append(c)
    return kept


def record_provenance(record: GlyphRecord):
    """Every (field path, Provenance) of a record."""
    out = []

    def add(path, provs):
        out.extend((path, p) for p in provs)

    for name in ("structure", "ids", "formation", "original_meaning", "definition_en", "evolution",
                 "special_structure", "radical_stroke"):
        g = getattr(record, name)
        if g is not None:
            add(name, g.provenance)
    for c in record.components:
        add(f"components[{c.name}]", c.provenance)
        add(f"components[{c.name}].interpretation", c.interpretation_provenance)
        add(f"components[{c.name}].evolution_type", c.evolution_provenance)
    for rd in record.readings:
        add("readings", rd.provenance)
    for v in record.variants:
        add(f"variants[{v.form}]", v.provenance)
        for c in v.components:
            add(f"variants[{v.form}].components[{c.name}]", c.provenance)
    for s in record.senses:
        add("senses", s.provenance)
    return out


def check_record(record: GlyphRecord) -> list[str]:
    """Problems with a finished record's provenance: each span must be an exact substring
    of ``record.raw["<source>:<entry_id>"]`` (values derived by ``rule`` are exempt).
    Returns one message per bad span (empty when all hold)."""
    problems = []
    for path, p in record_provenance(record):
        if p.source == "rule":
            continue
        bad = span_in_source(p, record.raw)
        if bad:
            problems.append(f"{record.id} {path}: {bad}")
    return problems
