"""Prompts the harness sends to `openai:` and `hf:` models, and the paraphrase wordings.

Everything a model reads besides the bench question is written here, under one version
string (:data:`PROMPT_VERSION`) that every results.json records: change any text below
and bump the version, because scores from different prompts are not comparable.

The texts are this project's own wording (ACCE.md section 1 gives the label sets they
list). The answer-format hints match the formats the bench references use and that
``metrics.acce.core.parse_answer`` reads, so a model that follows them is parsed
without loss.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from metrics.acce import labels
from metrics.acce.paper_reply import REFERENCE_FIELDS, SCRIPT_LABELS

PROMPT_VERSION = "jiezi-prompts-1.0"

SYSTEM_PROMPT = (
    "你是一位研究古文字的专家，熟悉甲骨文、金文、战国文字、篆书、隶书、楷书、草书等各时期字形，"
    "以及《说文解字》以来的文字学术语。你会看到一个古汉字字形的图片，请依据图片回答问题。"
    "回答要准确、简洁，使用规范的文字学术语；不确定时也给出最可能的答案，不要拒答。"
)

_SCRIPTS = "、".join(s for s in labels.SCRIPTS if s != "简体")
_STRUCTURES = "、".join(f"{idc}（{labels.STRUCTURE_ZH[idc]}）" for idc in labels.STRUCTURES if idc != "独体")
_FORMATIONS = "、".join(labels.FORMATIONS)
_FUNCTIONS = "、".join(labels.FUNCTIONS)
_EVOLUTION = "、".join(labels.EVOLUTION_TYPES)

# One format hint per question type: the bench's template kind (CHAR, SCRC, STRC, FORC,
# ORIM, EVOI; COMP_FULL = the shared component question scored on COMR/COMF/COMI/COME;
# COMP_ASPECT = components with function and interpretation, scored on COMR/COMF/COMI).
FORMAT_HINTS: dict[str, str] = {
    "CHAR": "只需写出该字形对应的现代楷书字头（一个汉字）。",
    "SCRC": f"只需写出书体名称，从以下选一个：{_SCRIPTS}。",
    "STRC": f"只需写出结构类型，从以下选一个：{_STRUCTURES}，或“独体”。",
    "FORC": f"只需写出六书类别（{_FORMATIONS}）；若声符兼表意，写“形声兼会意”。",
    "COMP_FULL": (
        "逐条列出全部构件，每条一行，格式为："
        "“1. 构件「X」：功能=…；演变类型=…；解释=…”。"
        f"功能从{_FUNCTIONS}中选（可多选，用“、”分隔），演变类型从{_EVOLUTION}中选一个。"
    ),
    "COMP_ASPECT": (
        "逐条列出全部构件，每条一行，格式为：“1. 构件「X」：功能=…；解释=…”。"
        f"功能从{_FUNCTIONS}中选（可多选，用“、”分隔）。"
    ),
    "ORIM": "用一句话写出该字的本义。",
    "EVOI": "按时代先后（甲骨文、金文、篆书、隶书、楷书）简要说明该字的字形演变，用辞书体表述。",
}

# Other wordings of each question type, used by the paraphrase-robustness run
# (paper Table 13: every question re-asked in two other wordings). The first entry of
# each list is not special; :func:`paraphrases` skips any entry equal to the bench's own
# question.
PARAPHRASES: dict[str, list[str]] = {
    "CHAR": [
        "图中这个古文字，今天的楷书写作哪个字？",
        "请辨认图片中的字形，写出与之对应的现代通行字。",
        "这个字形相当于现代汉字中的哪一个字？",
    ],
    "SCRC": [
        f"图中字形属于哪个时期的书体？可选：{_SCRIPTS}。",
        f"请判断这个字的书写体式（{_SCRIPTS}）。",
        f"从{_SCRIPTS}中，选出与图中字形相符的书体。",
    ],
    "STRC": [
        "请说出该字的结构类型，用表意文字描述符（如⿰、⿱）或“独体”作答。",
        "从部件的空间布局看，这个字属于哪种结构？",
        "这个字的各个部件是怎样组合的？请给出其结构类型。",
    ],
    "FORC": [
        f"按照六书理论，该字属于哪一类？可选：{_FORMATIONS}。",
        "请判断这个字的造字方法。",
        "从六书的角度看，这个字是怎么造出来的？",
    ],
    "COMP_FULL": [
        "请把这个字拆分成构件，并说明每个构件的功能、演变类型和构形解释。",
        "这个字由哪些构件组成？逐一说明各构件在字中承担的功能、历史演变类型及含义。",
        "请对该字做构件分析：列出各构件，写明其表意、表音或符号功能，演变类型，以及解释。",
    ],
    "COMP_ASPECT": [
        "这个字可以拆成哪些构件？每个构件起什么作用、表示什么？",
        "请分析该字的构件：哪些是义符，哪些是声符，各自的含义如何？",
        "请逐一说明组成这个字的构件及其表意、表音功能，并加以解释。",
    ],
    "ORIM": [
        "这个字造字之初表示什么意思？",
        "请说明该字的本义。",
        "根据字形分析，这个字最初的意义是什么？",
    ],
    "EVOI": [
        "请梳理这个字从古至今的字形变化。",
        "该字在甲骨文、金文、篆书、隶书和楷书中的形体是如何演变的？",
        "请简述此字历代字形的传承与变化。",
    ],
}

# "COMR" (the bench's subtask code of the shared component question) names the same
# question as COMP_FULL, so callers holding a subtask code can look it up directly.
FORMAT_HINTS["COMR"] = FORMAT_HINTS["COMP_FULL"]
PARAPHRASES["COMR"] = PARAPHRASES["COMP_FULL"]

# The instruction that opens the context of the retrieval-augmented strategies
# (paper Table 11). They tell the model what the context is and that the neighbours
# are look-alike glyphs, not necessarily the same character.
ICL_INTRO = "下面先给出几个与题图字形相似的训练样例（图片、问题和标准答案），供参考作答格式与思路。"
RAG_INTRO = (
    "以下是按图像相似度从 JieZi 训练数据中检索到的字形资料（结构化记录与问答），"
    "它们与题图字形相似，但不一定是同一个字；请结合图片判断后作答。"
)
DICT_INTRO = (
    "以下是按图像相似度检索到的字典条目，它们与题图字形相似，但不一定是同一个字；"
    "请以图片为准，参考条目作答。"
)


def question_type(kind: str) -> str:
    """The question type (a key of :data:`FORMAT_HINTS`) of a template kind.

    The bench kinds map to themselves; JieZi-Dataset's single-aspect component kinds
    (COMR, COMF, COMI, COME) map to ``COMP_FULL``; the exegesis kind maps to ``EVOI``.
    Raises ``KeyError`` naming the kind when it is not an ACCE question kind.
    """
    kind = str(kind).upper()
    if kind in FORMAT_HINTS:
        return kind
    if kind in labels.COMPONENT_SUBTASKS:
        return "COMP_FULL"
    if kind == "EXEGESIS":
        return "EVOI"
    raise KeyError(f"no question type for kind {kind!r}; expected one of {list(FORMAT_HINTS)}")


def paraphrases(qtype: str, original: str, n: int) -> list[str]:
    """Up to ``n`` wordings of question type ``qtype`` that differ from ``original``.

    Returns a list of length ``min(n, available)``; ``n`` must be >= 0. Raises
    ``KeyError`` for an unknown question type.
    """
    if n < 0:
        raise ValueError(f"number of paraphrases must be >= 0, got {n}")
    norm = original.strip()
    return [p for p in PARAPHRASES[qtype] if p.strip() != norm][:n]


def user_text(question: str, qtype: str) -> str:
    """The text of the user turn: the question followed by the format hint of question
    type (or template kind / subtask code) ``qtype``."""
    return f"{question.strip()}\n{FORMAT_HINTS[question_type(qtype)]}"


# The paper's protocol (``jiezi eval --protocol paper``): one request per glyph image asking
# for one JSON object with the eight official field names (ACCE.md section 2, issue 13).
# This project's own wording; a user holding other prompt text passes ``--prompt-file``.
PAPER_PROMPT_VERSION = "jiezi-paper-prompt-1.0"
PAPER_FIELDS = REFERENCE_FIELDS
PAPER_PROMPT = (
    "请仔细观察图片中的古汉字字形，对这个字作完整的文字学分析，并且只输出一个 JSON 对象"
    "（不要输出 JSON 以外的文字），包含以下八个键：\n"
    "- \"现代字典字头\"：该字形对应的现代字典字头，一个汉字；\n"
    f"- \"字形\"：图中字形的书体，从 {'、'.join(SCRIPT_LABELS)} 中选一个（战国文字写“古文”）；\n"
    f"- \"造字法\"：六书类别的列表，取值为 {'、'.join(f + '字' for f in labels.FORMATIONS)}"
    "（形声而声符兼表意时写 [\"形声字\", \"会意字\"]）；\n"
    f"- \"结构\"：字的结构，写一个表意文字描述符（{_STRUCTURES}），独体字写“独体”；\n"
    "- \"特殊结构\"：有特殊构形时简要说明，没有则为空字符串；\n"
    "- \"构件\"：一个对象，键为每个构件（写构件本字，如“水”“人”），值为对象："
    f"{{\"功能\": 从 {_FUNCTIONS} 中选的列表, \"演变类型\": 从 {_EVOLUTION} 中选一个, "
    "\"解释\": 该构件在字中的作用的简短说明}；\n"
    "- \"本义\"：用一句话写出该字的本义；\n"
    "- \"历代字形演变\"：按时代先后（甲骨文、金文、篆书、隶书、楷书）用辞书体简述字形演变。\n"
    "不确定时也给出最可能的答案，不要拒答。"
)


def paper_prompt(prompt_file: str | None = None) -> tuple[str, dict]:
    """The user text of a ``--protocol paper`` request and its record for results.json.

    Without ``prompt_file``: :data:`PAPER_PROMPT` and ``{"version": PAPER_PROMPT_VERSION}``.
    With it: the file's text (UTF-8, stripped) and ``{"file", "sha256"}`` (the text itself is
    not stored: it may be someone else's). Raises ``ValueError`` for an empty file and
    ``OSError`` when it cannot be read.
    """
    if prompt_file is None:
        return PAPER_PROMPT, {"version": PAPER_PROMPT_VERSION}
    text = Path(prompt_file).read_text(encoding="utf-8").strip()
    if not text:
        raise ValueError(f"--prompt-file {prompt_file}: the file is empty")
    return text, {"file": str(prompt_file), "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}
