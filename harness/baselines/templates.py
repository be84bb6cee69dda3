"""The font-template reader of the fused baseline (:mod:`harness.baselines.fusion`).

:class:`TemplateReader` names characters outside the PP-OCR recogniser's classes
(:mod:`harness.baselines.ocr`): every CJK ideograph (URO, Extensions A and B) of typefaces
reserved for it, which draw no bench or gallery image (:data:`TEMPLATE_FAMILIES`;
:func:`template_faces` refuses a face of a bench design), rendered once and compared with the
glyph by an embedder: the fused baseline's is the PP-OCR recogniser's own features
(:func:`harness.baselines.fusion_fit.default_templates`), any gallery embedder works too. Its fonts come from Debian packages (fonts-ipamj-mincho,
fonts-droid-fallback) or ``$JIEZI_TEMPLATE_FONTS``; without them the fused baseline runs
without it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

import numpy as np

from harness.baselines.ocr import file_sha256

# Typefaces reserved for the template reader (fontconfig family names). Neither draws any
# bench or gallery image: builder.glyphs.fonts.DEFAULT_DESIGNS lists the nine designs that
# do. IPAmj Mincho (Debian fonts-ipamj-mincho, IPA-1.0; 52,504 ideographs incl. Extension
# B) and Droid Sans Fallback Full (fonts-droid-fallback, Apache-2.0; 27,484, to Extension
# A). Measured with ``benchmarks/bench_ocr.py --designs`` on 600 random characters: their
# glyphs are as far from every bench design as the bench designs are from each other (no
# glyph with ink IoU > 0.9; a regional cut of a bench design has 59-100%).
TEMPLATE_FAMILIES = ("IPAmjMincho", "Droid Sans Fallback")
TEMPLATE_LICENCES = {"IPAmjMincho": "IPA Font License 1.0 (Debian fonts-ipamj-mincho)",
                     "Droid Sans Fallback": "Apache-2.0 (Debian fonts-droid-fallback)"}
TEMPLATE_FONTS_ENV = "JIEZI_TEMPLATE_FONTS"  # os.pathsep-separated font files instead of fontconfig's
# The templates depend on the fonts and the embedder only, not on a gallery: one folder can
# serve every gallery's cache (the test suite renders them once per session, not per test).
TEMPLATE_CACHE_ENV = "JIEZI_TEMPLATE_CACHE"
TEMPLATE_SIZE = 64  # template canvas in pixels (the embedder normalises it again)
TEMPLATE_VERSION = 2
# Families that draw a bench design (or are one): a bench design, a regional or Mono cut of
# one, AR PL UMing (BabelStone Han's Mingti2L), Klee One (LXGW WenKai's source), Jigmo
# (GlyphWiki, as Hanazono). A template in one of them would be a lookup table, not a reader.
BENCH_DESIGN_FAMILY = re.compile(r"noto (sans|serif)( mono)? cjk|ar pl u(kai|ming)|tw-(kai|sung)|全字庫|hanamin|花園明朝|"
                                 r"babelstone han|lxgw wenkai|霞鹜文楷|wenquanyi|文泉|klee|jigmo", re.IGNORECASE)


def _face_families(path: str, index: int) -> list[str]:
    from fontTools.ttLib import TTFont

    font = TTFont(path, fontNumber=index, lazy=True)
    try:
        return sorted({str(r.toUnicode()) for r in font["name"].names if r.nameID in (1, 16)})
    finally:
        font.close()


class TemplateFontError(ValueError):
    """A template font cannot serve: a bench design, or a file that is not a font; the
    message names the file (and ``$JIEZI_TEMPLATE_FONTS`` when it came from there)."""


class MissingTemplateFont(TemplateFontError, FileNotFoundError):
    """A named template font file does not exist."""


def template_faces(paths: list[str] | None = None) -> list[tuple[str, int]]:
    """The faces ``(path, index)`` of the template reader: ``paths`` (font files, face 0),
    else ``$JIEZI_TEMPLATE_FONTS`` (os.pathsep-separated files), else the installed faces
    of :data:`TEMPLATE_FAMILIES` (fontconfig), in that order; ``[]`` when none is found.
    Raises :class:`TemplateFontError` (a ``ValueError``) for a face whose family draws a
    bench design (:data:`BENCH_DESIGN_FAMILY`) or a file that is no font, and
    :class:`MissingTemplateFont` (also a ``FileNotFoundError``) for a named file that is absent."""
    env = os.environ.get(TEMPLATE_FONTS_ENV)
    where = ""
    if paths is None and env:
        paths, where = [p for p in env.split(os.pathsep) if p], f" (from ${TEMPLATE_FONTS_ENV})"
    if paths is not None:
        faces = []
        for p in paths:
            if Path(p).is_dir():
                raise TemplateFontError(f"template font {p}{where} is a folder, not a font file")
            if not Path(p).is_file():
                raise MissingTemplateFont(f"template font {p}{where} does not exist")
            try:
                _face_families(p, 0)
            except Exception as exc:  # fontTools raises its own errors (TTLibError, struct.error)
                raise TemplateFontError(f"template font {p}{where} is not a font file fontTools can read: {exc}") from exc
            faces.append((str(Path(p).resolve()), 0))
    else:
        from hub.fontdraw import installed_faces

        try:
            rows = installed_faces()
        except RuntimeError:  # no fontconfig: no template reader
            return []
        faces = []
        for family in TEMPLATE_FAMILIES:
            hit = next((r for r in rows if any(f.casefold() == family.casefold() for f in r[2])), None)
            if hit is not None:
                faces.append((hit[0], hit[1]))
    for path, index in faces:
        bad = [f for f in _face_families(path, index) if BENCH_DESIGN_FAMILY.search(f)]
        if bad:
            raise TemplateFontError(f"template font {path}{where} is {bad[0]!r}, a design the bench is rendered in: "
                             "a reader that has seen the query's typeface is a lookup table")
    return faces


def template_cache_dir(default: Path | None) -> Path | None:
    """Where the template reader caches its templates: ``$JIEZI_TEMPLATE_CACHE`` when set,
    else ``default`` (the gallery's cache folder; None: no cache)."""
    env = os.environ.get(TEMPLATE_CACHE_ENV)
    return Path(env) if env else default


# The blocks the template reader reads: the CJK Unified Ideographs (URO), Extension A and
# Extension B, which encode the historical dictionaries (Kangxi, Hanyu Da Zidian). Of the
# gallery's 17,648 characters 17,612 are in them (13,515 / 1,071 / 3,026) and 3 in
# Extensions C-I, whose ~30,000 later additions would only be look-alike confusers
# (a BabelStone 朙 read as the Extension E 𬚽).
TEMPLATE_BLOCKS = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF))


