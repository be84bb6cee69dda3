"""The expert-in-the-loop decisions applied by the QA stage.

``OUT/audit/decisions.jsonl`` (written by ``jiezi audit ingest``, latest decision per item
wins: :func:`load_decisions`): rejected record fields are removed before QA generation and
corrected ones replaced (:func:`apply_record_decisions`); rejected QA pairs and bench rows
are dropped and corrected ones rewritten (:func:`_apply_qa_decision`). A corrected value
cites the reviewer (:func:`_audit_prov`: source ``user``, rule
``builder.qa.facts.AUDIT_RULE``).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from builder.schema import Formation, GlyphRecord, Grounded, Provenance
from hub.skips import SkipLog


def load_decisions(out_dir: Path) -> dict[str, dict]:
    """``item_id -> decision`` from ``OUT/audit/decisions.jsonl`` (latest wins)."""
    path = Path(out_dir) / "audit" / "decisions.jsonl"
    out: dict[str, dict] = {}
    if path.exists():
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                d = json.loads(line)
                out[d["item_id"]] = d
    return out


def _audit_prov(d: dict) -> Provenance:
    """Provenance of a reviewer's decision: source "user", rule ``builder.qa.facts.AUDIT_RULE``
    (which both QA profiles accept), entry id ``<sheet>:<row>``, span the correction (or
    the verdict)."""
    from builder.qa.facts import AUDIT_RULE
    return Provenance(source="user", entry_id=f"{d.get('sheet', 'audit')}:{d.get('row', '?')}",
                      span=d.get("correction", "") or d["verdict"], rule=AUDIT_RULE)


def apply_record_decisions(records: list[GlyphRecord], decisions: dict[str, dict], skips: SkipLog) -> Counter:
    """Apply ``record:<id>#<field>`` decisions in place. Returns counts by action."""
    counts: Counter = Counter()
    by_id = {r.id: r for r in records}
    for item_id, d in decisions.items():
        if not item_id.startswith("record:") or d["verdict"] == "ok":
            continue
        rid, _, fld = item_id[len("record:"):].partition("#")
        rec = by_id.get(rid)
        if rec is None:
            continue
        try:
            if d["verdict"] == "reject":
                setattr(rec, fld, [] if fld in ("components", "readings", "variants") else None)
                counts["record_field_rejected"] += 1
            elif d["verdict"] == "correct":
                _correct_field(rec, fld, d)
                counts["record_field_corrected"] += 1
        except (ValueError, KeyError, TypeError) as exc:
            skips.add("audit", item_id, f"correction not applicable: {exc}", field=fld, kind="bad-correction")
    return counts


def _correct_field(rec: GlyphRecord, fld: str, d: dict) -> None:
    text = d["correction"].strip()
    prov = [_audit_prov(d)]
    if fld == "structure":
        rec.structure = Grounded[str](value=text, provenance=prov, agree=["user"])
        GlyphRecord.model_validate(rec.model_dump())  # label check
    elif fld == "formation":
        data = json.loads(text) if text.startswith("{") else {"label": text}
        rec.formation = Grounded[Formation](value=Formation(**data), provenance=prov, agree=["user"])
    elif fld in ("original_meaning", "definition_en", "ids", "evolution"):
        setattr(rec, fld, Grounded[str](value=text, provenance=prov, agree=["user"]))
    elif fld == "components":
        from builder.schema import Component
        rec.components = [Component(provenance=prov, agree=["user"],
                                    interpretation_provenance=prov if c.get("interpretation") else [],
                                    evolution_provenance=prov if c.get("evolution_type") else [], **c)
                          for c in json.loads(text)]
    else:
        raise ValueError(f"field {fld!r} cannot be corrected from a sheet; reject it instead")


def _apply_qa_decision(item: dict, d: dict | None) -> dict | None:
    """Drop (reject) or rewrite (correct) one QA dict; None means dropped."""
    if d is None or d["verdict"] == "ok":
        return item
    if d["verdict"] == "reject":
        return None
    text = d["correction"].strip()
    if text.startswith("{"):
        data = json.loads(text)
        item["answer"] = data.get("answer", item["answer"])
        item["answer_struct"] = data.get("answer_struct", item["answer_struct"])
    else:
        item["answer"] = text
        struct = item.get("answer_struct") or {}
        if len(struct) == 1 or item["subtask"] in ("CHAR", "SCRC", "STRC", "ORIM", "EVOI"):
            key = {"CHAR": "character", "SCRC": "script", "STRC": "structure",
                   "ORIM": "original_meaning", "EVOI": "evolution"}.get(item["subtask"])
            if key:
                item["answer_struct"] = {**struct, key: text}
    if item["subtask"] == "EVOI" and isinstance(item.get("answer_struct"), dict) and "rules" in item["answer_struct"]:
        # the derivation rules made the old answer, not the reviewer's: none is claimed
        item["answer_struct"] = {**item["answer_struct"], "rules": []}
    if "answer_en" in item:
        # The English wording said what the reviewer corrected; we do not invent a
        # translation, so the corrected item has none (English turns leave it out).
        item["answer_en"] = None
    # the old provenance (sources, rule names) supported the old answer: the corrected
    # answer stands on the reviewer's decision alone
    item["provenance"] = [{"field": "audit", **_audit_prov(d).model_dump()}]
    return item
