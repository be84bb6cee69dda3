"""The interface every glyph source implements, and the plan the sources fill.

A glyph source is one module of ``builder/glyphs/`` with two names:

- ``NAME``: the source's name (``"oracle-mnist"``, ``"commons-ancient"`` ...);
- ``plan(request: Request, plan: Plan, skipped: SkipLog) -> None``: add one
  :class:`render.Job` and its :class:`Meta` per image the source contributes (nothing is
  drawn yet), log what it skips.

:mod:`builder.glyphs.registry` lists the sources; :func:`builder.glyphs.collect.collect_images`
asks each in turn, then renders every job (in parallel) and turns the results into
``(character, GlyphImage)`` pairs. Adding a corpus is one module and one registry line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from builder.glyphs import render
from builder.glyphs.fonts import FontDesign


@dataclass(frozen=True)
class Request:
    """What the build asks for.

    ``characters``: the requested characters, sorted by code point, each one CJK ideograph
    (sources of real inscriptions may ignore it and give all they have);
    ``sources_dir``: the source cache; ``size``: canvas side in pixels; ``fonts``: the
    regular-script font designs (names or paths); ``user_sources``: labelled user folders
    or CSV manifests.
    """

    characters: tuple[str, ...]
    sources_dir: Path
    size: int
    fonts: tuple[str, ...] = ()
    user_sources: tuple[Path, ...] = ()


@dataclass(frozen=True)
class Meta:
    """What a :class:`~builder.schema.GlyphImage` says beyond the pixels: ``source``,
    ``licence``, ``style``, ``font`` (design name or None), ``item`` (the name the skip
    log uses; None = ``U+XXXX <character>``), ``origin`` (the source file) and
    ``derived_from`` (id of the image an augmented copy was made from), ``series`` (the
    Commons series of a drawing: ``seal``, ``silk``, ``slip``, ``bronze-warring`` ...) and
    ``page`` (its Commons file page)."""

    source: str
    licence: str
    style: str
    font: str | None = None
    item: str | None = None
    origin: str | None = None
    derived_from: str | None = None
    series: str | None = None
    page: str | None = None


@dataclass
class Plan:
    """The jobs of every source, in order, with their metadata and the font designs the
    font jobs point at (``Job.design`` indexes :attr:`designs`)."""

    jobs: list[render.Job] = field(default_factory=list)
    metas: list[Meta] = field(default_factory=list)
    designs: list[FontDesign] = field(default_factory=list)

    def add(self, job: render.Job, meta: Meta) -> None:
        """Append one job and its metadata."""
        self.jobs.append(job)
        self.metas.append(meta)

    def design(self, design: FontDesign) -> int:
        """Register a font design (once) and return its index for ``Job.design``."""
        for i, d in enumerate(self.designs):
            if d is design:
                return i
        self.designs.append(design)
        return len(self.designs) - 1

    def context(self, out_dir: Path, size: int) -> render.RenderContext:
        """The workers' :class:`render.RenderContext` for these jobs."""
        return render.RenderContext(str(out_dir), size,
                                    tuple(tuple((f.path, f.index) for f in d.faces) for d in self.designs))


def font_meta(design: FontDesign, *, style: str | None = None) -> Meta:
    """The :class:`Meta` of a rendering with ``design`` (``style`` overrides the design's)."""
    return Meta(design.source, design.licence, style or design.style, design.name)