def template_characters(path: str, index: int) -> list[str]:
    """The ideographs of :data:`TEMPLATE_BLOCKS` that face ``index`` of ``path`` maps to a
    real glyph (:func:`hub.fontdraw.face_coverage`), in code point order."""
    from hub.fontdraw import face_coverage

    return [chr(cp) for cp in sorted(face_coverage(path, index)) if any(lo <= cp <= hi for lo, hi in TEMPLATE_BLOCKS)]


class TemplateReader:
    """A font-template reader: every ideograph the reserved typefaces draw
    (:func:`template_faces`, :func:`template_characters`) rendered once
    (:func:`hub.fontdraw.font_image`, :data:`TEMPLATE_SIZE` px) and embedded with
    ``embedder`` (:class:`harness.baselines.ocr.RecogniserEmbedder` in the fused baseline, or a
    gallery embedder such as :class:`harness.baselines.embed.HogEmbedder`); a glyph is read
    as the characters whose templates are most similar to it (cosine). Its vocabulary is
    the fonts' (about 53,000 characters with the default faces), not the gallery's or the
    bench's: it names characters PP-OCR's 18,708 classes lack (rare Shuowen heads, Extension
    A/B) and that the gallery never shows. The templates are cached in ``cache_dir``
    (``.npy`` + ``.json``), keyed by the font files' SHA-256, the vocabulary and the
    embedder. ``vocabulary``: optional characters to read among (default: all the faces
    draw in :data:`TEMPLATE_BLOCKS`). Raises ``ValueError`` when ``faces`` is empty."""

    def __init__(self, embedder, faces: list[tuple[str, int]] | None = None, cache_dir: Path | None = None,
                 vocabulary: list[str] | None = None):
        faces = template_faces() if faces is None else list(faces)
        if not faces:
            raise ValueError("no template font: install fonts-ipamj-mincho / fonts-droid-fallback "
                             f"or set {TEMPLATE_FONTS_ENV}")
        self.faces, self.embedder = faces, embedder
        self.vocabulary = None if vocabulary is None else set(vocabulary)
        key = hashlib.sha256("|".join([f"{file_sha256(Path(p))}:{i}" for p, i in faces]
                                      + sorted(self.vocabulary or [])).encode()).hexdigest()
        self.name = f"templates-{key[:12]}-{embedder.name}-{TEMPLATE_SIZE}px-v{TEMPLATE_VERSION}"
        chars, emb = self._load_or_build(Path(cache_dir) if cache_dir else None)
        self.characters: list[str] = sorted(set(chars))  # (V,)
        self.index = {c: i for i, c in enumerate(self.characters)}
        owner = np.asarray([self.index[c] for c in chars], np.int64)
        order = np.argsort(owner, kind="stable")
        self.embeddings = emb[order]  # (T, dim), grouped by character
        self.starts = np.flatnonzero(np.r_[True, np.diff(owner[order]) != 0])  # (V,) first template of each

    def describe(self) -> dict:
        """Settings for results.json and cache keys."""
        families = [_face_families(p, i)[0] for p, i in self.faces]
        return {"name": self.name, "faces": [f"{Path(p).name}:{i}" for p, i in self.faces], "families": families,
                "licences": [TEMPLATE_LICENCES.get(f, "the font file's own") for f in families],
                "characters": len(self.characters), "templates": len(self.embeddings), "embedder": self.embedder.name}

    def _load_or_build(self, cache_dir: Path | None) -> tuple[list[str], np.ndarray]:
        if cache_dir is not None and (cache_dir / f"{self.name}.npy").exists():
            try:
                chars = json.loads((cache_dir / f"{self.name}.json").read_text("utf-8"))
                emb = np.load(cache_dir / f"{self.name}.npy")
                if len(chars) == len(emb):
                    return chars, emb
            except (OSError, ValueError):
                pass  # a damaged cache is rebuilt
        from hub.fontdraw import font_image

        chars, parts, batch = [], [], []
        for path, index in self.faces:
            for c in template_characters(path, index):
                if self.vocabulary is not None and c not in self.vocabulary:
                    continue
                image = font_image(path, index, ord(c), TEMPLATE_SIZE)
                if image is not None:
                    batch.append(image)
                    chars.append(c)
                if len(batch) == 2048:
                    parts.append(self.embedder.embed(batch))
                    batch = []
        if batch:
            parts.append(self.embedder.embed(batch))
        emb = np.concatenate(parts).astype(np.float32) if parts else np.zeros((0, self.embedder.dim), np.float32)
        if cache_dir is not None:
            cache_dir.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=self.name + ".", suffix=".tmp", dir=cache_dir)
            with os.fdopen(fd, "wb") as fh:
                np.save(fh, emb)
            (cache_dir / f"{self.name}.json").write_text(json.dumps(chars, ensure_ascii=False), "utf-8")
            os.replace(tmp, cache_dir / f"{self.name}.npy")
        return chars, emb

    def scores(self, queries: np.ndarray) -> np.ndarray:
        """``(n, V)`` float32: for each query row (an L2-normalised embedding of the
        reader's embedder, ``(n, dim)``) and each character of :attr:`characters`, the
        cosine similarity of its most similar template (-1..1)."""
        q = np.asarray(queries, np.float32).reshape(-1, self.embeddings.shape[1])
        out = np.empty((len(q), len(self.characters)), np.float32)
        for start in range(0, len(q), 64):
            out[start:start + 64] = np.maximum.reduceat(q[start:start + 64] @ self.embeddings.T, self.starts, axis=1)
        return out

    def read(self, queries: np.ndarray, top: int = 10) -> list[list[tuple[str, float]]]:
        """The ``top`` most similar characters of each query row, ``[(character,
        similarity)]`` best first (see :meth:`scores`)."""
        out = []
        for start in range(0, len(queries), 256):
            s = self.scores(queries[start:start + 256])
            best = np.argpartition(-s, top - 1, axis=1)[:, :top] if s.shape[1] > top else np.argsort(-s, axis=1)
            for row, ks in zip(s, best):
                ks = ks[np.argsort(-row[ks], kind="stable")]
                out.append([(self.characters[int(k)], float(row[k])) for k in ks])
        return out

    def similarity(self, query: np.ndarray, characters: list[str]) -> np.ndarray:
        """``(len(characters),)``: the :meth:`scores` value of each character for one
        query ``(dim,)``; -1 for a character no template draws."""
        out = np.full(len(characters), -1.0)
        ends = np.r_[self.starts[1:], len(self.embeddings)]
        for j, c in enumerate(characters):
            k = self.index.get(c)
            if k is not None:
                out[j] = float((self.embeddings[self.starts[k]:ends[k]] @ query).max())
        return out
