"""The bench card's "Baselines per script" section and ``report.json``'s ``bench.baselines``,
brought up to date from the baseline runs saved in a build folder without a rebuild.

``jiezi build`` writes the bench card before any ``jiezi eval`` run exists; the baseline's
per-script scores (``OUT/eval/<name>/results.json``, read by
:func:`builder.qa.bench_select.baseline_results`) reach the card and ``OUT/report.json``
afterwards with ``jiezi publish card --output OUT``: the card's section between
:data:`BEGIN` and :data:`END` is rendered again (:func:`baselines_markdown`, the same
function the full card uses) and ``bench.baselines`` replaced, each file written atomically
(``hub.atomic``). The data files, the card's YAML header and the rest of its text are left as
they are, so the bench's content fingerprint does not change.
"""

from __future__ import annotations

import json
from pathlib import Path

import jinja2

from hub.atomic import atomic_write, atomic_write_json

#: the section's template (``cards/``, beside the card templates; part of the publication key)
TEMPLATE = Path(__file__).resolve().parents[2] / "cards" / "jiezi-bench-baselines.md"
#: the markers around the section in the bench card (HTML comments: not shown on the Hub)
BEGIN = "<!-- jiezi:baselines -->\n"
END = "<!-- /jiezi:baselines -->"


def baselines_markdown(baselines: dict) -> str:
    """The "Baselines per script" section (Markdown, ending in a blank line so that the
    table ends before :data:`END`) of ``baselines``
    (``{name: {"spec", "rows", "metrics", "overall", "by_script"}}``, the shape of
    :func:`builder.qa.bench_select.baseline_results`; scores 0-100 or None, shown as ``-``);
    ``""`` when there is none."""
    text = jinja2.Template(TEMPLATE.read_text(encoding="utf-8")).render(baselines=baselines).strip("\n")
    return text + "\n\n" if text else ""


def splice_baselines(card: str, baselines: dict) -> str:
    """``card`` (a bench card's text) with its section between :data:`BEGIN` and :data:`END`
    replaced by :func:`baselines_markdown` of ``baselines``. Raises ``ValueError`` when the
    card lacks the markers (a card written before they existed: rebuild it with
    ``jiezi build --force``)."""
    start = card.find(BEGIN)
    stop = card.find(END, start + len(BEGIN)) if start >= 0 else -1
    if start < 0 or stop < 0:
        raise ValueError(f"the card has no {BEGIN.strip()} ... {END} section")
    return card[:start + len(BEGIN)] + baselines_markdown(baselines) + card[stop:]


def update_card(folder: Path, baselines: dict) -> bool:
    """Write ``folder/README.md`` (a bench Hub folder's card) with its baselines section
    replaced (:func:`splice_baselines`), atomically, when that changes it. Returns whether
    it was rewritten. Raises ``FileNotFoundError`` without a card and ``ValueError`` for a
    card without the section's markers."""
    path = Path(folder) / "README.md"
    card = path.read_text(encoding="utf-8")
    new = splice_baselines(card, baselines)
    if new == card:
        return False
    atomic_write(path, new)
    return True


def update_report(path: Path, baselines: dict) -> bool:
    """Set ``bench.baselines`` of the build report at ``path`` (``OUT/report.json``, written
    the way ``jiezi build`` writes it: indent 1, no final newline), atomically, when that
    changes it. Returns whether it was rewritten. Raises ``FileNotFoundError`` without a
    report and ``ValueError`` for one that is not a build report (no ``bench`` object)."""
    path = Path(path)
    report = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(report.get("bench"), dict):
        raise ValueError(f"{path}: not a `jiezi build` report (no bench section)")
    if report["bench"].get("baselines") == baselines:
        return False
    report["bench"]["baselines"] = baselines
    atomic_write_json(path, report, newline=False)
    return True
