"""Regression tests for the QA-stage patterns of the independent review of out-r5
(final-20261218 / final-20261219), on records built from the real sources.

3. 「繁简同形」 only where Unihan gives no simplified form but the character itself (徵 -> 征).
"""

from __future__ import annotations

import pytest

from builder.qa import part_glosses, soundgloss
from builder.qa.compose import facts_for
from builder.qa.evidence import EvidenceIndex
from builder.qa.facts import BENCH, DATASET
from builder.qa.stage import load_modern_forms, load_shuowen
from builder.qa.wording import make_qa
from builder.schema import GlyphImage
from hub.skips import SkipLog
from qa_fixtures import character_records

CHARS = "徵征昌"


@pytest.fixture(scope="module")
def recs(sources_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("review_r6a") / "records"
    records = character_records(sources_dir, out, CHARS)
    skips = SkipLog()
    duan, entries = load_shuowen(sources_dir, skips)
    index = EvidenceIndex(records, duan=duan, entries=entries, modern=load_modern_forms(sources_dir, skips),
                          definitions=part_glosses.load_definitions(sources_dir, skips))
    index.readings = soundgloss.load_source_readings(sources_dir, skips)
    index.reserved = frozenset()
    return {r.id: r for r in records}, index


def facts(recs, rid, profile=BENCH):
    by_id, index = recs
    return facts_for(by_id[rid], profile, index)


def image(script="楷书"):
    return GlyphImage(id=f"test-{script}", path="images/x.png", script=script, source="font:Noto Serif CJK SC",
                      licence="OFL-1.1", style="font-song", font="Noto Serif CJK SC", width=64, height=64,
                      sha256="0" * 64)


# --- 3. 繁简同形 needs no other simplified form -------------------------------------------------

def test_zheng_is_not_same_in_both_standards(recs):
    assert "繁简同形" not in make_qa(facts(recs, "徵_楷书"), "SCRC", 0, image()).answer  # 徵 -> 征
    assert "繁简同形" in make_qa(facts(recs, "昌_楷书"), "SCRC", 0, image()).answer
