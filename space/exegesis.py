"""One glyph in, a four-level exegesis out: the answers of every ACCE question type, the
neighbour glyphs the answer stands on, and the source of each fact.

Question types (the bench's ``subtask`` column; the component question is scored on
COMR, COMF, COMI and COME, EVOI on its two judge axes), grouped by level as the paper
does (ACCE.md section 1):

- L1 basic: CHAR, SCRC
- L2 form: STRC, the component question (components, function, interpretation), FORC
- L3 meaning: ORIM
- L4 evolution: COME (from the component answer), EVOI

The retrieval baseline (``harness.baselines.retrieval``) answers from the records of the nearest
JieZi-Dataset glyphs; this module also finds, for each answered fact, the record field
(or JieZi-Dataset QA turn) it came from and lists that field's provenance (source, entry
id, exact span, rule). Model backends (``openai:`` / ``hf:``) answer each question from
the image; their facts have no source but the model, and the retrieved neighbours are
shown beside them as look-alike glyphs for the reader to compare.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from metrics.acce import answers, labels

# Question types in display order, with the retrieval baseline's template kind.
QUESTION_TYPES: dict[str, str] = {
    "CHAR": "CHAR", "SCRC": "SCRC", "STRC": "STRC", "COMR": "COMP_FULL", "FORC": "FORC",
    "ORIM": "ORIM", "EVOI": "EVOI",
}
# What each level shows: question types, and COME read off the component answer.
LEVEL_ROWS: dict[str, list[str]] = {
    "L1": ["CHAR", "SCRC"],
    "L2": ["STRC", "COMR", "FORC"],
    "L3": ["ORIM"],
    "L4": ["COME", "EVOI"],
}
LEVEL_NAMES = {"L1": ("基础", "basic"), "L2": ("字形", "form"), "L3": ("字义", "meaning"), "L4": ("演变", "evolution")}
# The record field each question type reads (GlyphRecord, builder/schema.py): the answer
# schema's (metrics/acce/answers.py).
RECORD_FIELD = answers.record_fields()
# The questions an early-form glyph (甲骨文, 金文) is not asked (the bench's L2).
EARLY_FORM_UNANSWERED = frozenset({"STRC", "COMR", "FORC"})
FIELD_WORDS = {"STRC": "structure", "COMR": "components", "FORC": "formation", "ORIM": "original meaning",
               "EVOI": "evolution"}
# Provenance entries listed per fact: enough to check the fact, short enough to read.
MAX_SOURCES = 6


@dataclass
class Neighbour:
    """One retrieved gallery glyph: ``similarity`` is the cosine similarity (-1..1),
    ``weight`` the baseline's softmax weight (0..1, all neighbours sum to 1)."""

    row: int
    image_id: str
    character: str
    script: str
    similarity: float
    weight: float
    image: object = None


@dataclass
class Fact:
    """The answer to one question type.

    ``answer``: the raw answer text; ``parsed``: its structured reading
    (``metrics.acce.core.parse_answer``; None when unparseable or empty); ``sources``:
    provenance dicts (``source``, ``entry_id``, ``span``, ``rule`` and ``via``, the record
    or QA turn they were read from); ``basis``: one line saying how the answer was reached;
    ``error``: why there is no answer, if so.
    """

    qtype: str
    answer: str = ""
    parsed: dict | None = None
    sources: list[dict] = field(default_factory=list)
    basis: str = ""
    error: str | None = None


@dataclass
class Exegesis:
    """A full answer for one glyph image: ``facts`` by question type, ``neighbours``
    (best first), the ``backend`` spec, wall ``seconds``, ``notes`` for the reader and,
    for the retrieval baseline, its ``decision`` (``character``, ``script``,
    ``confidence`` 0-1, ``threshold``, ``abstained``, ``candidates`` [(character, vote
    weight)]: the JSON of ``jiezi explain``)."""

    backend: str
    facts: dict[str, Fact]
    neighbours: list[Neighbour] = field(default_factory=list)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    decision: dict | None = None

    @property
    def abstained(self) -> bool:
        """True when the backend declined to read the glyph (every fact unanswered)."""
        return bool(self.decision and self.decision.get("abstained"))


