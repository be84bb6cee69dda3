"""The glyph-record schema: one source-grounded record per (character, script).

A record is what the paper's stage 2 produces from a dictionary entry: the structured
analysis of one character as written in one script, with the glyph images of that
(character, script) pair. Every filled field carries provenance (source, entry id and
the exact source text span it was read from); a field no source supports stays ``None``
or empty, never invented. The JSON Schema exported from these models
(``jiezi build records`` writes ``record.schema.json``) is also what constrains the LLM
structurizer.

Files written by ``jiezi build records --output DIR``:

- ``DIR/records.jsonl``: one :class:`GlyphRecord` per line, sorted by ``id``.
- ``DIR/images/<script>/<file>.png``: the glyph images; ``GlyphImage.path`` is relative
  to ``DIR``.
- ``DIR/report.json``: see :class:`BuildReport`.
- ``DIR/skipped.jsonl``: one :class:`hub.skips.SkippedItem` per skipped bad input.

Label values are the canonical Chinese labels of ``metrics/acce/labels.py``
(ACCE.md section 1).
"""

from __future__ import annotations

import json
from typing import Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from metrics.acce import answers, labels

T = TypeVar("T")

SCHEMA_VERSION = "1.0"

# Sources a value can come from: the registry names of builder/sources/registry.py, plus
# "duan" for 段玉裁's notes (read from the shuowen files, but a separate authority when
# sources are counted for agreement), "rule" for values derived by a named rule from
# other grounded values (COME / EVOI), and "llm" (kept for values an LLM wrote itself;
# values an LLM *extracted* cite the source text they were read from, with rule "llm:<model>").
SourceName = Literal[
    "shuowen", "duan", "makemeahanzi", "cjkvi-ids", "unihan", "jiezi-official", "oracle-mnist",
    "lxgw-seal", "font", "user", "rule", "llm",
]

Script = Literal["甲骨文", "金文", "战国文字", "篆书", "隶书", "楷书", "草书", "简体"]
Structure = Literal["⿰", "⿱", "⿲", "⿳", "⿴", "⿵", "⿶", "⿷", "⿸", "⿹", "⿺", "⿻", "独体"]
FormationLabel = Literal["象形", "指事", "会意", "形声", "转注", "假借"]
Function = Literal["表意", "表音", "符号"]
EvolutionType = Literal["保留", "讹变", "简化", "繁化", "区别"]
VariantKind = Literal["古文", "籒文", "或體", "篆文", "俗字", "奇字", "異體", "簡体", "繁體"]

# The literal types must list exactly the vocabulary of labels.py.
assert set(Script.__args__) == set(labels.SCRIPTS)
assert set(Structure.__args__) == set(labels.STRUCTURES)
assert set(FormationLabel.__args__) == set(labels.FORMATIONS)
assert set(Function.__args__) == set(labels.FUNCTIONS)
assert set(EvolutionType.__args__) == set(labels.EVOLUTION_TYPES)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class Provenance(_Model):
    """Where one value came from.

    ``span`` is the exact text of the source entry that supports the value (a substring
    of that entry's raw text as stored by the adapter, e.g. ``"从水工聲"``), so a reader
    can find it in the source. ``rule`` names the parser rule or derivation rule that
    turned the span into the value (e.g. ``"shuowen.gloss"``, ``"evolution.trad_simp"``).
    """

    source: SourceName
    entry_id: str = Field(description="the entry's id in its source, e.g. shuowen '3528', unihan 'U+6C5F'")
    span: str = Field(description="exact source text supporting the value")
    rule: str = Field(description="the named rule that read the value from the span")


class Grounded(_Model, Generic[T]):
    """A value with its provenance and the cross-source agreement on it.

    ``agree`` lists the sources whose own reading gives the same value (after
    normalisation: OpenCC traditional/simplified, radical aliases); ``disagree`` maps a
    source to its differing value (as text). Both are filled by ``builder/records/align.py``.
    """

    value: T
    provenance: list[Provenance] = Field(min_length=1)
    agree: list[str] = Field(default_factory=list)
    disagree: dict[str, str] = Field(default_factory=dict)


class Formation(_Model):
    """The Six-Writings class. ``yisheng`` marks a phonetic that also carries meaning
    (亦聲 / 形聲兼會意); it is only meaningful with ``label == "形声"``."""

    label: FormationLabel
    yisheng: bool = False

    def label_set(self) -> list[str]:
        """The FORC reference set: ``["形声", "会意"]`` for 亦声, else ``[label]``."""
        return ["形声", "会意"] if self.yisheng and self.label == "形声" else [self.label]


