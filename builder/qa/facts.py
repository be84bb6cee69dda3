"""The facts a QA pair may state and the QA pair itself.

:class:`Profile` names the sources one resource may draw on (:data:`DATASET` for
JieZi-Dataset, :data:`BENCH` for JieZi-Bench, strict: cross-source agreement);
:class:`Facts` is what one record states under a profile (:func:`builder.qa.compose.facts_for`
reads them off the record), :class:`CompFact` one component of it, and :class:`QA` one
question-answer pair with its provenance and structured answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from builder.qa.narrative import Evolution
from builder.schema import Formation, Provenance
from hub import templates as T


# Which written form an image's L2 answers (structure, components, functions, formation)
# describe. ``modern``: the character's IDS; ``seal``: Shuowen's analysis of the small-seal
# form; ``early``: an oracle-bone, bronze or Warring States form, which none of the build's
# sources analyses (Shuowen describes the seal, its 古文 / 籒文 forms come without images,
# and the IDS describe the modern character): such an image gets no L2 question at all.
SEAL_FORM_SCRIPTS = frozenset({"篆书"})
L2_KINDS = ("STRC", "COMR", "COMF", "COMI", "COME", "COMP_FULL", "COMP_ASPECT", "FORC")
EARLY_FORM_REASON = "early-form:no-source-analyses-it"
SEAL_FORM_REASON = "seal-form:no-shuowen-analysis"

DATASET_SOURCES = frozenset({"makemeahanzi", "cjkvi-ids", "unihan"})
BENCH_SOURCES = frozenset({"shuowen", "duan", "unihan"})


# An expert's correction from an audit sheet (builder/qa/stage.py ``_audit_prov``): source
# "user", this rule, entry id "<sheet>:<row>". Both profiles use it, strict or not: the
# reviewer's word replaces the sources' (it is what the audit is for).
AUDIT_RULE = "audit.correction"


def _audit_provs(provs) -> list[Provenance]:
    """The audit-correction provenance among ``provs`` (empty when the value is the sources')."""
    return [p for p in provs if p.source == "user" and p.rule == AUDIT_RULE]


@dataclass(frozen=True)
class Profile:
    """Which sources a QA answer may draw on.

    ``name``: ``"dataset"`` or ``"bench"``; ``sources``: sources for the answers;
    ``gap_sources``: extra sources used only for ORIM / COME / EVOI of characters the
    caller does not reserve (dataset: Shuowen for non-bench characters);
    ``strict``: require cross-source agreement (the bench).
    """

    name: str
    sources: frozenset[str]
    gap_sources: frozenset[str] = frozenset()
    strict: bool = False


DATASET = Profile("dataset", DATASET_SOURCES, gap_sources=frozenset({"shuowen"}))
BENCH = Profile("bench", BENCH_SOURCES, strict=True)


@dataclass
class CompFact:
    """One component as a profile may state it."""

    name: str
    functions: list[str]
    provenance: list[Provenance]
    interpretation: str | None = None
    interpretation_en: str | None = None
    interpretation_provenance: list[Provenance] = field(default_factory=list)
    evolution_type: str | None = None
    evolution_provenance: list[Provenance] = field(default_factory=list)
    abbreviates: str | None = None  # the full component a 省 part stands for (萬 for 蠆)
    # other function sets the sources allow (Shuowen's plain 表音 beside Duan's 亦声 表意+表音)
    functions_accepted: list[list[str]] = field(default_factory=list)

    def struct(self, *, functions=True, interpretation=True, evolution=True) -> dict:
        """The component's ``answer_struct`` entry (ARCHITECTURE.md). A 省 part adds
        ``abbreviates`` (the full component) and ``names`` (the accepted names: the part
        drawn, then the full one), which both scorings match; a phonetic only Duan reads as
        亦声 adds ``functions_accepted`` ([["表音"]], Shuowen's reading)."""
        d: dict = {"name": self.name}
        if self.abbreviates:
            d["abbreviates"] = self.abbreviates
            d["names"] = [self.name, self.abbreviates]
        if functions:
            d["functions"] = list(self.functions)
            if self.functions_accepted:
                d["functions_accepted"] = [list(x) for x in self.functions_accepted]
        if interpretation:
            d["interpretation"] = self.interpretation
        if evolution:
            d["evolution_type"] = self.evolution_type
        return d


@dataclass
class Facts:
    """The facts of one record usable under one profile, with provenance.

    ``missing`` maps a template kind to the reason it cannot be asked (counted by the
    stage report).
    """

    record_id: str
    character: str
    script: str
    profile: str
    structure: tuple[str, list[Provenance]] | None = None
    formation: tuple[Formation, list[Provenance]] | None = None
    components: list[CompFact] = field(default_factory=list)
    orim: tuple[str, str, list[Provenance], str] | None = None  # zh, en, provenance, kind
    evolution: Evolution | None = None
    evolution_sources: frozenset[str] = frozenset()
    missing: dict[str, str] = field(default_factory=dict)
    richness: float = 0.0
    ids_regions: frozenset[str] | None = None  # see :func:`_ids_regions`
    # kind -> the other answers the sources allow (answer_struct "accepted"; issue 21)
    accepted: dict[str, list] = field(default_factory=dict)
    variant_forms: list[str] = field(default_factory=list)  # Shuowen 重文 forms a glyph may be drawn in
    # the character's other accepted CHAR answers whatever the image (its one-to-one
    # traditional / simplified partner, the 规范字 of a form outside the table), with provenance
    char_forms: list[tuple[str, list[Provenance]]] = field(default_factory=list)
    in_standard_table: bool = False  # the character is in the 通用规范汉字表 (Unihan / the modern-forms index)
    same_in_both: bool = False  # in the table, and Unihan gives no simplified form but itself (not 徵 -> 征)
    # image id -> {kind: reason}: what one image cannot be asked though the record can
    # (二 drawn as two bars shows no script: builder.qa.script_neutral)
    image_missing: dict[str, dict[str, str]] = field(default_factory=dict)

    def available(self) -> list[str]:
        """Template kinds this record can answer (image kinds always)."""
        return [k for k in T.KINDS if k not in self.missing]


@dataclass
class QA:
    """One question-answer pair.

    ``kind`` is the template kind (:data:`hub.templates.KINDS`), ``subtask`` its
    ACCE code, ``metrics`` the metric keys a bench row is scored on, ``provenance`` a list
    of ``{"field", "source", "entry_id", "span", "rule"}`` dicts, ``fields`` the record
    fields used (the audit drops QA pairs by field).
    """

    kind: str
    subtask: str
    level: str
    question: str
    answer: str
    question_en: str
    answer_en: str
    answer_struct: dict
    metrics: list[str]
    provenance: list[dict]
    fields: list[str]
    template: str

    def to_dict(self) -> dict:
        return {
            "kind": self.kind, "subtask": self.subtask, "level": self.level,
            "question": self.question, "answer": self.answer,
            "question_en": self.question_en, "answer_en": self.answer_en,
            "answer_struct": self.answer_struct, "metrics": self.metrics,
            "provenance": self.provenance, "fields": self.fields, "template": self.template,
        }


def _supporters(g) -> set[str]:
    return set(g.agree) | {p.source for p in g.provenance}