def parse(answer: str, qtype: str) -> dict | None:
    """``metrics.acce.core.parse_answer`` of a non-empty answer, else None."""
    from metrics.acce.core import parse_answer

    if not answer or not answer.strip():
        return None
    return parse_answer(answer, qtype)


# ------------------------------------------------------------------ retrieval baseline
class RetrievalExplainer:
    """The retrieval baseline of the harness, explained.

    ``baseline``: a ``harness.baselines.retrieval.RetrievalBaseline``; ``turn_sources``: optional
    callable ``image_id -> [(subtask, provenance list)]`` giving the provenance of the
    JieZi-Dataset QA turns of a gallery image (used for values the records lack, such as
    derived evolution types).
    """

    name = "retrieval"

    def __init__(self, baseline, turn_sources=None):
        self.baseline = baseline
        self.records = getattr(baseline, "retrieval", baseline)  # reads records, votes, k and T
        self.gallery = baseline.gallery
        self.turn_sources = turn_sources
        self._lock = threading.Lock()  # the gallery's caches are not thread-safe

    def neighbours(self, image, k: int | None = None) -> list[Neighbour]:
        """The ``k`` nearest gallery glyphs of ``image`` (default: the baseline's k)."""
        from harness.baselines.retrieval import softmax_weights

        k = k or self.records.settings.k
        query = self.gallery.embedder.embed([image])
        sims, idx = self.gallery.search(query, k)
        weights = softmax_weights(sims[0], self.records.settings.temperature)
        return [Neighbour(int(i), self.gallery.ids[int(i)], self.gallery.characters[int(i)],
                          self.gallery.scripts[int(i)], float(s), float(w))
                for s, i, w in zip(sims[0], idx[0], weights)]

    def look_alikes(self, image) -> list[Neighbour]:
        """:meth:`neighbours` with their gallery images loaded (thread-safe)."""
        with self._lock:
            neigh = self.neighbours(image)
            for n in neigh:
                n.image = self.gallery.ds[n.row]["image"]
        return neigh

    def explain(self, image, questions: dict[str, str] | None = None) -> Exegesis:
        """Answer every question type for ``image`` (a PIL image, RGB on white) as ONE
        character: decide it (or abstain), then read every level from its records.
        ``questions`` is ignored: the baseline answers from records, not from wording."""
        import numpy as np

        start = time.perf_counter()
        with self._lock:
            neigh = self.neighbours(image)
            sims = np.array([n.similarity for n in neigh], np.float32)
            idx = np.array([n.row for n in neigh], np.int64)
            d = self.baseline.decide(sims, idx)
            facts = self._abstained_facts(d) if d.abstained else self._character_facts(d, neigh)
            for n in neigh:
                n.image = self.gallery.ds[n.row]["image"]
        cal = self.baseline.calibration
        decision = {"character": d.character, "script": d.script, "confidence": d.confidence,
                    "threshold": cal.threshold if cal else None, "abstained": d.abstained,
                    "candidates": d.candidates, "features": {k: round(v, 4) for k, v in d.features.items()}}
        notes = [f"retrieval baseline: {len(neigh)} nearest of {len(self.gallery):,} gallery glyphs "
                 f"({self.gallery.embedder.name}); it names the gallery character these look like and shows "
                 "that character's records, it does not read this glyph"]
        return Exegesis("retrieval", facts, neigh, time.perf_counter() - start, notes, decision)

    def _abstained_facts(self, d) -> dict[str, Fact]:
        why = (f"abstained: confidence {d.confidence:.2f} is below "
               f"{self.baseline.calibration.threshold:.2f}; nearest candidates "
               + "、".join(f"{c} ({w:.2f})" for c, w in d.candidates[:3]))
        return {q: Fact(q, error=why) for q in QUESTION_TYPES}

    def _character_facts(self, d, neigh: list[Neighbour]) -> dict[str, Fact]:
        known = self.records.character_facts(d.character, d.script, d.rows) if self._has_records(d) else {}
        facts: dict[str, Fact] = {}
        for qtype, kind in QUESTION_TYPES.items():
            fact = Fact(qtype)
            if d.script in labels.EARLY_FORM_SCRIPTS and qtype in EARLY_FORM_UNANSWERED:
                # as the bench: the records analyse the modern / seal form, not this one
                fact.error = (f"no source analyses the {d.script} form of {d.character} "
                              f"(the records describe its modern and seal forms); left unanswered")
                facts[qtype] = fact
                continue
            try:
                fact.answer = (({"CHAR": d.character, "SCRC": d.script}.get(qtype) or "") if qtype in ("CHAR", "SCRC")
                               else self.records.render_fact(known, kind))
                fact.parsed = parse(fact.answer, qtype)
                self._attribute(fact, d, neigh)
            except Exception as exc:  # one failing question never loses the others
                fact.error = f"{type(exc).__name__}: {exc}"
            if not fact.answer and not fact.error:
                fact.error = self._missing(d, qtype)
            facts[qtype] = fact
        return facts

    def _has_records(self, d) -> bool:
        return True

    def _missing(self, d, qtype: str) -> str:
        """Why question type ``qtype`` has no answer for decision ``d``."""
        return f"the records of {d.character} have no {FIELD_WORDS.get(qtype, qtype)}; left unanswered"

    # -- where each fact came from ---------------------------------------------------
    def _attribute(self, fact: Fact, d, neigh: list[Neighbour]) -> None:
        if not fact.answer:
            return
        mine = [n for n in neigh if n.row in d.rows]
        if fact.qtype == "CHAR":
            fact.basis = (f"{len(mine)} of {len(neigh)} nearest glyphs are {d.character} "
                          f"(vote weight {sum(n.weight for n in mine):.2f}); confidence {d.confidence:.2f}")
            for n in mine[:MAX_SOURCES]:
                fact.sources.append({"source": "gallery image", "entry_id": n.image_id, "span": n.character,
                                     "rule": "image.label", "via": f"similarity {n.similarity:.3f}"})
            return
        if fact.qtype == "SCRC":
            counts = "、".join(f"{c} {s}" for s, c in sorted(d.script_votes.items(), key=lambda t: -t[1]))
            merged = any(labels.scoring_script(s) != s for s in d.script_votes)
            cov = "、".join(self.gallery.coverage()["scripts"])
            fact.basis = (f"weighted vote of {d.character}'s {len(mine)} nearest glyphs: {counts}"
                          + ("（简体 counted as 楷书）" if merged else "") + f"; the gallery holds only {cov}")
            for n in mine[:MAX_SOURCES]:
                fact.sources.append({"source": "gallery image", "entry_id": n.image_id, "span": n.script,
                                     "rule": "image.label", "via": f"similarity {n.similarity:.3f}"})
            return
        fact.basis = f"from the records of {d.character} ({d.script} first), the character decided above"
        self._sources_of(fact, d.character, d.script, d.rows)
        fact.sources = fact.sources[:MAX_SOURCES] if fact.qtype != "COMR" else fact.sources

    def _sources_of(self, fact: Fact, character: str, script: str, rows: list[int]) -> None:
        records = self.gallery.records_of(character)
        records.sort(key=lambda r: r.get("script") != script)
        if fact.qtype == "COMR":
            self._component_sources(fact, records, rows)
            return
        field_name = RECORD_FIELD[fact.qtype]
        for rec in records:
            grounded = rec.get(field_name)
            if isinstance(grounded, dict) and grounded.get("provenance"):
                fact.sources.extend(_with_via(grounded["provenance"], f"record {rec['id']}", field_name))
                return
        self._turn_sources(fact, rows, {fact.qtype}, fields=(field_name,))

    def _component_sources(self, fact: Fact, records: list[dict], rows: list[int]) -> None:
        comps = (fact.parsed or {}).get("components") or []
        missing_evolution = False
        for comp in comps:
            name = comp.get("name")
            for rec in records:
                hit = next((c for c in rec.get("components") or [] if c.get("name") == name), None)
                if hit is None:
                    continue
                via = f"record {rec['id']}, component 「{name}」"
                fact.sources.extend(_with_via(hit.get("provenance") or [], via, "components")[:3])
                fact.sources.extend(_with_via(hit.get("interpretation_provenance") or [], via,
                                              "components.interpretation")[:2])
                fact.sources.extend(_with_via(hit.get("evolution_provenance") or [], via,
                                              "components.evolution_type")[:2])
                if comp.get("evolution_type") and not hit.get("evolution_type"):
                    missing_evolution = True
                break
        if missing_evolution:  # evolution types derived at the QA stage live in the turns
            self._turn_sources(fact, rows, {"COME", "COMR"}, fields=("components.evolution",))

    def _turn_sources(self, fact: Fact, rows: list[int], codes: set[str], fields: tuple[str, ...] = ()) -> None:
        if self.turn_sources is None:
            return
        for row in rows:
            image_id = self.gallery.ids[row]
            for code, provs in self.turn_sources(image_id):
                if code not in codes:
                    continue
                # the turn's own entries for the field, else everything the turn cites
                picked = [p for p in provs if any(str(p.get("field", "")).startswith(f) for f in fields)] or provs
                if picked:
                    fact.sources.extend(_with_via(picked, f"JieZi-Dataset QA turn of image {image_id}",
                                                  picked[0].get("field", "")))
                    return


