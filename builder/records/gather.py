"""What alignment reads: every reading of a character and of its counterparts, gathered.

:class:`Corpus` indexes the readings by the form they analyse, with Unihan's traditional /
simplified links (OpenCC when Unihan is silent) and every variant link; :func:`gather`
collects, per source, the readings a record ``(character, script)`` may use (its own form,
a cjkvi-ids ``→X`` link's target, else its traditional / simplified counterpart) as
:class:`Candidate` values ranked by :data:`PRIORITY` (:func:`_rank`); :func:`same_word`
tells when a counterpart's reading is the same word. Read by
:func:`builder.records.align.align`.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from builder.records.structurize import SourceReading
from builder.schema import Provenance


PRIORITY: tuple[str, ...] = ("shuowen", "duan", "cjkvi-ids", "makemeahanzi", "unihan", "jiezi-official")


@lru_cache(maxsize=1)
def _s2t():
    import opencc

    return opencc.OpenCC("s2t")


@lru_cache(maxsize=1)
def _t2s():
    import opencc

    return opencc.OpenCC("t2s")


@dataclass
class Corpus:
    """Everything alignment needs: readings by form, raw texts, variant links.

    ``traditional[c]`` / ``simplified[c]``: Unihan kTraditionalVariant / kSimplifiedVariant
    of c; ``variants[c]``: every Unihan variant of c (both directions), used to match
    component names across traditional/simplified/semantic variants.
    """

    readings: dict[str, list[SourceReading]] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    traditional: dict[str, list[str]] = field(default_factory=dict)
    simplified: dict[str, list[str]] = field(default_factory=dict)
    variants: dict[str, set[str]] = field(default_factory=dict)
    reverse_links: dict[str, list[tuple[str, str, SourceReading]]] = field(default_factory=dict)
    simplified_only: frozenset[str] = frozenset()

    def add(self, reading: SourceReading) -> None:
        """Index one reading by the form it analyses (and its links by their target)."""
        self.readings.setdefault(reading.character, []).append(reading)
        for target, kind in reading.links:
            self.reverse_links.setdefault(target, []).append((reading.character, kind, reading))

    def equivalents(self, ch: str) -> list[tuple[str, str]]:
        """(relation, character) pairs of ch's traditional and simplified counterparts."""
        out: list[tuple[str, str]] = []
        trad = [t for t in self.traditional.get(ch, []) if t != ch]
        if not trad and ch not in self.traditional:
            t = _s2t().convert(ch)
            if t != ch:
                trad = [t]
        # OpenCC's choice first among several (发 -> 發 before 髮)
        oc = _s2t().convert(ch)
        trad.sort(key=lambda t: t != oc)
        out += [("traditional", t) for t in trad]
        simp = [s for s in self.simplified.get(ch, []) if s != ch]
        if not simp and ch not in self.simplified:
            s = _t2s().convert(ch)
            if s != ch:
                simp = [s]
        out += [("simplified", s) for s in simp]
        return out


def _rank(source: str) -> int:
    return PRIORITY.index(source) if source in PRIORITY else len(PRIORITY)


def _via(provs: list[Provenance], via: str | None) -> list[Provenance]:
    if not via:
        return [p.model_copy() for p in provs]
    return [p.model_copy(update={"rule": f"{p.rule}@{via}"}) for p in provs]


@dataclass
class Candidate:
    """One source's reading considered for a record, and how it was reached."""

    reading: SourceReading
    via: str | None = None  # None: the form itself; else "link:X", "traditional:X", "simplified:X", "head:X"

    @property
    def source(self) -> str:
        return self.reading.source


def _sort_direct(readings: list[SourceReading]) -> list[SourceReading]:
    # Shuowen: an entry whose head is the form before an entry listing it as a 重文.
    return sorted(readings, key=lambda r: (_rank(r.source), r.form_kind is not None))


