"""What the evolution rules produce: the rule table and the narrative types.

:data:`RULES` names every rule and what it asserts from which evidence (the names appear
verbatim in the provenance of every derived item and in the dataset cards, through
:func:`rules_table_markdown`); :class:`Statement` is one sentence of the EVOI narrative,
:class:`ComponentEvolution` one COME type, :class:`Evolution` all of them for one record
(what :func:`builder.qa.evolution.derive` returns).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Iterable

from builder.schema import Provenance


# Rule name -> what it asserts and from which evidence. The names appear verbatim in the
# provenance of every derived item and in the dataset cards.
RULES: dict[str, str] = {
    "evolution.attested_obi": "a real oracle-bone image of the character (a scan such as Oracle-MNIST, or a tracing) is among the build's images: the character is attested in 甲骨文 (evidence of EvidenceIndex.attested; no narrative sentence: a bare attestation says nothing of the form, and no source of the build describes an early form)",
    "evolution.attested_bronze": "a real bronze-inscription image of the character (a tracing) is among the build's images: the character is attested in 金文 (evidence only, as evolution.attested_obi)",
    "evolution.attested_seal_image": "a real small-seal image of the character (a tracing) is among the build's images: the character is attested in 篆书 (evidence only, as evolution.attested_obi)",
    "evolution.seal_analysis": "the Shuowen analysis of the small-seal head (从X / Y聲 / 象形 ...) as the seal-stage composition",
    "evolution.shuowen_variant": "a Shuowen 重文 (古文, 籒文, 或體, 篆文 ...) with its analysis, as an attested earlier or parallel form",
    "evolution.modern_is_variant": "the modern character is itself a form Shuowen or cjkvi-ids records as a 重文 of another head",
    "evolution.retention.seal": "保留: the modern component (IDS) is a component of the Shuowen seal analysis (after radical-alias normalisation)",
    "evolution.retention.position_form": "保留: the modern form writes a Shuowen seal component in its position (偏旁) form (邑 as 阝, 示 as 礻, 艸 as 艹, 人 as 亻, 水 as 氵, 玉 as 王: builder.aliases.POSITION_FORMS); one label for all of them",
    "evolution.retention.variant": "保留: the modern component is a component of a Shuowen 古文 / 籒文 / 或體 / 篆文 analysis of the character",
    "evolution.retention.single": "保留: a single-component character whose Shuowen head is the same character, analysed as one component or as a pictograph (象形 / 指事) without components",
    "evolution.retention.trad_simp": "保留: a component of a simplified character that the traditional form's decomposition has unchanged",
    "evolution.retention.sheng": "保留: Shuowen marks the component as abbreviated (从X省 / X省聲): the seal form already writes only part of X and the modern form keeps that part (省 is how the character was made, not a later change); the narrative names the part where the IDS locates it",
    "evolution.simplification.single": "简化: a single-component simplified character (飞 for 飛, a one-to-one Unihan pair): the whole glyph is the simplified form",
    "evolution.simplification.trad_simp": "简化: in a simplified character, the component that replaces a traditional component is its simplified form (OpenCC / Unihan)",
    "evolution.simplification.character": "a simplified character with its traditional form (Unihan kTraditionalVariant naming exactly one other character / cjkvi-ids 簡体); a character that is its own traditional form too (芸, 机: Shuowen heads) gets no such claim",
    "evolution.traditional_to_simplified": "a traditional character with its simplified form (Unihan kSimplifiedVariant / cjkvi-ids 簡体) in the 通用规范汉字表 (Unihan kTGH), or, when that form is outside the table, the table's form of the character's variant (鎌 -> 鐮 -> 镰)",
    "evolution.elaboration.added_vs_variant": "繁化: the seal head has a component that its Shuowen 古文 / 籒文 lacks while sharing all the others, and the modern form keeps it",
    "evolution.dropped_vs_variant": "a Shuowen 古文 / 籒文 / 或體 has a component the seal and modern forms lack (statement only: no modern component to type)",
    "evolution.differentiation.gujin": "区别: Duan names the pair as 古今字 and the later character adds one component to the earlier one",
    "evolution.corruption.form_equivalent": "讹变: the modern form writes a Shuowen seal component as another component it merged with (the alias table's form equivalents that are not position forms: 㞷 as 主, 肉 as 月, 𧸇 as 賣)",
    "evolution.duan_later_form": "Duan's note on the entry names a later written form: 隸(變)作X (clerical), 俗作X (popular), 今(字)作X (current)",
    "evolution.depicted_part_written": "a part of the seal form that Shuowen describes by what it draws (象…形), where the modern IDS keeps every part Shuowen names and has exactly one operand more: that operand is what the modern form writes in its place (疇: 象耕屈之形 -> 壽)",
    "evolution.rewritten_part": "exactly one component of Shuowen's seal analysis is not among the modern IDS operands and exactly one operand is no seal component (same number of parts, none abbreviated): the modern form writes that seal component as that operand (旨: 甘 -> 日); statement only, no COME type",
    "evolution.corruption.substitution": "讹变: exactly one seal component has no counterpart in an otherwise matching modern decomposition of equal size, and no simplification link explains the change",
}


@dataclass
class Statement:
    """One sentence of the evolution narrative, with the rule and evidence behind it."""

    rule: str
    zh: str
    en: str
    provenance: list[Provenance]


@dataclass
class ComponentEvolution:
    """The evolution type of one component of the record, with its rule and evidence."""

    name: str
    type: str
    rule: str
    provenance: list[Provenance]


@dataclass
class Evolution:
    """What :func:`derive` found for one record.

    ``components`` maps each typed component name to its :class:`ComponentEvolution`;
    ``statements`` is the evidence-ordered narrative (oldest form first).
    """

    components: dict[str, ComponentEvolution] = field(default_factory=dict)
    statements: list[Statement] = field(default_factory=list)

    def narrative(self, lang: str = "zh") -> str:
        """The narrative as markdown: a bullet list when three or more statements, else
        one paragraph. ``""`` when no rule fired."""
        parts = [s.zh if lang == "zh" else s.en for s in self.statements]
        if not parts:
            return ""
        if len(parts) >= 3:
            return "\n".join(f"- {p}" for p in parts)
        sep = "；" if lang == "zh" else "; "
        text = sep.join(p.rstrip("。.") for p in parts)
        return text + ("。" if lang == "zh" else ".")

    def provenance(self) -> list[Provenance]:
        """Every statement's evidence, deduplicated, in statement order."""
        out: list[Provenance] = []
        seen: set[tuple] = set()
        for s in self.statements:
            for p in s.provenance:
                key = (p.source, p.entry_id, p.span, p.rule)
                if key not in seen:
                    seen.add(key)
                    out.append(p)
        return out

    def rules(self) -> list[str]:
        """Names of the rules that fired (statements and component types)."""
        names = [s.rule for s in self.statements] + [c.rule for c in self.components.values()]
        return sorted(set(names))


def _cite(provs: Iterable[Provenance], rule: str) -> list[Provenance]:
    """Copy evidence provenance with ``rule`` set to the derivation rule."""
    out, seen = [], set()
    for p in provs:
        key = (p.source, p.entry_id, p.span)
        if key in seen:
            continue
        seen.add(key)
        out.append(Provenance(source=p.source, entry_id=p.entry_id, span=p.span, rule=rule))
    return out


def rules_table_markdown() -> str:
    """The rule table as markdown (for the dataset cards)."""
    lines = ["| rule | asserts |", "|---|---|"]
    lines += [f"| `{k}` | {v} |" for k, v in RULES.items()]
    return "\n".join(lines)


def to_json(evo: Evolution) -> str:
    """Compact JSON of an :class:`Evolution` (for debugging and the audit sheet)."""
    return json.dumps({
        "components": {k: {"type": v.type, "rule": v.rule} for k, v in evo.components.items()},
        "statements": [{"rule": s.rule, "zh": s.zh} for s in evo.statements],
    }, ensure_ascii=False)