class FusedExplainer(RetrievalExplainer):
    """The fused baseline (``harness.baselines.fusion.FusedBaseline``: PP-OCR and retrieval) or the
    recogniser alone (``harness.baselines.ocr_baseline.OCRBaseline``), explained: the character is
    decided from the recogniser's reading and the neighbours together, the script by
    retrieval (the recogniser knows none), every later level from the decided character's
    own records with their provenance; the decision says what read the glyph."""

    READ_BY = {"both": "OCR and retrieval", "ocr": "OCR", "retrieval": "retrieval",
               "templates": "font templates", "fusion": "OCR + retrieval fusion"}

    def __init__(self, baseline, turn_sources=None, name: str = "fused"):
        super().__init__(baseline, turn_sources)
        self.name = name

    def explain(self, image, questions: dict[str, str] | None = None) -> Exegesis:
        """Answer every question type for ``image`` as ONE character (or abstain);
        ``questions`` is ignored (the answers come from records, not from wording)."""
        import numpy as np

        start = time.perf_counter()
        with self._lock:
            neigh = self.neighbours(image)
            reading = self.baseline.read([image])[0]
            if hasattr(self.baseline, "candidate_table"):  # fused: OCR + retrieval
                sims = np.array([n.similarity for n in neigh], np.float32)
                idx = np.array([n.row for n in neigh], np.int64)
                query = self.gallery.embedder.embed([image])[0]
                d = self.baseline.decide(query, sims, idx, reading)
            else:
                d = self.baseline.decide(reading)
            facts = self._abstained_facts(d) if d.abstained else self._character_facts(d, neigh)
            for n in neigh:
                n.image = self.gallery.ds[n.row]["image"]
        model = self.baseline.model
        decision = {"character": d.character, "script": d.script, "confidence": d.confidence,
                    "threshold": model.threshold if model else None, "abstained": d.abstained,
                    "candidates": d.candidates, "features": d.features, "component": d.component,
                    "read_by": self.READ_BY.get(d.component, d.component),
                    "ocr": {"text": reading.text, "candidates": [[c, round(p, 4)] for c, p in reading.candidates[:5]]},
                    "retrieval_candidates": d.retrieval_candidates}
        notes = [f"{self.name}: PP-OCR (PaddleOCR PP-OCRv6, Apache-2.0) read 「{reading.text or '—'}」; "
                 f"{len(neigh)} nearest of {len(self.gallery):,} gallery glyphs give the script and a second opinion "
                 "on the character; every later level is that character's own records"]
        return Exegesis(self.name, facts, neigh, time.perf_counter() - start, notes, decision)

    def _abstained_facts(self, d) -> dict[str, Fact]:
        why = (f"abstained: confidence {d.confidence:.2f} is below {self.baseline.model.threshold:.2f}; "
               "nearest candidates " + "、".join(f"{c} ({w:.2f})" for c, w in d.candidates[:3]))
        return {q: Fact(q, error=why) for q in QUESTION_TYPES}

    def _has_records(self, d) -> bool:
        return bool(self.gallery.records_of(d.character))

    def _missing(self, d, qtype: str) -> str:
        if qtype == "SCRC" and not d.script:
            return "OCR reads characters, not scripts: no script is decided"
        if not self._has_records(d):
            return (f"the gallery holds no record of {d.character} (read by "
                    f"{self.READ_BY.get(d.component, d.component)} alone); left unanswered")
        return super()._missing(d, qtype)

    def _attribute(self, fact: Fact, d, neigh: list[Neighbour]) -> None:
        if fact.qtype == "SCRC" and fact.answer and not any(n.character == d.character for n in neigh):
            counts = "、".join(f"{c} {s}" for s, c in sorted(d.script_votes.items(), key=lambda t: -t[1]))
            why = f"none is {d.character}" if d.rows else f"the gallery has no image of {d.character}"
            fact.basis = f"retrieval: weighted vote of the {len(neigh)} nearest gallery glyphs ({why}): {counts}"
            return
        if fact.qtype != "CHAR" or not fact.answer:
            super()._attribute(fact, d, neigh)
            return
        ocr = dict((d.ocr or {}).get("candidates") or [])
        p = ocr.get(d.character)
        mine = [n for n in neigh if n.character == d.character]
        tmpl = (d.features or {}).get("template")
        fact.basis = (f"read by {self.READ_BY.get(d.component, d.component)}: OCR probability "
                      f"{'-' if p is None else f'{p:.2f}'}, {len(mine)} of {len(neigh)} nearest glyphs are "
                      f"{d.character}" + (f", font-template similarity {tmpl:.2f}" if tmpl else "")
                      + f"; confidence {d.confidence:.2f}")
        fact.sources.append({"source": "PP-OCRv6 recogniser", "entry_id": self.baseline.reader.rec_path.name,
                             "span": (d.ocr or {}).get("text", ""), "rule": "single-character CTC probability",
                             "via": f"p {'-' if p is None else f'{p:.3f}'}"})
        for n in mine[:MAX_SOURCES - 1]:
            fact.sources.append({"source": "gallery image", "entry_id": n.image_id, "span": n.character,
                                 "rule": "image.label", "via": f"similarity {n.similarity:.3f}"})