class Component(_Model):
    """One component (构件) of the glyph.

    ``name`` is the component as a character (or an IDS fragment when no character
    encodes it). ``position`` is read off the IDC (左, 右, 上, 下, 中, 外, 内, 左上 ...).
    Each component keeps its own provenance; ``interpretation`` and ``evolution_type``
    have separate provenance because they often come from other sources or rules.
    """

    name: str
    functions: list[Function] = Field(default_factory=list)
    interpretation: str | None = None
    evolution_type: EvolutionType | None = None
    position: str | None = None
    provenance: list[Provenance] = Field(min_length=1)
    interpretation_provenance: list[Provenance] = Field(default_factory=list)
    evolution_provenance: list[Provenance] = Field(default_factory=list)
    agree: list[str] = Field(default_factory=list, description="sources listing this component with the same functions")
    disagree: dict[str, str] = Field(
        default_factory=dict,
        description="source -> what it says instead: its functions for this component, or 'not listed'")


class Reading(_Model):
    """A reading: modern pinyin with tone marks and/or a 反切 spelling."""

    pinyin: str | None = None
    fanqie: str | None = None
    provenance: list[Provenance] = Field(min_length=1)


class Variant(_Model):
    """A variant form: Shuowen 重文 (古文, 籒文, 或體, 篆文 ...) with its own analysis, or a
    Unihan / cjkvi-ids variant (繁體, 簡体, 異體)."""

    form: str
    kind: VariantKind
    analysis: str | None = None
    components: list[Component] = Field(default_factory=list)
    provenance: list[Provenance] = Field(min_length=1)


class Sense(_Model):
    """One sense (义项) of the character: the official layout's ``meaning_chunks`` item,
    or an alternative sense a dictionary gives (Shuowen 一曰 ...). ``examples`` is kept
    as the source writes it (the official layout separates examples with ``|``)."""

    meaning: str
    pinyin: str | None = None
    pos: str | None = None
    notes: str | None = None
    examples: str | None = None
    provenance: list[Provenance] = Field(min_length=1)


class GlyphImage(_Model):
    """One glyph image.

    ``path`` is relative to the records directory. ``style`` says what kind of image it
    is: ``"scan"`` (a real inscription, e.g. Oracle-MNIST), ``"font-kai"``,
    ``"font-song"``, ``"font-hei"`` (regular-script typefaces), ``"seal-style-font"``
    (a modern seal-style design such as LXGW Seal, not an authoritative seal form),
    ``"modern-seal-style-font"`` (a seal-style font glyph that draws the modern structure,
    not the small seal: never labelled 篆书), ``"tracing"`` (a traced outline of a real
    inscription, e.g. the Wikimedia Commons ancient-character SVGs), ``"tracing-augmented"``
    (an augmented copy of a tracing, JieZi-Dataset only) or ``"user"``. Sizes are in pixels.
    ``origin`` names the source file the image was made from; for a Wikimedia Commons
    drawing it is its file title (``commons:File:丁-bronze.svg``), the same whichever copy
    (SVG or PNG render) the image comes from; ``derived_from`` is the id of the image an
    augmented copy was made from (the leakage check follows it).
    """

    id: str = Field(description="stable id: '<source>-<sha256 prefix>'")
    path: str
    script: Script
    source: str = Field(description="e.g. 'oracle-mnist', 'font:Noto Serif CJK SC', 'lxgw-seal', 'user:hust-obc'")
    licence: str
    style: Literal["scan", "font-kai", "font-song", "font-hei", "seal-style-font", "modern-seal-style-font",
                   "tracing", "tracing-augmented", "user"]
    font: str | None = None
    width: int = Field(gt=0)
    height: int = Field(gt=0)
    sha256: str
    origin: str | None = None
    derived_from: str | None = None
    series: str | None = Field(default=None, description="a drawing's Commons series: seal, bronze, silk, slip, bronze-warring ...")
    page: str | None = Field(default=None, description="the Commons file page of a drawing")


class FidelityFlag(_Model):
    """A value the fidelity check could not find support for in its cited source text."""

    field: str
    value: str
    reason: str
    source: str | None = None
    span: str | None = None


