"""Question templates for the ten ACCE subtasks (Chinese primary, English second).

Each template kind has at least three phrasings; phrasing ``i`` of the Chinese list and of
the English list say the same thing, so a QA pair keeps both languages aligned
(``question`` / ``question_en``). ``{options}`` is replaced by the label options of the
subtask's label set (ACCE.md section 1, from ``metrics/acce/labels.py``): the script,
structure, formation, function and evolution-type questions list them, as the paper's
examples do.

Template kinds (``KINDS``) and the subtask each is scored as:

- ``CHAR``, ``SCRC``, ``STRC``, ``FORC``, ``ORIM``, ``EVOI``: the subtask itself;
- ``COMR`` (list the components), ``COMF`` (their functions), ``COMI`` (their
  interpretation), ``COME`` (their evolution types): JieZi-Dataset's single-aspect
  component questions;
- ``COMP_FULL``: the shared component question of JieZi-Bench (every component with
  function, interpretation and evolution type), subtask ``COMR``, scored on
  COMR/COMF/COMI/COME;
- ``COMP_ASPECT``: the bench's second component question (components with function and
  interpretation), subtask ``COMR``, scored on COMR/COMF/COMI;
- ``EXEGESIS``: the full four-level analysis (character and script, structure and
  components, formation, original meaning, evolution), in the layout of the official
  JieZi "analysis" samples; subtask ``EVOI`` (JieZi-Dataset only).
"""

from __future__ import annotations

from metrics.acce import labels

# kind -> (subtask code, level, metric keys when used as a bench row)
KINDS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "CHAR": ("CHAR", "L1", ("CHAR",)),
    "SCRC": ("SCRC", "L1", ("SCRC",)),
    "STRC": ("STRC", "L2", ("STRC",)),
    "COMR": ("COMR", "L2", ("COMR",)),
    "COMF": ("COMF", "L2", ("COMF",)),
    "COMI": ("COMI", "L2", ("COMI",)),
    "COMP_FULL": ("COMR", "L2", ("COMR", "COMF", "COMI", "COME")),
    "COMP_ASPECT": ("COMR", "L2", ("COMR", "COMF", "COMI")),
    "FORC": ("FORC", "L2", ("FORC",)),
    "ORIM": ("ORIM", "L3", ("ORIM",)),
    "COME": ("COME", "L4", ("COME",)),
    "EVOI": ("EVOI", "L4", ("EVOI_FAC", "EVOI_SCE")),
    "EXEGESIS": ("EVOI", "L4", ("EVOI_FAC", "EVOI_SCE")),
}
# Kinds whose rows also belong to a second level's config: the shared component question
# carries COME (L4) as well as COMR/COMF/COMI (L2); the exegesis covers every level.
EXTRA_LEVELS: dict[str, tuple[str, ...]] = {"COMP_FULL": ("L4",)}


# The phrasings (indices into TEMPLATES) of the questions needing component interpretations
# that ask what each component means or is (「说明其含义」, 「分别表示什么」, 「应作何解释」),
# not its role in the character (「在字中的作用」, 「构字理据」, 「在字中的含义」, 「构字解释」,
# 「结合构形…解说」): a component's own Shuowen gloss answers only these (review of out-r5,
# 12-18: 乂's 丿 「象左引之形」 under 「解释各构件在字中的作用」).
MEANING_PHRASINGS: dict[str, tuple[int, ...]] = {"COMI": (2,), "COMP_ASPECT": (2,), "COMP_FULL": (2,)}


def in_level(kind: str, level: str) -> bool:
    """Whether rows of template ``kind`` belong to ``level`` (its own or an extra one)."""
    return KINDS[kind][1] == level or level in EXTRA_LEVELS.get(kind, ())


SCRIPT_OPTIONS_ZH = "、".join(labels.SCRIPTS)
SCRIPT_OPTIONS_EN = ", ".join(f"{en} ({zh})" for zh, en in labels.SCRIPTS.items())
STRUCTURE_OPTIONS_ZH = "、".join(
    f"{idc}（{labels.STRUCTURE_ZH[idc]}）" if idc != "独体" else "独体" for idc in labels.STRUCTURES)