def gather(form: str, corpus: Corpus) -> dict[str, list[Candidate]]:
    """Per source, the candidate readings for ``form`` in the order fields are taken from.

    Another character's reading is a candidate only where it is the same word written
    another way (:func:`same_word_link`: a one-to-one traditional / simplified pair, or a
    variant Unihan records), never a character that is a part of the other (丽 in 麗), and
    never the head of a 重文 for its analysis (a 古文 / 籒文 is drawn differently; only
    段注's gloss on the head of a 重文 still read like it is offered, ``head:X``).
    """
    out: dict[str, list[Candidate]] = {}
    direct = [_as_variant_reading(r, form, corpus) for r in _sort_direct(corpus.readings.get(form, []))]
    direct = without_homograph_entries(direct, form, corpus)
    for r in direct:
        out.setdefault(r.source, []).append(Candidate(r))
        if r.source == "cjkvi-ids" and r.formation is None:
            for target, kind in r.links:
                if not same_word_link(form, target, kind, corpus):
                    continue
                for t in corpus.readings.get(target, []):
                    if t.source == "cjkvi-ids" and t.formation is not None:
                        out["cjkvi-ids"].append(Candidate(t, f"link:{target}"))
    # a Shuowen 重文 still read like its head is the head's word: 段注's gloss on the head
    # applies too (never his class: the 重文 is drawn differently)
    heads = [r.head for r in direct if r.source == "shuowen" and r.head and same_word(form, r.head, corpus)]
    if heads and "duan" not in out:
        for r in corpus.readings.get(heads[0], []):
            if r.source == "duan":
                out.setdefault("duan", []).append(Candidate(r, f"head:{heads[0]}"))
    merged = form in corpus.traditional.get(form, []) and form not in corpus.simplified_only
    # a character that is a Shuowen head itself (升 十龠也, 後 遲也) is analysed by its own entry,
    # never by its partner's (昇 从日升聲, 后): the two are different words written alike today
    own_head = any(r.source == "shuowen" and r.head is None for r in direct)
    for rel, other in corpus.equivalents(form):
        if rel == "traditional" and merged:
            # 复 is its own traditional form as well as the simplification of 復, 複 and 覆:
            # several words merged into one character, none of whose entries speaks for
            # 复 itself (its own Shuowen head is 𡕨 行故道也, not 復 往來也)
            continue
        if not same_word_link(form, other, "簡体" if rel == "traditional" else "繁體", corpus):
            continue
        for r in _sort_direct(corpus.readings.get(other, [])):
            if own_head and r.source in ("shuowen", "duan"):
                continue
            out.setdefault(r.source, []).append(Candidate(r, f"{rel}:{other}"))
    return out


# cjkvi-ids / Shuowen kinds of a 重文: a form drawn otherwise than its head
CHONGWEN_KINDS = frozenset({"古文", "籒文", "或體", "俗字", "篆文", "奇字"})


def one_to_one(a: str, b: str, corpus: Corpus) -> bool:
    """Whether ``a`` and ``b`` are a one-to-one traditional / simplified pair in Unihan
    (邓 / 鄧, 实 / 實: each the other's only counterpart; not 发, which also stands for 髮).
    True where Unihan links neither way (the pair is OpenCC's, used only then)."""
    if b in corpus.traditional.get(a, []) or a in corpus.simplified.get(b, []):
        t, s = b, a
    elif a in corpus.traditional.get(b, []) or b in corpus.simplified.get(a, []):
        t, s = a, b
    else:
        return True
    trads = [x for x in corpus.traditional.get(s, []) if x != s]
    simps = [x for x in corpus.simplified.get(t, []) if x != t]
    return trads in ([t], []) and simps in ([s], [])


def part_of(a: str, b: str, corpus: Corpus) -> bool:
    """Whether ``a`` is a part of ``b``: a leaf of cjkvi-ids' IDS of ``b``, or a component
    of an analysis of ``b`` (丽 in 麗 「从鹿丽聲」, 它 in 蛇 ⿰虫它). makemeahanzi's drawing
    decomposition is not asked: it writes 飛 with its simplified 飞 (⿹飞⿻？飞)."""
    for r in corpus.readings.get(b, []):
        if r.head is not None:
            continue
        if r.source == "cjkvi-ids" and any(a in o.ids for o in r.ids_options):
            return True
        if r.source != "makemeahanzi" and any(c.name == a for c in r.components):
            return True
    return False