class GlyphRecord(_Model):
    """The structured, source-grounded analysis of one character in one script.

    ``id`` is ``"<character>_<script>"``. Character-level fields (structure, formation,
    components, original meaning, readings, variants) are shared by all scripts of a
    character unless a source analyses that script's form separately (e.g. a Shuowen
    篆文 / 古文 analysis). ``evolution`` is the evolution narrative derived by named rules
    (the rule is in its provenance). ``definition_en`` is the English gloss.
    ``raw`` keeps each source entry's raw text by ``"<source>:<entry_id>"`` so every
    provenance span can be checked against it. ``form`` is set when the structure and
    components describe another written form than ``character`` (the 篆书 record of 明
    is analysed on Shuowen's seal form 朙). ``senses`` lists further senses,
    ``special_structure`` is the official layout's field of that name, and
    ``radical_stroke`` the Unihan ``kRSUnicode`` value (Kangxi radical number, '.', residual
    strokes; a ``'`` after the number marks a simplified radical).
    """

    schema_version: str = SCHEMA_VERSION
    id: str
    character: str
    script: Script
    images: list[GlyphImage] = Field(default_factory=list)
    structure: Grounded[Structure] | None = None
    ids: Grounded[str] | None = None
    formation: Grounded[Formation] | None = None
    components: list[Component] = Field(default_factory=list)
    original_meaning: Grounded[str] | None = None
    definition_en: Grounded[str] | None = None
    evolution: Grounded[str] | None = None
    readings: list[Reading] = Field(default_factory=list)
    variants: list[Variant] = Field(default_factory=list)
    traditional: str | None = None
    simplified: str | None = None
    form: str | None = None
    senses: list[Sense] = Field(default_factory=list)
    special_structure: Grounded[str] | None = None
    radical_stroke: Grounded[str] | None = None
    flags: list[FidelityFlag] = Field(default_factory=list)
    raw: dict[str, str] = Field(default_factory=dict)

    @field_validator("character")
    @classmethod
    def _one_character(cls, v: str) -> str:
        if len(v) != 1:
            raise ValueError(f"character must be exactly one code point, got {v!r}")
        return v

    def grounds(self) -> dict[str, bool]:
        """Which of the ten ACCE subtasks this record can ground (has the needed fields).

        Returns ``{code: bool}`` for the codes of ``labels.SUBTASKS``. CHAR and SCRC need
        an image; COMF/COMI/COME need at least one component with that attribute.
        """
        comps = self.components
        out = {}
        # the field each subtask's answer states comes from the answer schema
        for code, spec in answers.ANSWERS.items():
            if spec.record_field is None:  # read off the image label
                out[code] = bool(self.images)
            elif spec.record_field == "components":
                out[code] = any(all(getattr(c, a) for a in spec.component_attributes) for c in comps)
            else:
                out[code] = getattr(self, spec.record_field) is not None
        return out


class BuildReport(_Model):
    """``DIR/report.json`` of ``jiezi build records``.

    ``characters``: distinct characters with at least one record; ``records``: glyph
    records (character, script pairs); ``images_by_script``: image count per script
    label; ``fonts``: font families rendered; ``grounded``: records that can ground each
    subtask (see :meth:`GlyphRecord.grounds`); ``skipped``: count of skipped items by
    reason kind; ``scripts_covered`` / ``scripts_missing``: which script stages this build
    really has images for.
    """

    characters: int
    records: int
    images_by_script: dict[str, int]
    fonts: list[str]
    grounded: dict[str, int]
    skipped: dict[str, int] = Field(default_factory=dict)
    scripts_covered: list[str] = Field(default_factory=list)
    scripts_missing: list[str] = Field(default_factory=list)
    extra: dict[str, object] = Field(default_factory=dict)


# The fields that analyse a written form (STRC, COMR/COMF/COMI/COME, FORC).
FORM_ANALYSIS_FIELDS = ("structure", "ids", "formation", "special_structure", "components", "form")


def as_drawn(rec: GlyphRecord) -> GlyphRecord:
    """``rec`` as true of the form its script draws: for an early-form script
    (``labels.EARLY_FORM_SCRIPTS``: Shuowen describes the seal, its 古文 / 籒文 come without
    images, and the IDS the modern character) a copy without :data:`FORM_ANALYSIS_FIELDS` (the modern
    character's IDS is not the structure of its oracle-bone graph: 翌 in 甲骨文 is the
    羽-shaped graph, not ⿱羽立); any other record is returned unchanged. What users read
    (the ``records`` config, ``jiezi records show``) goes through this; the records stage
    keeps the fields, which the QA stage reads as evidence for other scripts' answers."""
    if rec.script not in labels.EARLY_FORM_SCRIPTS:
        return rec
    empty = {f: ([] if f == "components" else None) for f in FORM_ANALYSIS_FIELDS}
    return rec.model_copy(update=empty)


def record_json_schema() -> dict:
    """The JSON Schema (draft 2020-12, as pydantic emits it) of :class:`GlyphRecord`."""
    return GlyphRecord.model_json_schema()


def write_json_schema(path) -> None:
    """Write :func:`record_json_schema` to ``path`` as UTF-8 JSON."""
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(record_json_schema(), fh, ensure_ascii=False, indent=2)
