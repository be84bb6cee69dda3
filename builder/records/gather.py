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
    """Per source, the candidate readings for ``form`` in the order fields are taken from."""
    out: dict[str, list[Candidate]] = {}
    direct = [_as_variant_reading(r, form, corpus) for r in _sort_direct(corpus.readings.get(form, []))]
    for r in direct:
        out.setdefault(r.source, []).append(Candidate(r))
        if r.source == "cjkvi-ids" and r.formation is None:
            for target, _kind in r.links:
                for t in corpus.readings.get(target, []):
                    if t.source == "cjkvi-ids" and t.formation is not None:
                        out["cjkvi-ids"].append(Candidate(t, f"link:{target}"))
    # a Shuowen 重文 still read like its head is the head's word: 段注's statement on the
    # head applies too
    heads = [r.head for r in direct if r.source == "shuowen" and r.head and same_word(form, r.head, corpus)]
    if heads and "duan" not in out:
        for r in corpus.readings.get(heads[0], []):
            if r.source == "duan":
                out.setdefault("duan", []).append(Candidate(r, f"head:{heads[0]}"))
    merged = form in corpus.traditional.get(form, [])
    # a character that is a Shuowen head itself (升 十龠也, 後 遲也) is analysed by its own entry,
    # never by its partner's (昇 从日升聲, 后): the two are different words written alike today
    own_head = any(r.source == "shuowen" and r.head is None for r in direct)
    for rel, other in corpus.equivalents(form):
        if rel == "traditional" and merged:
            # 复 is its own traditional form as well as the simplification of 復, 複 and 覆:
            # several words merged into one character, none of whose entries speaks for
            # 复 itself (its own Shuowen head is 𡕨 行故道也, not 復 往來也)
            continue
        for r in _sort_direct(corpus.readings.get(other, [])):
            if own_head and r.source in ("shuowen", "duan"):
                continue
            out.setdefault(r.source, []).append(Candidate(r, f"{rel}:{other}"))
    return out


def _toneless(pinyin: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", pinyin.lower()) if c.isascii() and c.isalpha())


def _pinyins(ch: str, corpus: Corpus, sources: tuple[str, ...]) -> set[str]:
    return {_toneless(p) for r in corpus.readings.get(ch, []) if r.source in sources and r.head is None
            for rd in r.readings if rd.pinyin for p in rd.pinyin.split()}


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