STRUCTURE_OPTIONS_EN = ", ".join(f"{idc} ({en})" for idc, en in labels.STRUCTURES.items())
FORMATION_OPTIONS_ZH = "、".join(labels.FORMATIONS)
FORMATION_OPTIONS_EN = ", ".join(f"{en} ({zh})" for zh, en in labels.FORMATIONS.items())
FUNCTION_OPTIONS_ZH = "、".join(labels.FUNCTIONS)
FUNCTION_OPTIONS_EN = ", ".join(f"{en} ({zh})" for zh, en in labels.FUNCTIONS.items())
EVOLUTION_OPTIONS_ZH = "、".join(labels.EVOLUTION_TYPES)
EVOLUTION_OPTIONS_EN = ", ".join(f"{en} ({zh})" for zh, en in labels.EVOLUTION_TYPES.items())

OPTIONS: dict[str, tuple[str, str]] = {
    "SCRC": (SCRIPT_OPTIONS_ZH, SCRIPT_OPTIONS_EN),
    "STRC": (STRUCTURE_OPTIONS_ZH, STRUCTURE_OPTIONS_EN),
    "FORC": (FORMATION_OPTIONS_ZH, FORMATION_OPTIONS_EN),
    "COMF": (FUNCTION_OPTIONS_ZH, FUNCTION_OPTIONS_EN),
    "COME": (EVOLUTION_OPTIONS_ZH, EVOLUTION_OPTIONS_EN),
}