def same_word_link(form: str, other: str, kind: str, corpus: Corpus) -> bool:
    """Whether ``other``'s reading may speak for ``form`` (issue 20/21 review): the two
    are the same word written two ways, a one-to-one traditional / simplified pair
    (``kind`` 簡体 / 繁體; not 发, which also stands for 髮) or a glyph form cjkvi-ids links
    without a kind (翌 →翊), and neither is a part of the other (丽 in 麗); never a 重文
    kind (楍 ←本 古文, 𩔯 ←頰 籒文: drawn differently). Whether the analysis is true of the
    form (寢 →㝲, 秀 →秂, 朋 →鳳 draw none of the linked parts) is
    :func:`builder.records.align.analysis_true_of_form`'s check."""
    if other == form or kind in CHONGWEN_KINDS:
        return False
    if part_of(form, other, corpus) or part_of(other, form, corpus):
        return False
    if kind in ("簡体", "繁體"):
        return one_to_one(form, other, corpus)
    return True


def _toneless(pinyin: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", pinyin.lower()) if c.isascii() and c.isalpha())


def _pinyins(ch: str, corpus: Corpus, sources: tuple[str, ...]) -> set[str]:
    return {_toneless(p) for r in corpus.readings.get(ch, []) if r.source in sources and r.head is None
            for rd in r.readings if rd.pinyin for p in rd.pinyin.split()}


def _entry_pinyins(r: SourceReading) -> set[str]:
    # the source writes the IPA ɡ (U+0261) in 「ɡuā」
    return {_toneless(p.replace("ɡ", "g")) for rd in r.readings if rd.pinyin for p in rd.pinyin.split()}


def without_homograph_entries(direct: list[SourceReading], form: str, corpus: Corpus) -> list[SourceReading]:
    """``direct`` without the Shuowen (and 段注) entries of another word written with the same
    head: where ``form`` heads two or more entries and some are read as the modern sources
    (Unihan, makemeahanzi) read ``form`` (toneless pinyin), the others go. 舌 heads 「在口，所以言
    也」 (食列切 shé) and 「塞口也。从口，氒省聲」 (古活切 guā, the graph 𠯑): the record of 舌 took the
    second's analysis (review of out-r8, seed 20261224 item 106). Unchanged when no entry or
    every entry matches, or there are no modern readings."""
    own = [r for r in direct if r.source == "shuowen" and r.head is None]
    modern = _pinyins(form, corpus, ("unihan", "makemeahanzi"))
    if len(own) < 2 or not modern:
        return direct
    other = {r.entry_key.partition(":")[2] for r in own if not (_entry_pinyins(r) & modern)}
    if not other or len(other) == len(own):
        return direct
    return [r for r in direct if not (r.source in ("shuowen", "duan") and r.entry_key.partition(":")[2] in other)]


def same_word(variant: str, head: str, corpus: Corpus) -> bool:
    """Whether the Shuowen 重文 ``variant`` is still read like its ``head`` (a shared
    toneless pinyin between the variant's Unihan / makemeahanzi readings and the head's
    Shuowen / Unihan ones), so that the head's gloss and readings are the variant's word's:
    明 míng (古文 of 朙 míng) yes, 隼 sǔn (或體 of 鵻 zhuī) no. False when either has no
    reading (a gloss is not inherited on no evidence)."""
    mine = _pinyins(variant, corpus, ("unihan", "makemeahanzi"))
    theirs = _pinyins(head, corpus, ("shuowen", "unihan"))
    return bool(mine & theirs)


def _as_variant_reading(r: SourceReading, form: str, corpus: Corpus) -> SourceReading:
    """``r`` without the head's gloss, readings and kept parts when ``r`` is a Shuowen
    重文's reading and :func:`same_word` says the variant is another word now (隼 under 鵻)."""
    if r.source != "shuowen" or not r.head or same_word(form, r.head, corpus):
        return r
    return r.model_copy(update={"original_meaning": None, "readings": [], "inherited_components": []})
