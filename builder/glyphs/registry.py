"""The glyph sources, in the order their images are listed.

Each entry is a module with the interface of :mod:`builder.glyphs.base` (``NAME`` and
``plan(request, plan, skipped)``). A new corpus is one module and one line here.
"""

from __future__ import annotations

from types import ModuleType

from builder.glyphs import commons_acc_png, commons_ancient, font_renderings, lxgw_seal, oracle_mnist, user

GLYPH_SOURCES: tuple[ModuleType, ...] = (
    oracle_mnist,      # real oracle-bone scans (甲骨文)
    font_renderings,   # regular-script renderings (楷书 / 简体)
    lxgw_seal,         # a seal-style font (篆书 only where the rule of lxgw_seal.seal_verdict holds)
    commons_ancient,   # traced 甲骨文 / 金文 / 篆书 outlines and their augmented copies
    commons_acc_png,   # 6,404 Commons drawings (篆书 / 金文 / 战国文字 / 甲骨文) and their augmented copies
    user,              # labelled user folders and CSV manifests
)

for _src in GLYPH_SOURCES:
    if not (isinstance(getattr(_src, "NAME", None), str) and callable(getattr(_src, "plan", None))):
        raise TypeError(f"glyph source module {_src.__name__} lacks NAME or plan(): see builder.glyphs.base")

NAMES: tuple[str, ...] = tuple(s.NAME for s in GLYPH_SOURCES)