def _with_via(provs: list[dict], via: str, field_name: str) -> list[dict]:
    return [{"source": p.get("source", "?"), "entry_id": str(p.get("entry_id", "")), "span": p.get("span", ""),
             "rule": p.get("rule", ""), "via": via, "field": p.get("field", field_name)} for p in provs]


# ------------------------------------------------------------------------ model backends
class ModelExplainer:
    """An ``openai:`` / ``hf:`` model of the harness, asked every question type.

    ``spec``: the model spec shown to the reader; ``ask``: ``(image, {qtype: question})
    -> {qtype: answer text or the Exception raised}`` (``space.backends`` builds it over
    a harness backend); ``neighbours``: an optional :class:`RetrievalExplainer` whose
    nearest glyphs are shown beside the model's answers.
    """

    def __init__(self, spec: str, ask, neighbours: RetrievalExplainer | None = None):
        self.name = spec
        self._ask = ask
        self._neighbours = neighbours

    def explain(self, image, questions: dict[str, str] | None = None) -> Exegesis:
        """Ask the model each question type (``questions[qtype]`` or the default
        wording) about ``image``; a failing question is recorded on its fact."""
        from harness.prompts import PARAPHRASES

        start = time.perf_counter()
        qs = {q: (questions or {}).get(q) or PARAPHRASES[q][0] for q in QUESTION_TYPES}
        answers = self._ask(image, qs)
        facts = {}
        for qtype in QUESTION_TYPES:
            got = answers.get(qtype)
            fact = Fact(qtype, basis=f"answer of {self.name}")
            if isinstance(got, Exception):
                fact.error = f"{type(got).__name__}: {got}"
            else:
                fact.answer = got or ""
                try:
                    fact.parsed = parse(fact.answer, qtype)
                except ValueError as exc:
                    fact.error = str(exc)
                if not fact.answer:
                    fact.error = "the model returned an empty answer"
            facts[qtype] = fact
        neigh = []
        notes = [f"{self.name}: the model's own answers; no dictionary source backs them"]
        if self._neighbours is not None:
            try:
                neigh = self._neighbours.look_alikes(image)
            except Exception as exc:
                notes.append(f"neighbour glyphs unavailable: {exc}")
        return Exegesis(self.name, facts, neigh, time.perf_counter() - start, notes)