# kind -> [(Chinese phrasing, English phrasing)]
TEMPLATES: dict[str, list[tuple[str, str]]] = {
    # The key is the record's character, a regular-script headword that may be traditional
    # (庫) or a Shuowen head (譱): no phrasing asks for the modern standard form or for how it
    # is written today (issues 20/21 review); the reference also accepts the one-to-one
    # traditional / simplified partner and the 规范字 of a form outside the table.
    "CHAR": [
        ("图中这个字形对应字典中的哪个字头？请直接写出该字。",
         "Which dictionary headword does the glyph in the image correspond to? Write the character."),
        ("请释读图像中的字形，写出它的楷书字头。",
         "Read the glyph in the image and write its regular-script headword."),
        ("这个字形对应哪个楷书字头？",
         "Which regular-script headword does this glyph correspond to?"),
        ("请辨认图中所写之字，以楷书字头作答。",
         "Identify the character written in the image; answer with its regular-script headword."),
    ],
    "SCRC": [
        ("图中字形属于哪一种书体？可选：{options}。",
         "Which script type is the glyph in the image? Options: {options}."),
        ("请判断该字的字形类别（{options}）。",
         "Classify the script of this glyph ({options})."),
        ("在{options}中，图像所示文字属于哪一类？",
         "Among {options}, which one is the writing in the image?"),
    ],
    "STRC": [
        ("该字的结构类型是什么？请从以下选项中选择：{options}。",
         "What is the structure type of this character? Choose from: {options}."),
        ("从构件的空间布局看，这个字属于哪种结构（{options}）？",
         "Judging by how its components are laid out, which structure does this character have ({options})?"),
        ("请判断该字的构形布局，在{options}中作答。",
         "Determine the layout of this character; answer with one of {options}."),
    ],
    "COMR": [
        ("该字由哪些构件组成？请逐一列出。",
         "Which components make up this character? List them one by one."),
        ("请拆分该字，写出它的全部构件。",
         "Split this character and write all of its components."),
        ("这个字可以分析为哪几个构件？",
         "Into which components can this character be analysed?"),
    ],
    "COMF": [
        ("该字各构件在构字中分别承担什么功能（{options}）？",
         "What function does each component of this character have ({options})?"),
        ("请逐一说明该字每个构件的功能：{options}。",
         "For each component of this character, state its function: {options}."),
        ("该字中哪些构件表意、哪些表音？请说明各构件的功能（{options}）。",
         "Which components of this character carry meaning and which carry sound? Give each component's function ({options})."),
    ],
    "COMI": [
        ("请解释该字各构件在构字中的作用。",
         "Explain the role each component plays in forming this character."),
        ("结合构形，逐一解说该字的各个构件。",
         "Going by its composition, explain each component of this character."),
        ("该字的每个构件分别表示什么？请加以说明。",
         "What does each component of this character stand for? Explain."),
    ],
    # COME / COMP_FULL: the evolution types are derived from Shuowen's seal analysis against
    # the modern form, so the questions ask for that span, never for the pre-seal history no
    # source here describes (data review 09-54: 般's 舟 is 保留 from seal to 楷书, while its
    # oracle-bone form is 凡)
    "COME": [
        ("该字各构件自小篆至今字形属于哪种演变类型（{options}）？",
         "From the small seal to the modern form, which evolution type does each component of this character show ({options})?"),
        ("请判断该字每个构件从小篆到今字形的演变类型，可选：{options}。",
         "Give the evolution type of each component of this character from the small seal to the modern form; options: {options}."),
        ("对照小篆与今字形，该字各构件经历了怎样的变化？请按{options}分类作答。",
         "Comparing the small seal with the modern form, how did each component change? Classify each as {options}."),
    ],
    "COMP_FULL": [
        ("请完整列出该字的全部构件，并逐一说明其功能、自小篆至今字形的演变类型与构字解释。",
         "List all components of this character and give, for each, its function, its evolution type from the small seal to the modern form, and its explanation."),
        ("依据构形分析，说明该字各构件的功能、从小篆到今字形的演变类型及其在字中的含义。",
         "From a structural analysis, state each component's function, its evolution type from the small seal to the modern form, and its meaning in the character."),
        ("该字由哪些构件组成？各构件承担何种功能、自小篆至今字形经历了哪种演变、应作何解释？",
         "Which components form this character? What function does each have, what evolution did it undergo from the small seal to the modern form, and how is it explained?"),
    ],
    "COMP_ASPECT": [
        ("请指出该字的义符、声符等构件，并解释各构件在字中的作用。",
         "Identify the semantic, phonetic and other components of this character and explain the role of each."),
        ("该字的构件中，哪些表意、哪些表音？请逐一说明并解释其构字理据。",
         "Among the components of this character, which carry meaning and which carry sound? Explain each one's rationale."),
        ("请对该字作构件分析：列出构件，标明功能，并说明其含义。",
         "Analyse this character's components: list them, mark their functions and explain what they mean."),
    ],
    "FORC": [
        ("该字的造字法属于六书中的哪一种（{options}）？",
         "Which of the Six Writings is this character's formation ({options})?"),
        ("按六书理论，这个字是用什么方法造出来的？请在{options}中选择。",
         "By the Six Writings, how was this character formed? Choose from {options}."),
        ("该字的结构体现了怎样的造字逻辑？请判断其六书归属：{options}。",
         "What formation logic does this character's structure show? Give its Six-Writings class: {options}."),
    ],
    # The reference is Shuowen's gloss (of the seal form): every phrasing says whose gloss it
    # asks for (issue 21), and none claims it is read off the glyph shown, which may be an
    # oracle-bone or bronze form (勿: 州里所建旗). A reference from another source (an
    # expert's correction) is asked with ORIM_UNATTRIBUTED.
    "ORIM": [
        ("据《说文》，该字的本义是什么？",
         "According to the Shuowen, what is the original meaning of this character?"),
        ("《说文》怎样解释该字的本义？",
         "How does the Shuowen explain this character's original meaning?"),
        ("据《说文》，这个字最初的意义是什么？",
         "According to the Shuowen, what did this character originally mean?"),
    ],
    "EVOI": [
        ("请梳理该字的字形演变过程。",
         "Trace how the form of this character evolved."),
        ("该字在历代字形中经历了怎样的变化？",
         "How did this character's form change across the historical scripts?"),
        ("据《说文》、段注等字书所载，说明该字的形体沿革。",
         "From what the dictionaries (Shuowen, Duan's notes) record, describe how this character's form changed."),
    ],
    # {parts} / {parts_en}: the L2 sections the answer holds (structure, components,
    # formation), so a question never asks for what its answer does not give (issue 21)
    "EXEGESIS": [
        ("请从文字学角度全面分析图中之字：识别字头与书体，说明{parts}，给出本义，并梳理字形演变。",
         "Give a full philological analysis of the character in the image: headword and script, {parts_en}, original meaning, and the evolution of its form."),
        ("请对该字形作完整的字理考释，依次说明字头、书体、{parts_seq}、本义与演变。",
         "Explain this glyph completely, in order: headword, script, {parts_seq_en}, original meaning and evolution."),
        ("作为古文字研究者，请系统解说图中文字的形、义与源流。",
         "As a paleographer, explain the form, meaning and history of the character in the image systematically."),
    ],
}

