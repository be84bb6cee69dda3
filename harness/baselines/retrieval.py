"""The offline JieZi retrieval baseline: the nearest JieZi-Dataset glyphs
(:class:`harness.baselines.gallery.Gallery`) decide the character, its records give the answers.

:class:`RetrievalBaseline` answers for ONE character per glyph:

1. neighbour weights ``w_i = exp((s_i - s_1) / T)`` over the top ``k`` similarities ``s``
   (``T``: :attr:`RetrievalSettings.temperature`); the character with the largest summed
   weight is the answer, its script the weighted vote of that character's neighbours
   only (简体 counted with 楷书, as the scorer does) (:meth:`RetrievalBaseline.decide`);
2. a calibrated confidence (:mod:`harness.baselines.abstention`: vote margin and top similarity,
   fitted on held-out gallery glyphs by
   :func:`harness.baselines.calibration.fit_calibration`); below its
   threshold the baseline abstains and every question of the glyph stays unanswered
   (an empty answer, counted as unanswered and scored 0);
3. every other level (STRC, FORC, components, ORIM, EVOI) comes from that character's
   records (the decided script's first) and the QA turns of that character's
   neighbour images; a value they lack stays unanswered, never borrowed from another
   character.

Evolution types and narratives are derived at the QA stage, not stored in records, so
they are read from JieZi-Dataset's ``all`` config with ``metrics.acce.core.parse_answer``.
The gallery never holds bench images, and for bench characters its records carry no
Shuowen / Duan text (``builder.qa.stage.gallery_record``), so no reference leaks in.
Answers are rendered in the bench's formats (:mod:`harness.render`).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from harness import render
from harness.baselines.abstention import Calibration
from harness.baselines.calibration import load_or_fit_calibration
from harness.baselines.embed import make_embedder
from harness.baselines.gallery import Gallery
from metrics.acce import labels
from metrics.acce.core import parse_answer


@dataclass
class RetrievalSettings:
    """Settings of the retrieval baseline, recorded in results.json.

    ``k``: neighbours used (>= 1); ``temperature``: softmax temperature over cosine
    similarities (> 0; smaller trusts the first neighbour more); ``embedder``: a name of
    :data:`harness.baselines.embed.EMBEDDERS`; ``use_turns``: fall back to JieZi-Dataset QA turns of
    the decided character for values its records lack; ``abstain``: answer nothing when
    the calibrated confidence is below the calibration's threshold.

    The defaults were chosen on the gallery alone, never on the bench: leave-one-out over
    2,000 gallery glyphs whose (character, script) has other images (each query's own
    image removed), grid k in {1, 5, 10, 20} x T in {0.005 .. 0.1}; k=10, T=0.02 gave the
    best character accuracy (87.2% vs 83.5% for k=1) with structure / formation agreement
    99.2% / 97.6% on the default build.
    """

    k: int = 10
    temperature: float = 0.02
    embedder: str = "hog"
    use_turns: bool = True
    abstain: bool = True

    def __post_init__(self):
        if self.k < 1:
            raise ValueError(f"retrieval k must be >= 1, got {self.k}")
        if not self.temperature > 0:
            raise ValueError(f"retrieval temperature must be > 0, got {self.temperature}")


_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\U00020000-\U0003134f]")


def _is_chinese(text: str | None) -> bool:
    """True when ``text`` contains at least one Han character."""
    return bool(text) and bool(_HAN.search(text))


def _evolution_section(text: str) -> str:
    """The evolution part of an answer: the text after a 字形演变 heading when the answer is
    a full exegesis, else the whole text."""
    for head in ("【字形演变】", "字形演变：", "字形演变:", "字形演变"):
        if head in text and not text.startswith(head):
            return text.split(head, 1)[1].strip(" ：:\n")
    return text.strip()


@dataclass
class Decision:
    """The baseline's reading of one glyph.

    ``character`` / ``script``: the decided pair (None when abstaining); ``confidence``:
    calibrated P(character right), 0-1; ``abstained``: confidence below the threshold (or
    abstention off: never); ``candidates``: ``[(character, vote weight)]`` best first
    (the nearest candidates shown when abstaining); ``rows``: the decided character's
    neighbour gallery rows; ``features``: :data:`harness.baselines.abstention.FEATURES` values;
    ``script_votes``: ``{raw gallery script label: count among rows}``.
    """

    character: str | None
    script: str | None
    confidence: float
    abstained: bool
    candidates: list[tuple[str, float]]
    rows: list[int]
    features: dict
    script_votes: dict


class RetrievalBaseline:
    """Answers bench rows from the nearest gallery glyphs (see module docstring).

    Usage: ``rb = RetrievalBaseline(gallery, settings, calibration)``; ``rb.decide(sims,
    idx)`` -> :class:`Decision`; ``rb.answer(sims, idx, kind)`` -> the answer text of one
    question of template ``kind`` (CHAR, SCRC, STRC, FORC, ORIM, EVOI, COMP_FULL,
    COMP_ASPECT or a single component subtask); ``""`` when abstaining or when the
    decided character's records lack the value. Without a ``calibration`` the baseline
    never abstains (confidence is then the winner's vote weight, uncalibrated).
    """

    def __init__(self, gallery: Gallery, settings: RetrievalSettings | None = None,
                 calibration: Calibration | None = None):
        self.gallery = gallery
        self.settings = settings or RetrievalSettings()
        self.calibration = calibration
        self.decisions = {"glyphs": 0, "abstained": 0}  # distinct (sims, idx) decided, for results
        self._counted: set[bytes] = set()

    def describe(self) -> dict:
        """The baseline's settings, gallery (with coverage) and calibration, for results.json."""
        cal = self.calibration.to_dict() if self.calibration else None
        return {"retrieval": asdict(self.settings), "gallery": self.gallery.describe(), "calibration": cal,
                "abstention": self.abstention_summary()}

    def abstention_summary(self) -> dict:
        """Glyphs decided and abstained on so far (each distinct neighbour list once)."""
        d = dict(self.decisions)
        d["abstained_share"] = round(d["abstained"] / d["glyphs"], 4) if d["glyphs"] else None
        return d

    # -- voting ----------------------------------------------------------------------
    def _weights(self, sims: np.ndarray) -> np.ndarray:
        return softmax_weights(sims, self.settings.temperature)

    def character_votes(self, sims: np.ndarray, idx: np.ndarray) -> list[tuple[str, float, list[int]]]:
        """Characters of the neighbours with summed weights, best first:
        ``[(character, weight, [gallery rows])]``."""
        w = self._weights(sims)
        acc: dict[str, float] = defaultdict(float)
        rows: dict[str, list[int]] = defaultdict(list)
        for wi, i in zip(w, idx):
            c = self.gallery.characters[int(i)]
            acc[c] += float(wi)
            rows[c].append(int(i))
        return sorted(((c, acc[c], rows[c]) for c in acc), key=lambda t: -t[1])

    def script_vote(self, sims: np.ndarray, idx: np.ndarray) -> str:
        """The script label with the largest summed weight over the given neighbours
        (简体 merged into 楷书)."""
        w = self._weights(sims)
        acc: dict[str, float] = defaultdict(float)
        for wi, i in zip(w, idx):
            s = self.gallery.scripts[int(i)]
            acc[labels.scoring_script(s)] += float(wi)
        return max(acc, key=acc.get)

    def features(self, sims: np.ndarray, idx: np.ndarray) -> tuple[dict, list]:
        """(:data:`harness.baselines.abstention.FEATURES` of the vote, the character votes)."""
        votes = self.character_votes(sims, idx)
        w1 = votes[0][1]
        w2 = votes[1][1] if len(votes) > 1 else 0.0
        rows = votes[0][2]
        top = float(max(sims[list(idx).index(r)] for r in rows))
        return {"margin": w1 - w2, "top_similarity": top, "support": len(rows) / len(idx)}, votes

    def decide(self, sims: np.ndarray, idx: np.ndarray, *, count: bool = False, calibrated: bool = True) -> Decision:
        """Decide the character, then its script from that character's neighbours only,
        and whether to abstain (see class docstring). ``count`` adds the decision to
        :attr:`decisions`; ``calibrated=False`` ignores the calibration (never abstains;
        used while fitting it). Raises ``ValueError`` on an empty neighbour list."""
        if len(idx) == 0:
            raise ValueError("retrieval: no neighbours to decide from")
        sims, idx = np.asarray(sims), np.asarray(idx)
        feats, votes = self.features(sims, idx)
        character, _, rows = votes[0]
        mine = np.isin(idx, rows)
        script = self.script_vote(sims[mine], idx[mine])
        raw: dict[str, int] = defaultdict(int)
        for r in rows:
            raw[self.gallery.scripts[r]] += 1
        if self.calibration is not None and calibrated:
            confidence = self.calibration.confidence(feats)
            abstained = self.settings.abstain and confidence < self.calibration.threshold
        else:
            confidence, abstained = float(votes[0][1]), False
        if count:
            self.decisions["glyphs"] += 1
            self.decisions["abstained"] += int(abstained)
        return Decision(None if abstained else character, None if abstained else script, round(confidence, 4),
                        abstained, [(c, round(w, 4)) for c, w, _ in votes[:5]], rows, feats, dict(raw))

    # -- facts of a character --------------------------------------------------------
    def character_facts(self, character: str, script: str, rows: list[int]) -> dict:
        """Values known for ``character``: records (``script`` first, then the others),
        then the parsed QA turns of its neighbour images ``rows`` for what the records lack."""
        facts: dict = {}
        recs = self.gallery.records_of(character)
        recs.sort(key=lambda r: r.get("script") != script)
        for rec in recs:
            for key, value in render.record_facts(rec).items():
                if key == "components":
                    self._merge_components(facts, value)
                else:
                    facts.setdefault(key, value)
        needs_turns = ("evolution" not in facts or "original_meaning" not in facts or "structure" not in facts
                       or "formation" not in facts or not facts.get("components")
                       or any(not c.get("evolution_type") or not _is_chinese(c.get("interpretation"))
                              for c in facts["components"]))
        if self.settings.use_turns and needs_turns:
            for row in rows:
                self._facts_from_turns(facts, self.gallery.turns(row))
        return clean_facts(character, facts)

    @staticmethod
    def _merge_components(facts: dict, comps: list[dict]) -> None:
        if not facts.get("components"):
            facts["components"] = [dict(c) for c in comps]
            return
        by_name = {c["name"]: c for c in facts["components"]}
        for c in comps:
            mine = by_name.get(c["name"])
            if mine is None:
                continue  # the first source's component list is kept as is
            for key in ("functions", "interpretation", "evolution_type"):
                if not mine.get(key) and c.get(key):
                    mine[key] = c[key]
            # Records keep makemeahanzi's English hints; the dataset's QA turns state the
            # same component in Chinese, the language of the bench's references.
            if c.get("interpretation") and _is_chinese(c["interpretation"]) and not _is_chinese(mine.get("interpretation")):
                mine["interpretation"] = c["interpretation"]

    def _facts_from_turns(self, facts: dict, turns: list[tuple[str, str, str]]) -> None:
        for subtask, _question, answer in turns:
            code = str(subtask).upper()
            try:
                if code == "STRC" and "structure" not in facts:
                    got = parse_answer(answer, "STRC")
                    if got:
                        facts["structure"] = got["structure"]
                elif code == "FORC" and "formation" not in facts:
                    got = parse_answer(answer, "FORC")
                    if got:
                        facts["formation"] = (["形声", "会意"] if got.get("yisheng") else got["formation"])
                elif code in labels.COMPONENT_SUBTASKS:
                    got = parse_answer(answer, code)
                    if got:
                        self._merge_components(facts, got["components"])
                elif code == "ORIM" and "original_meaning" not in facts:
                    got = parse_answer(answer, "ORIM")
                    if got:
                        facts["original_meaning"] = got["original_meaning"]
                elif code == "EVOI" and ("evolution" not in facts or facts.get("_evolution_from_exegesis")):
                    text = _evolution_section(answer)
                    exegesis = text != answer.strip()
                    if text and ("evolution" not in facts or not exegesis):
                        facts["evolution"] = text
                        facts["_evolution_from_exegesis"] = exegesis
            except ValueError:
                continue

    # -- answers ---------------------------------------------------------------------
    def answer(self, sims: np.ndarray, idx: np.ndarray, kind: str) -> str:
        """The answer text for one question of template ``kind`` given one query's
        neighbours (``sims``, ``idx`` from :meth:`Gallery.search`). Returns ``""`` when
        abstaining or when the decided character's records and QA turns lack the value.
        Raises ``ValueError`` on an unknown ``kind``."""
        if len(idx) == 0:
            return ""
        key = np.asarray(idx).tobytes() + np.asarray(sims, np.float32).tobytes()
        seen = key in self._counted
        self._counted.add(key)
        d = self.decide(sims, idx, count=not seen)
        if d.abstained:
            return ""
        if kind == "CHAR":
            return d.character
        if kind == "SCRC":
            return d.script
        return self.render_fact(self.character_facts(d.character, d.script, d.rows), kind)

    @staticmethod
    def render_fact(facts: dict, kind: str) -> str:
        """One question's answer text from one character's facts (``""`` when absent)."""
        if kind in ("STRC", "FORC"):
            value = facts.get("structure" if kind == "STRC" else "formation")
            if not value:
                return ""
            return render.structure_text(value) if kind == "STRC" else render.formation_text(list(value))
        if kind in ("COMP_FULL", "COMP_ASPECT", "COMR", "COMF", "COMI", "COME"):
            if not facts.get("components"):
                return ""
            return render.components_text(
                facts["components"], functions=kind in ("COMP_FULL", "COMP_ASPECT", "COMF"),
                evolution=kind in ("COMP_FULL", "COME"), interpretation=kind in ("COMP_FULL", "COMP_ASPECT", "COMI"))
        field_name = {"ORIM": "original_meaning", "EVOI": "evolution"}.get(kind)
        if field_name is None:
            raise ValueError(f"retrieval baseline: unknown question kind {kind!r}")
        return facts.get(field_name) or ""


_IDC = re.compile(r"[\u2ff0-\u2fff]")
_PUNCT = " \t\n。，、；：「」『』“”（）()．.,;:!?！？"


def clean_facts(character: str, facts: dict) -> dict:
    """Drop values that are not answers (seen in user tests): an original meaning that
    is only the character itself (巳 glossed as 「巳」) and components whose name is a raw
    IDS string (「⿱竹𦻍」: an unsplit description, not a component). Returns ``facts``."""
    meaning = facts.get("original_meaning")
    if isinstance(meaning, str) and meaning.strip(_PUNCT) in ("", character):
        facts.pop("original_meaning")
    if facts.get("components"):
        facts["components"] = [c for c in facts["components"] if not _IDC.search(str(c.get("name") or ""))]
        if not facts["components"]:
            facts.pop("components")
    return facts


def softmax_weights(sims: np.ndarray, temperature: float) -> np.ndarray:
    """``exp((s - max s) / T)`` normalised to sum 1 (the baseline's neighbour weights)."""
    w = np.exp((np.asarray(sims, np.float64) - float(np.max(sims))) / temperature)
    return w / w.sum() if math.isfinite(w.sum()) and w.sum() > 0 else np.full(len(w), 1.0 / len(w))


def build_baseline(gallery_source: str | Path, settings: RetrievalSettings | None = None, *,
                   cache_dir: Path | None = None, progress: bool = True) -> RetrievalBaseline:
    """Load and embed the gallery, fit (or load) the abstention calibration and return
    the baseline. Raises ``harness.bench.BenchError`` when the gallery cannot be loaded."""
    settings = settings or RetrievalSettings()
    gallery = Gallery(gallery_source, make_embedder(settings.embedder), cache_dir=cache_dir, progress=progress)
    baseline = RetrievalBaseline(gallery, settings)
    baseline.calibration = load_or_fit_calibration(baseline, cache_dir)
    return baseline
