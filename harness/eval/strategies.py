"""Prompting strategies for `openai:` / `hf:` models (paper Table 11).

- ``zero-shot``: the system prompt, then the glyph image with the question and its format
  hint.
- ``icl``: few-shot in-context learning with 3 training examples retrieved by image
  similarity alone (no bench label or reference is used): among the 12 nearest gallery
  glyphs, those whose JieZi-Dataset turn of the same subtask best fits the question type
  (nearest first on ties); each is the neighbour image with its training question, then
  its training answer, as earlier user / assistant turns.
- ``rag``: retrieval-augmented generation: the structured records and QA turns of the
  top-3 retrieved characters as text before the question.
- ``dict``: dictionary-context prompting: the same retrieval, rendered as dictionary
  entries (headword, reading, structure, formation, components, meaning, evolution).

The paper retrieved with SigLIP2; this project retrieves with the glyph embedder of
:mod:`harness.baselines.embed` (the one the retrieval baseline uses), and records that in
results.json. Texts are in :mod:`harness.prompts` under ``PROMPT_VERSION``.
"""

from __future__ import annotations

from harness import prompts, render

STRATEGIES = ("zero-shot", "icl", "rag", "dict")
SHOTS = 3


def _user(image, text: str) -> dict:
    return {"role": "user", "content": [{"type": "image", "image": image}, {"type": "text", "text": text}]}


def _system(text: str) -> dict:
    return {"role": "system", "content": [{"type": "text", "text": text}]}


def zero_shot(image, question: str, qtype: str) -> list[dict]:
    """System prompt + one user turn (image, question, format hint)."""
    return [_system(prompts.SYSTEM_PROMPT), _user(image, prompts.user_text(question, qtype))]


def _fit(qtype: str, answer: str) -> int:
    """How well a training answer matches the asked question type (higher is better): a
    component demonstration should carry the fields asked for, an evolution demonstration
    should be a narrative rather than a full sectioned exegesis."""
    if qtype == "COMP_FULL":
        return ("功能" in answer) + ("演变类型" in answer) + ("解释" in answer)
    if qtype == "COMP_ASPECT":
        return ("功能" in answer) + ("解释" in answer) - ("演变类型" in answer)
    if qtype == "EVOI":
        return -int("【" in answer)
    return 0


def icl_examples(gallery, idx, subtask: str, qtype: str | None = None, shots: int = SHOTS) -> list[tuple[int, str, str]]:
    """``shots`` demonstrations from the neighbours ``idx`` (gallery rows, best first):
    ``[(row, question, answer)]`` in similarity order. Each neighbour offers its
    JieZi-Dataset turn of ``subtask`` that best fits question type ``qtype`` (see
    :func:`_fit`); the best-fitting offers win, nearer neighbours breaking ties, so a
    component question is shown component answers with the same fields when the
    neighbours have them."""
    offers = []
    for rank, row in enumerate(idx):
        pairs = gallery.examples(int(row), subtask)
        if pairs:
            q, a = max(pairs, key=lambda qa: _fit(qtype or subtask, qa[1]))
            offers.append((-_fit(qtype or subtask, a), rank, int(row), q, a))
    chosen = sorted(sorted(offers)[:shots], key=lambda o: o[1])
    return [(row, q, a) for _, _, row, q, a in chosen]


def icl(image, question: str, qtype: str, subtask: str, gallery, idx, shots: int = SHOTS) -> list[dict]:
    """Few-shot ICL messages: system prompt with the ICL note, ``shots`` demonstrations
    (neighbour image + its training question -> its training answer), then the query
    with the format hint."""
    msgs = [_system(prompts.SYSTEM_PROMPT + "\n" + prompts.ICL_INTRO)]
    for row, q, a in icl_examples(gallery, idx, subtask, qtype, shots):
        msgs.append(_user(gallery.ds[row]["image"], q))
        msgs.append({"role": "assistant", "content": [{"type": "text", "text": a}]})
    msgs.append(_user(image, prompts.user_text(question, qtype)))
    return msgs


def top_characters(gallery, idx, n: int = SHOTS) -> list[tuple[str, str, int]]:
    """The first ``n`` distinct characters among neighbour rows ``idx``:
    ``[(character, script, row)]``."""
    seen, out = set(), []
    for row in idx:
        c = gallery.characters[int(row)]
        if c not in seen:
            seen.add(c)
            out.append((c, gallery.scripts[int(row)], int(row)))
        if len(out) == n:
            break
    return out


def rag(image, question: str, qtype: str, subtask: str, gallery, idx, shots: int = SHOTS) -> list[dict]:
    """RAG messages: the records and same-subtask QA turns of the top ``shots`` retrieved
    characters as context, then the image and question."""
    blocks = []
    for k, (c, s, row) in enumerate(top_characters(gallery, idx, shots), 1):
        rec = gallery.record(c, s)
        text = f"[资料{k}]\n" + (render.record_context(rec) if rec else f"字头: {c}\n书体: {s}")
        pairs = gallery.examples(row, subtask)
        if pairs:
            q, a = max(pairs, key=lambda qa: _fit(qtype, qa[1]))
            text += f"\n问：{q}\n答：{a}"
        blocks.append(text)
    context = prompts.RAG_INTRO + "\n\n" + "\n\n".join(blocks)
    return [_system(prompts.SYSTEM_PROMPT),
            {"role": "user", "content": [{"type": "text", "text": context},
                                         {"type": "image", "image": image},
                                         {"type": "text", "text": prompts.user_text(question, qtype)}]}]


def dictionary(image, question: str, qtype: str, gallery, idx, shots: int = SHOTS) -> list[dict]:
    """Dictionary-context messages: dictionary entries of the top ``shots`` retrieved
    characters, then the image and question."""
    entries = []
    for c, s, _ in top_characters(gallery, idx, shots):
        rec = gallery.record(c, s)
        entries.append(render.dictionary_entry(rec) if rec else f"【{c}】（{s}）")
    context = prompts.DICT_INTRO + "\n\n" + "\n\n".join(entries)
    return [_system(prompts.SYSTEM_PROMPT),
            {"role": "user", "content": [{"type": "text", "text": context},
                                         {"type": "image", "image": image},
                                         {"type": "text", "text": prompts.user_text(question, qtype)}]}]


def build_messages(strategy: str, image, question: str, qtype: str, subtask: str, gallery=None, idx=None) -> list[dict]:
    """Messages for one question under ``strategy`` (one of :data:`STRATEGIES`).
    ``gallery`` / ``idx`` (neighbour rows, best first) are required for icl, rag and dict.
    Raises ``ValueError`` for an unknown strategy or missing neighbours."""
    if strategy == "zero-shot":
        return zero_shot(image, question, qtype)
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; expected one of {list(STRATEGIES)}")
    if gallery is None or idx is None:
        raise ValueError(f"strategy {strategy!r} needs the retrieval gallery and the image's neighbours")
    if strategy == "icl":
        return icl(image, question, qtype, subtask, gallery, idx)
    if strategy == "rag":
        return rag(image, question, qtype, subtask, gallery, idx)
    return dictionary(image, question, qtype, gallery, idx)
