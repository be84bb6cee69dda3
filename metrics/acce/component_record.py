"""One component of an answer or a reference, and what makes a string a component name.

:class:`Component` is the parsed record (name, functions, interpretation, evolution type,
the other accepted names of a reference); :func:`clean_name` turns a raw field or list head
into a name, or rejects it. Read by the layout parsers (:mod:`.components`) and the
matching (:mod:`.component_match`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .normalize import COMPONENT_CHARS, component_key, normalize_text


@dataclass(frozen=True)
class Component:
    """One component of a character as stated by an answer or a reference.

    ``name``: the name as written (NFKC, t2s, no whitespace); ``functions``: subset of
    {表意, 表音, 符号} (empty when not stated); ``interpretation``: free text ("" when not
    stated); ``evolution_type``: one of 保留 / 讹变 / 简化 / 繁化 / 区别, or None.
    """

    name: str
    functions: frozenset[str] = field(default_factory=frozenset)
    interpretation: str = ""
    evolution_type: str | None = None
    also: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """Matching key (``normalize.component_key`` of the name)."""
        return component_key(self.name)

    @property
    def keys(self) -> tuple[str, ...]:
        """Matching keys of every accepted name: the name, then ``also`` (a reference's
        other accepted names, e.g. the full 蠆 of a 省 part drawn as 萬)."""
        out = [self.key]
        for other in self.also:
            k = component_key(other)
            if k and k not in out:
                out.append(k)
        return tuple(out)

    def to_dict(self) -> dict:
        """The ``answer_struct`` form: ``{"name", "functions", "interpretation", "evolution_type"}``."""
        return {
            "name": self.name,
            "functions": sorted(self.functions),
            "interpretation": self.interpretation,
            "evolution_type": self.evolution_type,
        }


# ------------------------------------------------------------------------------ names
_NAME_RUN = re.compile(f"{COMPONENT_CHARS}+")
_WRAP = re.compile(r"^[\s*_`\"'「『《【\[(（]+|[\s*_`\"'」』》】\])）:：,，;；。.]+$")
_QUOTES = re.compile(r"^[\s*_`\"'「『《【\[]+|[\s*_`\"'」』》】\]:：,，;；。.]+$")
_PAREN = re.compile(r"^(.+?)\s*[(（]\s*(.*?)\s*[)）]$")
_SIDE = re.compile(r"^(?:左|右)(?:耳|侧|边|旁)?$")
_NAME_PREFIX = re.compile(r"^(?:构件|部件|组件|名称|component|name)\s*[:：=]?\s*", re.I)


def clean_name(raw: object, *, gold: bool = False) -> str | None:
    """A component name from a raw field or list head, or None if it does not look like one.

    Strips markdown, quotes and a ``构件`` prefix; ``"氵(水)"`` -> ``"氵"``, ``"(水)"`` ->
    ``"水"``, ``"阝(左)"`` keeps its side (the alias table needs it). Only one-to-one
    traditional/simplified pairs are folded (馬 -> 马, 後 stays 後). Names longer than 12
    characters or without any CJK character, radical, stroke or IDC are rejected, except
    with ``gold=True`` (a reference's names are never dropped: only an empty one is).
    """
    if raw is None:
        return None
    name = re.sub(r"\s+", "", normalize_text(str(raw), simplify=False))
    name = _NAME_PREFIX.sub("", _QUOTES.sub("", name))
    name = _QUOTES.sub("", name)
    paren = _PAREN.match(name)
    if paren:
        outer, inner = paren.group(1), paren.group(2)
        if outer == "阝" and _SIDE.match(inner):
            return f"阝({inner[0]})"
        elif _NAME_RUN.search(outer):
            name = outer
        else:
            name = inner
    name = _WRAP.sub("", name)
    if gold:
        return name or None
    if not name or len(name) > 12 or not _NAME_RUN.search(name):
        return None
    return name