# ORIM phrasings for a reference that is not Shuowen's gloss (an audit correction).
ORIM_UNATTRIBUTED: list[tuple[str, str]] = [
    ("该字的本义是什么？", "What is the original meaning of this character?"),
    ("这个字最初表示什么意义？", "What did this character first mean?"),
    ("请说明该字的本义。", "State the original meaning of this character."),
]

# ORIM phrasings for a reference that is Shuowen's gloss as Duan's edition corrects it (顱
# 「𩑒顱也」 for 大徐's 「𩑒顱，首骨也」): the question names his edition.
ORIM_DUAN: list[tuple[str, str]] = [
    ("据段玉裁《说文解字注》，该字的本义是什么？",
     "According to Duan Yucai's annotated Shuowen, what is the original meaning of this character?"),
    ("《说文》段注本怎样解释该字的本义？",
     "How does Duan Yucai's edition of the Shuowen explain this character's original meaning?"),
    ("据段注本《说文》，这个字最初的意义是什么？",
     "According to Duan's edition of the Shuowen, what did this character originally mean?"),
]

# Section headings of the EXEGESIS answer (the layout of the official analysis samples).
EXEGESIS_SECTIONS_ZH = ("字头与书体", "结构与构件", "造字法", "本义", "字形演变")
EXEGESIS_SECTIONS_EN = ("Headword and script", "Structure and components", "Formation", "Original meaning", "Evolution")


# Kinds whose question does not name the script shown: SCRC asks for it, CHAR comes
# before SCRC in a JieZi-Dataset conversation (naming it there would answer SCRC), and the
# exegesis asks for the script in its first section.
UNNAMED_SCRIPT_KINDS = frozenset({"CHAR", "SCRC", "EXEGESIS"})


# EVOI of an oracle-bone, bronze or Warring States image: no source here describes that
# form, so the question asks for what the dictionaries record (Shuowen's 古文 / 籒文, the seal
# and later forms), not for a reading of the pictured early form (issue 20 review); nor does
# it say "from the seal on", since the record may hold only forms older than it (review of
# out-r9, seed 20261227 item 11: 旁's 古文, 籒文 and seal).
EVOI_DOCUMENTED: list[tuple[str, str]] = [
    ("据字书所载，简述该字见于记载的各个字形及其沿革。",
     "From what the dictionaries record, outline the attested forms of this character and how they changed."),
    ("据《说文》、段注等字书，说明该字有记载的形体及其演变。",
     "From Shuowen, Duan's notes and other dictionaries, describe the recorded forms of this character and their evolution."),
    ("请依据字书记载，梳理该字有文献可考的形体演变。",
     "Following the dictionaries, trace the documented evolution of this character's form."),
]


