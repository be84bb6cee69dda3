"""Sound-glosses (声训): a Shuowen gloss that explains a word by a word that sounds like it.

許慎 often glosses a head by a near-homophone (羊，祥也; 母，牧也; 古，故也; 日，實也; 門，聞也):
the gloss states a sound-meaning association of Han scholarship, not the word's original
meaning, so it is no reference for an "original meaning" (ORIM) question (issue 21).

The rule, exactly (:func:`is_sound_gloss`). A gloss is cut into its sentences (。); a
sentence is a *sound-gloss of head H* when, after dropping a final 也 and punctuation, it
is one or two Han characters, none of them H itself, and

- one character: it is a near-homophone of H: (a) some Mandarin reading of each has the
  same rhyme (the final, tone ignored, without its medial i / u / ü before a, e, o: 叠韻;
  the apical vowel of zhi/chi/shi/ri/zi/ci/si is its own rhyme, not the i of li/ji; y-/w-
  spellings are read as the medials they write: yang = iang, wen = uen), which covers
  homophones (母 mǔ / 牧 mù) and rhyming pairs (羊 yáng / 祥 xiáng, 門 mén / 聞 wén); or (b) their Guangyun 反切 (Unihan ``kFanqie``) are identical or share
  the lower speller (反切下字, the same rhyme: 疊韻);
- two characters: one of them is a homophone of H: the same Mandarin syllable (tone
  ignored) or an identical 反切 (a two-character gloss such as 惡疾 for 癘, whose 疾 only
  rhymes with 癘, is a real definition).

Readings are Unihan's (``kMandarin``, ``kHanyuPinyin``, ``kXHC1983``: every Mandarin reading
it lists; ``kFanqie``), read from ``Unihan_Readings.txt`` of the source cache
(:func:`load_readings`); a character Unihan gives no reading for is never a near-homophone
(the rule fails open: it keeps the gloss).

A one-character gloss that only alliterates with the head (雙聲: the same 反切 upper speller
or Mandarin initial) counts too when the next sentence opens with the gloss character to
explain the pun (木「冒也。冒地而生」); alliteration alone is not enough (改「更也」 is a
synonym).

A gloss that opens with a sound-gloss yields no ORIM question (the stage counts it under
``missing:ORIM:sound-gloss:original_meaning``) unless a later sentence of the gloss
defines the head (戶「護也。半門曰戶」 -> 半門曰戶; :func:`strip_sound_gloss`).

Duan names some sound-glosses himself (田 「敶也」: 「田與敶古皆音陳。故以㬪韵爲訓」): a note of
his on the gloss saying 疊韻爲訓 / 㬪韵爲訓 / 雙聲爲訓 / 以同音爲訓 / 聲訓 marks it a
sound-gloss whatever the modern readings say (:func:`duan_marks_sound_gloss`; review of
out-r5, 12-19).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from builder.sources import registry

READING_FIELDS = ("kMandarin", "kHanyuPinyin", "kXHC1983", "kFanqie")
_INITIALS = ("zh", "ch", "sh", "b", "p", "m", "f", "d", "t", "n", "l", "g", "k", "h", "j", "q", "x",
             "r", "z", "c", "s")
_APICAL = frozenset({"zhi", "chi", "shi", "ri", "zi", "ci", "si"})
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\U00020000-\U0003134f]")
_PUNCT = re.compile(r"[\s，、；：。．“”「」『』（）()\[\]]")


# a sentence after a sound-gloss that is a note, not a definition: a dialect or usage note
# (拓 「陳、宋語」), whose word it is (𥁕 「官溥說」), a form or reading note (洒 「古文爲灑埽字」)
# or what a part of the graph does (君 「發號，故从口」, 名 「夕者，冥也…」), a scholar's
# reading (構 「杜林以爲椽桷字」), a place the word names (觻 「張掖有觻得縣」)
_NOT_A_DEFINITION = re.compile(r"語$|說$|[从從]|古文|讀|會意|聲$|[“”《]|^\w者，|以爲|有.{1,4}縣")
# Shuowen's class words (楊 「木也」, 江 「水」): the kind of thing the head names
CLASS_WORDS = frozenset("木艸魚鳥水蟲虫獸禾竹玉石山邑")


@dataclass
class Readings:
    """Unihan readings per character: toneless Mandarin syllables and 反切 spellings."""

    mandarin: dict[str, frozenset[str]] = field(default_factory=dict)
    fanqie: dict[str, frozenset[str]] = field(default_factory=dict)


def toneless(pinyin: str) -> str:
    """A pinyin syllable without tone marks or digits, lower case, ü kept (``lǘ`` -> ``lü``)."""
    s = unicodedata.normalize("NFD", pinyin.strip().lower())
    s = "".join(ch for ch in s if unicodedata.category(ch) != "Mn" or ch == "\u0308")
    return unicodedata.normalize("NFC", s).replace("v", "ü").rstrip("012345")


def final_of(syllable: str) -> str:
    """The final (韵母) of a toneless pinyin syllable: ``xiang`` -> ``iang``, ``yang`` ->
    ``iang``, ``wu`` -> ``u``, ``ju`` -> ``ü``, ``shi`` -> ``-i`` (the apical vowel)."""
    s = syllable
    if s in _APICAL:
        return "-i"
    if s.startswith("y"):
        s = "ü" + s[2:] if s.startswith("yu") else ("i" + s[1:] if not s.startswith("yi") else s[1:])
    elif s.startswith("w"):
        s = "u" + s[1:] if not s.startswith("wu") else s[1:]
    else:
        for ini in _INITIALS:
            if s.startswith(ini) and len(s) > len(ini):
                s = s[len(ini):]
                if ini in "jqx" and s.startswith("u"):
                    s = "ü" + s[1:]
                break
    return {"iou": "iu", "uei": "ui", "uen": "un", "ün": "ün"}.get(s, s)


_FULL_FINALS = {"iu": "iou", "ui": "uei", "un": "uen", "ün": "üen"}


def rhyme_of(syllable: str) -> str:
    """The rhyme (韵腹 + 韵尾) of a toneless syllable: its final without the medial i / u / ü
    (叠韻 ignores the medial: 門 mén and 聞 wén share ``en``, 羊 yáng and 祥 xiáng ``ang``)."""
    f = final_of(syllable)
    f = _FULL_FINALS.get(f, f)
    return f[1:] if len(f) > 1 and f[0] in "iuü" and f[1] in "aeoê" else f


def load_readings(path: Path) -> Readings:
    """The :data:`READING_FIELDS` of ``Unihan_Readings.txt`` (tab-separated ``U+XXXX``,
    field, value). ``kHanyuPinyin`` / ``kXHC1983`` values are ``location:reading,reading``.
    Raises ``OSError`` when the file cannot be read."""
    mandarin: dict[str, set[str]] = {}
    fanqie: dict[str, set[str]] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.startswith("U+"):
                continue
            cp, fld, value = (line.rstrip("\n").split("\t") + ["", ""])[:3]
            if fld not in READING_FIELDS:
                continue
            ch = chr(int(cp[2:], 16))
            if fld == "kFanqie":
                fanqie.setdefault(ch, set()).update(value.split())
                continue
            for item in value.split():
                for r in item.split(":")[-1].split(","):
                    if r:
                        mandarin.setdefault(ch, set()).add(toneless(r))
    return Readings({k: frozenset(v) for k, v in mandarin.items()}, {k: frozenset(v) for k, v in fanqie.items()})


def near_homophone(head: str, other: str, readings: Readings, *, strict: bool = False) -> bool:
    """Whether ``other`` sounds like ``head`` by the module rule: ``strict`` asks for a
    homophone (same toneless syllable or identical 反切), else a rhyme (same final, or the
    same 反切 lower speller) is enough."""
    m_h, m_o = readings.mandarin.get(head, frozenset()), readings.mandarin.get(other, frozenset())
    f_h, f_o = readings.fanqie.get(head, frozenset()), readings.fanqie.get(other, frozenset())
    if m_h & m_o or f_h & f_o:
        return True
    if strict:
        return False
    if {rhyme_of(s) for s in m_h} & {rhyme_of(s) for s in m_o}:
        return True
    return bool({f[-1] for f in f_h if len(f) == 2} & {f[-1] for f in f_o if len(f) == 2})


def sentence_is_sound_gloss(sentence: str, head: str, readings: Readings) -> bool:
    """Whether one gloss sentence is a sound-gloss of ``head`` (module rule)."""
    core = _PUNCT.sub("", sentence)
    core = core[:-1] if core.endswith("也") and len(core) > 1 else core
    chars = [ch for ch in core if _HAN.match(ch)]
    if not chars or len(chars) != len(core) or len(chars) > 2 or head in chars:
        return False
    if len(chars) == 1:
        return near_homophone(head, chars[0], readings)
    return any(near_homophone(head, ch, readings, strict=True) for ch in chars)


# Duan's words naming a sound-gloss (any spelling of 疊 / 曡 / 㬪 and 韵 / 韻)
DUAN_SOUND_GLOSS = re.compile(r"(?:[曡疊㬪][韵韻]|雙聲|同音|音近)(?:[之以]?)爲訓|聲訓")


def duan_marks_sound_gloss(note: str, gloss: str, head: str) -> bool:
    """Whether Duan's ``note`` on a gloss says the gloss is a sound-gloss (:data:`DUAN_SOUND_GLOSS`)
    in one of its first two sentences, or in a sentence that (or whose preceding sentence)
    names the gloss word (田 「田與敶古皆音陳。故以㬪韵爲訓」): a later sentence on some
    other word's pun is not about this gloss (瀕 「水厓」: 「瀕賔以㬪韵爲訓」 is on 賓).
    ``head`` is not itself evidence (every such sentence names it)."""
    words = {ch for ch in _PUNCT.sub("", gloss).removesuffix("也") if _HAN.match(ch)} - {head}
    sents = [x for x in note.split("。") if x]
    for k, x in enumerate(sents):
        if DUAN_SOUND_GLOSS.search(x) and (k < 2 or words & set(x) or (k and words & set(sents[k - 1]))):
            return True
    return False


def _same_initial(head: str, other: str, readings: Readings) -> bool:
    """雙聲: the same Guangyun upper speller (反切上字) or the same Mandarin initial."""
    up_h = {f[0] for f in readings.fanqie.get(head, ()) if len(f) == 2}
    up_o = {f[0] for f in readings.fanqie.get(other, ()) if len(f) == 2}
    ini = lambda s: next((i for i in _INITIALS if s.startswith(i)), s[:1])  # noqa: E731
    m_h = {ini(s) for s in readings.mandarin.get(head, ())}
    return bool(up_h & up_o) or bool(m_h & {ini(s) for s in readings.mandarin.get(other, ())})


def _pun_explained(sents: list[str], head: str, readings: Readings) -> bool:
    """A one-character gloss whose next sentence opens with that character, explaining the
    pun (木「冒也。冒地而生」, 牛「件也；件，事理也」), with the same initial as the head."""
    if len(sents) < 2:
        return False
    core = _PUNCT.sub("", sents[0])
    core = core[:-1] if core.endswith("也") else core
    return len(core) == 1 and core != head and sents[1].startswith(core) and _same_initial(head, core, readings)


def old_rhyme_gloss(sentence: str, head: str, readings: Readings, old_groups: dict[str, str]) -> bool:
    """A one-character gloss sentence in the same 古韻部 as ``head`` by 段玉裁's 十七部 (the
    「N部」 his note gives after each entry's 反切, ``old_groups``: character -> 部) whose
    Mandarin rhyme is also the same once ü and u are not told apart (穀 gǔ 三部 / 續 xù 三部:
    疊韻 in Old Chinese, 屋 / 燭 in the Guangyun). Only asked of a gloss with a further
    sentence (data review 12-04, round 4: 穀 「續也。百穀之緫名」)."""
    core = _PUNCT.sub("", sentence)
    core = core[:-1] if core.endswith("也") and len(core) > 1 else core
    if len(core) != 1 or core == head or not _HAN.match(core):
        return False
    g_h, g_o = old_groups.get(head), old_groups.get(core)
    if not g_h or g_h != g_o:
        return False
    merged = lambda c: {rhyme_of(x).replace("ü", "u") for x in readings.mandarin.get(c, ())}  # noqa: E731
    return bool(merged(head) & merged(core))


def strip_sound_gloss(gloss: str, heads: list[str], readings: Readings,
                      old_groups: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """(the ORIM reference left of ``gloss``, the sound-gloss sentences found).

    ``heads``: the character and its other forms (traditional, Shuowen's head). When the
    gloss opens with a sound-gloss (:func:`sentence_is_sound_gloss`; a 雙聲 gloss whose
    pun the next sentence explains: 木「冒也。冒地而生」; with ``old_groups``, a gloss of
    several sentences opening with a 疊韻 word of Duan's 十七部: :func:`old_rhyme_gloss`),
    that sentence goes. Where the next sentence explains the pun (it opens with the gloss
    word: 木 「冒地而生」), the rest is kept only where it defines the head (「…曰戶」,
    「…謂之老」); otherwise the rest is the meaning (穀 「續也。百穀之緫名」 -> 百穀之緫名,
    戶「護也。半門曰戶」 -> 半門曰戶). ``(gloss, [])`` when the gloss opens with no
    sound-gloss; ``("", [...])`` when nothing is left."""
    sents = [s.rstrip("。") for s in re.split(r"(?<=。)", gloss) if s.strip()]
    heads = [h for h in heads if h]
    if sents and any(h in sents[0] for h in heads):
        return gloss, []  # 颅 「𩑒顱也」 names its own traditional form: no pun on another word
    if not sents or not any(sentence_is_sound_gloss(sents[0], h, readings) or _pun_explained(sents, h, readings)
                            or (old_groups and len(sents) > 1 and old_rhyme_gloss(sents[0], h, readings, old_groups))
                            for h in heads):
        return gloss, []
    return "。".join(rest_after_sound_gloss(sents, heads)), [sents[0]]


def rest_after_sound_gloss(sents: list[str], heads: list[str]) -> list[str]:
    """The sentences of a gloss (``sents``, split at 。) that may still define the head once
    its first sentence is a sound-gloss. Where the next sentence explains the pun (it
    holds the gloss word: 木 「冒也。冒地而生。東方之行」), follows a class word (淠 「水。出汝
    南…」, 樗 「木也。以其皮裹松脂」, 能 「熊屬。足似鹿」) or is a note on the word (拓 「陳、宋
    語」, 洒 「古文爲灑埽字」), what follows describes and does not define: only a sentence
    naming the head (「…曰戶」, 「…謂之老」) stays; otherwise every further sentence (穀
    「續也。百穀之緫名」 -> 百穀之緫名). Also used where Duan names the sound-gloss
    (:func:`builder.qa.orim._keep_after_sound_gloss`; review of out-r10, seed 20261229 item 53)."""
    word = _PUNCT.sub("", sents[0]).removesuffix("也") if sents else ""
    if len(sents) > 1 and (word and word in sents[1] or word in CLASS_WORDS or word.endswith("屬")
                           or _NOT_A_DEFINITION.search(sents[1])):
        return [s for s in sents[1:] if any(f"曰{h}" in s or f"謂之{h}" in s for h in heads)]
    return sents[1:]


def load_source_readings(sources_dir: Path | None, skips) -> Readings | None:
    """:func:`load_readings` of the source cache's ``unihan/Unihan_Readings.txt``
    (``sources_dir``, else the default cache); None, logged in ``skips`` (a
    ``hub.skips.SkipLog``, kind ``no-unihan-readings``), when it cannot be read: the
    stage then reads the records' own Unihan readings (:func:`readings_from_records`)."""
    try:
        return load_readings(registry.resolve_sources_dir(sources_dir) / "unihan" / "Unihan_Readings.txt")
    except (OSError, ValueError, registry.SourceError) as exc:
        skips.add("unihan", str(sources_dir or "default cache"), f"Unihan readings not loaded: {exc}",
                  kind="no-unihan-readings")
        return None


def readings_from_records(records) -> Readings:
    """Readings from the records' own Unihan readings (``kMandarin`` pinyin, ``kFanqie``):
    the fallback when the source cache's file is not available."""
    mandarin: dict[str, set[str]] = {}
    fanqie: dict[str, set[str]] = {}
    for rec in records:
        for r in rec.readings:
            if not any(p.source == "unihan" for p in r.provenance):
                continue
            if r.pinyin:
                mandarin.setdefault(rec.character, set()).add(toneless(r.pinyin))
            if r.fanqie:
                fanqie.setdefault(rec.character, set()).add(r.fanqie)
    return Readings({k: frozenset(v) for k, v in mandarin.items()}, {k: frozenset(v) for k, v in fanqie.items()})
