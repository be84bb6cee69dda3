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
"""

from __future__ import annotations

import importlib.metadata
import threading
from dataclasses import dataclass

DEFAULT_MODEL = "bert-base-chinese"
DEFAULT_LAYERS = 8


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


class BertScoreUnavailable(RuntimeError):
    """The configured BERTScore model could not be loaded (the message says why)."""


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
        self.model = str(model)
        self.layers = int(layers)
        self.batch_size = int(batch_size)
        self.device = device
        self.chunk_size = int(chunk_size)
        self._loaded: _Loaded | None = None

    def load(self) -> _Loaded:
        """Load (or reuse) the scorer; raise ``BertScoreUnavailable`` naming the model and cause."""
        if self._loaded is not None:
            return self._loaded
        key = (self.model, self.layers, self.device)
        with _LOCK:
            if key not in _CACHE:
                _CACHE[key] = self._build()
            self._loaded = _CACHE[key]
        return self._loaded

    def _build(self) -> _Loaded:
        try:
            from bert_score import BERTScorer
            from transformers import AutoConfig

            config = AutoConfig.from_pretrained(self.model)
            n_layers = getattr(config, "num_hidden_layers", None) or getattr(config, "num_layers", None)
            if n_layers is not None:
                states = min(self.layers, int(n_layers) + 1)
                scorer = BERTScorer(model_type=self.model, num_layers=states - 1, all_layers=False,
                                    batch_size=self.batch_size, device=self.device)
                # bert_score dropped the layers beyond states-1; now ask for every hidden state.
                scorer.all_layers = True
            else:
                states = self.layers
                scorer = BERTScorer(model_type=self.model, num_layers=self.layers, all_layers=True,
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
        return info
