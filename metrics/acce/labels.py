"""The ACCE vocabulary: subtask codes, levels and the canonical label sets.

This module is the single home of the task's label sets. It lives inside the metric
folder because that folder is pushed to the Hub on its own (the ``jiezi/acce`` Space)
and must score without the rest of the project; the builder imports the same names
from here so records, QA pairs and scores always speak one vocabulary.

Source of every label and code: ``shared/docs/ACCE.md`` section 1 (the JieZi paper,
arXiv 2608.11741, section 3). Chinese labels are canonical; English is for display.
Label *extraction* from free text (synonyms, negation) lives in ``extract.py``.
"""

from __future__ import annotations

# Subtasks in the paper's table order, with the level each belongs to.
SUBTASKS: dict[str, str] = {
    "CHAR": "L1",
    "SCRC": "L1",
    "STRC": "L2",
    "COMR": "L2",
    "COMF": "L2",
    "COMI": "L2",
    "FORC": "L2",
    "ORIM": "L3",
    "COME": "L4",
    "EVOI": "L4",
}
LEVELS: tuple[str, ...] = ("L1", "L2", "L3", "L4")

# The eleven reported metrics (EVOI is judged on two axes), in Table 10's order.
METRICS: tuple[str, ...] = (
    "CHAR", "SCRC", "STRC", "COMR", "COMF", "COMI", "FORC", "ORIM", "COME", "EVOI_FAC", "EVOI_SCE",
)
METRIC_LEVEL: dict[str, str] = {m: SUBTASKS[m.split("_")[0]] for m in METRICS}

# The four component subtasks share one question: one bench row asks for every component
# with its function, interpretation and evolution type, and is scored on all four.
COMPONENT_SUBTASKS: tuple[str, ...] = ("COMR", "COMF", "COMI", "COME")

SUBTASK_NAMES: dict[str, tuple[str, str]] = {
    "CHAR": ("字头识别", "character recognition"),
    "SCRC": ("书体判别", "script classification"),
    "STRC": ("结构类型", "structure classification"),
    "COMR": ("构件识别", "component recognition"),
    "COMF": ("构件功能", "component function"),
    "COMI": ("构件解释", "component interpretation"),
    "FORC": ("造字法", "formation classification (Six Writings)"),
    "ORIM": ("本义", "original meaning"),
    "COME": ("构件演变", "component evolution"),
    "EVOI": ("字形演变", "evolution interpretation"),
}

# Script types (字形 / 书体), oldest first. 战国文字 is also called 古文 in the sources.
SCRIPTS: dict[str, str] = {
    "甲骨文": "oracle-bone script",
    "金文": "bronze script",
    "战国文字": "Warring States script",
    "篆书": "seal script",
    "隶书": "clerical script",
    "楷书": "regular script",
    "草书": "cursive script",
    "简体": "simplified",
}
# Script classes, the one place they are written (the builder, the harness, the Space and
# the scorer read them here). Regular script is today's 楷书 with its simplified forms (简体:
# a simplified form that differs from its traditional one); every other script is ancient.
REGULAR_SCRIPTS: tuple[str, ...] = ("楷书", "简体")
ANCIENT_SCRIPTS: tuple[str, ...] = tuple(s for s in SCRIPTS if s not in REGULAR_SCRIPTS)
# Scripts whose form none of the build's sources analyses (Shuowen describes the seal, the
# IDS the modern character): the bench asks their images no structure, component or
# formation question, and records of them carry no such analysis.
EARLY_FORM_SCRIPTS = frozenset({"甲骨文", "金文", "战国文字"})
# The scripts after the seal (clerical, regular, cursive, simplified): the modern character's
# form, which the IDS analyses (builder.qa.compose.glyph_form calls their images "modern");
# the PP-OCR recogniser reads them well (harness.baselines.fusion). With EARLY_FORM_SCRIPTS
# and 篆书 they partition SCRIPTS.
MODERN_SCRIPTS = frozenset({"隶书", "楷书", "草书", "简体"})
# Scoring treats a simplified form as regular script (ACCE.md section 1): :func:`scoring_script`.
SCRIPT_SCORING_ALIAS: dict[str, str] = {"简体": "楷书"}

