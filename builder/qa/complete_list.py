"""Whether a component list may present itself as complete (COMR / COMP_FULL questions).

A component list is asked as "the components of this glyph"; a reviewer counts it wrong when
the glyph has a part the list lacks. Shuowen says so in three ways the records' component
lists (built from 「从X」 / 「X聲」 and the IDS) can miss:

- a 省 part that is no component (穩 「从禾，隱省」 listed as 禾 alone): :func:`unlisted_sheng`;
- a drawn part 「X象形」 that is no component (胃 「从肉，𡇒象形」): :func:`unlisted_pictograph`;
- a drawn part described by a 象 clause beside the formula, 合体象形 in the later
  terminology (羊 「从𦫳，象頭角足尾之形」: 𦫳 is only the horns; 鬼 「从人，象鬼頭」; 果
  「从木，象果形在木之上」), when every listed component is one the 从 clauses name (an extra
  component the IDS supplies, as 田 of 果 in the regular script, is taken to be the drawn
  part): :func:`unlisted_drawn_part` (data review 12-04, round 4: 羊, 鬼);
- a part named outside the 从 clause and said what it is (冃 「从冂；二，其飾也」):
  :func:`unlisted_named_part`;
- a part the IDS draws as a first-level operand and the analysis names outside its 从 clause
  (雙 「从雔，又持之」, IDS ⿱雔又, listed as 雔 alone): :func:`unlisted_ids_part`.

Not a drawn part: the gloss 「象也」 (佀, 效), 「亦象…」 and 「…亦象形」 (the whole graph is also
a picture: 曰, 升), a clause ending 聲, a 象 clause in an 「一曰」 sentence, and one that follows
a clause naming a listed component (屋 「尸，象屋形」: the 象 clause says what 尸 depicts).
"""

from __future__ import annotations

import re

from builder.qa.component_names import ids_operands, same_component
from builder.qa.evidence import parse_shuowen_raw
from builder.schema import GlyphRecord

_HAN = r"[\u3400-\u4dbf\u4e00-\u9fff\U00020000-\U0003134f]"
_FROM = re.compile(rf"^[从從]({_HAN}+?)(?:省)?$")


def unlisted_sheng(comps) -> bool:
    """Whether a Shuowen analysis the components (``CompFact`` list) cite names a 省 part that
    is no component (穩 「从禾，隱省」 listed as 禾 alone, data review 12-04)."""
    for cf in comps:
        for p in cf.provenance:
            if p.source != "shuowen":
                continue
            for m in re.finditer(r"(\w)省", p.span):
                if m.group(1) not in "从從亦" and not any(same_component(m.group(1), x.name) for x in comps):
                    return True
    return False


def _explanations(record: GlyphRecord) -> list[str]:
    return [parse_shuowen_raw(text)["explanation"] for key, text in record.raw.items() if key.startswith("shuowen:")]


def unlisted_pictograph(record: GlyphRecord, comps) -> bool:
    """Whether the head's Shuowen analysis names a drawn part 「X象形」 that is no component
    (胃 「从肉，𡇒象形」 listed as 肉 alone, data review 12-04)."""
    for expl in _explanations(record):
        for m in re.finditer(r"([^\W从從亦象])象形", expl):
            if not any(same_component(m.group(1), x.name) for x in comps):
                return True
    return False


def _drawn_clause(clauses: list[str], names: list[str]) -> bool:
    """Whether a sentence's clauses hold 「从X」 then a 象 clause describing a part of its own."""
    seen_from = False
    for i, cl in enumerate(clauses):
        if _FROM.match(cl):
            seen_from = True
            continue
        if not seen_from or not cl.startswith("象") or cl.startswith(("象也", "象形")) or cl.endswith(("聲", "声")):
            continue
        if any(c in names for c in clauses[:i] if not _FROM.match(c)):
            continue
        return True
    return False


# a part Shuowen names outside its 「从」 and says what it is: 冃 「从冂；二，其飾也」, 番 「从釆；
# 田，象其掌」, 畺 「从畕；三，其界畫也」 (review of out-r7, seed 20261223: 冃 listed as 冂 alone)
_NAMED_PART = re.compile(rf"(?:^|[。；，])({_HAN})，(?:其|象)")


def unlisted_named_part(record: GlyphRecord, comps) -> bool:
    """Whether the head's Shuowen analysis names a part 「E，其…」 / 「E，象…」 that the
    component list (``CompFact`` list) lacks (冃 「从冂；二，其飾也」 listed as 冂 alone)."""
    own = {record.character, getattr(record, "traditional", None), getattr(record, "form", None)}
    for expl in _explanations(record):
        for m in _NAMED_PART.finditer(expl):
            part = m.group(1)
            if part not in own and not any(same_component(part, x.name) for x in comps):
                return True
    return False


def unlisted_drawn_part(record: GlyphRecord, comps) -> bool:
    """Whether the head's Shuowen analysis describes, beside its 「从X」, a drawn part (「象…」)
    that the component list (``CompFact`` list, names in ``.name``) lacks; see the module
    docstring for the clauses that do not count. True means the list is incomplete."""
    names = [x.name for x in comps]
    for expl in _explanations(record):
        named = set()
        for m in re.finditer(rf"[从從]({_HAN}+)", expl):
            named |= set(m.group(1))
        if not named or not all(any(same_component(n, f) for f in named) for n in names):
            continue
        for sent in re.split(r"[。；]", expl):
            if "一曰" in sent or "亦象" in sent:
                continue
            if _drawn_clause([c.strip() for c in re.split(r"[，、]", sent) if c.strip()], names):
                return True
    return False


def unlisted_ids_part(record: GlyphRecord, comps) -> bool:
    """Whether a first-level operand of the record's IDS that the head's Shuowen analysis
    also names (after its gloss, from the first 「从」 on) is missing from the component list
    (``CompFact`` list): 雙 「从雔，又持之」 with IDS ⿱雔又 listed as 雔 alone (review of
    out-r8, seed 20261224 item 96). Both sources name the part, so the list is short of one."""
    operands = [text for text, _ in ids_operands(record)]
    for expl in _explanations(record):
        start = re.search(r"[从從]", expl)
        if start is None:
            continue
        # a quotation, a reading or another sense names characters that are no parts
        analysis = re.split(r"《|讀若|一曰|凡", expl[start.start():])[0]
        for part in operands:
            if part in analysis and not any(same_component(part, x.name) for x in comps):
                return True
    return False