def question(kind: str, index: int, script: str | None = None, *, attributed: bool | str = True,
             parts: tuple[str, ...] | None = None) -> tuple[str, str]:
    """The (Chinese, English) question of ``kind`` phrasing ``index`` (modulo the number of
    phrasings), with the label options filled in. With ``script`` (an ACCE script label)
    the question first names the script of the glyph shown ("图中字形为金文。"), so an
    answer about structure, components or formation is about that form, except for
    :data:`UNNAMED_SCRIPT_KINDS`. ``attributed=False`` (ORIM only): the reference is not
    Shuowen's gloss, so a phrasing of :data:`ORIM_UNATTRIBUTED` is used; ``"duan"``: it is
    the gloss in Duan's edition (:data:`ORIM_DUAN`). ``parts``
    (EXEGESIS only): the L2 sections of :data:`EXEGESIS_PARTS` its answer holds (default
    all three); the question names only those. Raises ``KeyError`` for an unknown kind,
    script or part."""
    phrasings = TEMPLATES[kind]
    if kind == "ORIM" and attributed == "duan":
        phrasings = ORIM_DUAN
    elif kind == "ORIM" and not attributed:
        phrasings = ORIM_UNATTRIBUTED
    if kind == "EVOI" and script in labels.EARLY_FORM_SCRIPTS:
        phrasings = EVOI_DOCUMENTED
    zh, en = phrasings[index % len(phrasings)]
    if kind == "EXEGESIS":
        zh, en = _exegesis_parts(zh, en, parts if parts is not None else EXEGESIS_PARTS)
    opt_key = "COMF" if kind == "COMF" else kind
    if opt_key in OPTIONS:
        zh_opt, en_opt = OPTIONS[opt_key]
        zh, en = zh.format(options=zh_opt), en.format(options=en_opt)
    if script is not None and kind not in UNNAMED_SCRIPT_KINDS:
        zh = f"{_SCRIPT_PREFIX_ZH}{script}。{zh}"
        en = f"The glyph shown is in {labels.SCRIPTS[script].lower()} ({script}). {en}"
    return zh, en


# The L2 sections an EXEGESIS answer may hold: name, as one phrase, as a sequence item, English
EXEGESIS_PARTS = ("structure", "components", "formation")
_PART_WORDS = {"structure": ("结构", "结构", "structure"), "components": ("构件", "构件", "components"),
               "formation": ("造字法", "六书", "formation")}
_PART_WORDS_SEQ_EN = {"structure": "structure", "components": "components", "formation": "Six-Writings class"}


def _exegesis_parts(zh: str, en: str, parts: tuple[str, ...]) -> tuple[str, str]:
    """Fill the EXEGESIS placeholders with the sections ``parts`` names, in their order."""
    parts = tuple(p for p in EXEGESIS_PARTS if p in parts) or ("structure",)
    words = [_PART_WORDS[p][0] for p in parts]
    phrase = words[0] if len(words) == 1 else "、".join(words[:-1]) + "与" + words[-1]
    en_words = [_PART_WORDS[p][2] for p in parts]
    phrase_en = en_words[0] if len(en_words) == 1 else ", ".join(en_words[:-1]) + " and " + en_words[-1]
    return (zh.format(parts=phrase, parts_seq="、".join(_PART_WORDS[p][1] for p in parts)),
            en.format(parts_en=phrase_en, parts_seq_en=", ".join(_PART_WORDS_SEQ_EN[p] for p in parts)))


_SCRIPT_PREFIX_ZH = "图中字形为"


def split_script_prefix(question_zh: str) -> tuple[str, str]:
    """(the script-naming opening that :func:`question` adds, the rest): ``"图中字形为金文。"``
    and the template wording; ``("", question_zh)`` when the question has none."""
    if question_zh.startswith(_SCRIPT_PREFIX_ZH) and "。" in question_zh:
        head, _, rest = question_zh.partition("。")
        if head[len(_SCRIPT_PREFIX_ZH):] in labels.SCRIPTS:
            return head + "。", rest
    return "", question_zh


def template_id(kind: str, index: int) -> str:
    """Stable id of a phrasing, e.g. ``"SCRC.2"``."""
    return f"{kind}.{index % len(TEMPLATES[kind])}"


assert all(len(v) >= 3 for v in TEMPLATES.values()), "every template kind needs >= 3 phrasings"
assert set(TEMPLATES) == set(KINDS)