# Structure (结构): the Unicode Ideographic Description Characters plus 独体.
STRUCTURES: dict[str, str] = {
    "⿰": "left-right",
    "⿱": "top-bottom",
    "⿲": "left-middle-right",
    "⿳": "top-middle-bottom",
    "⿴": "full surround",
    "⿵": "surround from above",
    "⿶": "surround from below",
    "⿷": "surround from left",
    "⿸": "surround from upper left",
    "⿹": "surround from upper right",
    "⿺": "surround from lower left",
    "⿻": "overlaid",
    "独体": "single component",
}
STRUCTURE_ZH: dict[str, str] = {
    "⿰": "左右结构",
    "⿱": "上下结构",
    "⿲": "左中右结构",
    "⿳": "上中下结构",
    "⿴": "全包围结构",
    "⿵": "上三包围结构",
    "⿶": "下三包围结构",
    "⿷": "左三包围结构",
    "⿸": "左上包围结构",
    "⿹": "右上包围结构",
    "⿺": "左下包围结构",
    "⿻": "镶嵌结构",
    "独体": "独体字",
}
# Unicode 15.1 IDCs: parsed, and mapped to the nearest classic IDC only where a label is
# needed (⿼ surround from right ~ ⿷ mirrored; ⿽ lower right ~ ⿺; ⿾ reflection and ⿿
# rotation describe one component transformed, so the glyph is single-component).
IDC_15_1_NEAREST: dict[str, str] = {"⿼": "⿷", "⿽": "⿺", "⿾": "独体", "⿿": "独体", "㇯": "⿴"}
# Number of operands each IDC takes (for parsing IDS strings).
IDC_ARITY: dict[str, int] = {
    **{c: 2 for c in "⿰⿱⿴⿵⿶⿷⿸⿹⿺⿻⿼⿽㇯"},
    **{c: 3 for c in "⿲⿳"},
    **{c: 1 for c in "⿾⿿"},
}

# Bench splits (JieZi-Bench's ``test`` plus the paper's generalisation splits, ACCE.md
# section 3): the names ``score(splits=...)`` accepts, and the bench row column that flags
# each generalisation split.
SPLITS: tuple[str, ...] = ("test", "unseen_characters", "unseen_glyphs")
SPLIT_FLAG_COLUMNS: dict[str, str] = {"unseen_characters": "unseen_character", "unseen_glyphs": "unseen_glyph"}

# Formation (造字法): the Six Writings.
FORMATIONS: dict[str, str] = {
    "象形": "pictograph",
    "指事": "indicative",
    "会意": "ideogrammic compound",
    "形声": "phono-semantic compound",
    "转注": "derivative cognate",
    "假借": "phonetic loan",
}

# Component function (功能).
FUNCTIONS: dict[str, str] = {"表意": "semantic", "表音": "phonetic", "符号": "symbol"}

# Component evolution type (演变类型).
EVOLUTION_TYPES: dict[str, str] = {
    "保留": "retention",
    "讹变": "corruption",
    "简化": "simplification",
    "繁化": "elaboration",
    "区别": "differentiation",
}


def scoring_script(script: str) -> str:
    """The label ``script`` is scored as: 简体 counts as 楷书 (:data:`SCRIPT_SCORING_ALIAS`);
    any other label is itself."""
    return SCRIPT_SCORING_ALIAS.get(script, script)


def level_of(subtask: str) -> str:
    """Return the level ("L1".."L4") of an ACCE subtask or metric code.

    Raises ``KeyError`` naming the code when it is not one of the ten subtask codes
    (``EVOI_FAC`` / ``EVOI_SCE`` are accepted and map to L4).
    """
    code = subtask.split("_")[0].upper()
    if code not in SUBTASKS:
        raise KeyError(f"unknown ACCE subtask code {subtask!r}; expected one of {list(SUBTASKS)}")
    return SUBTASKS[code]
