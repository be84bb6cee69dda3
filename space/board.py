"""The leaderboard and submission tabs over ``harness.board`` (the code path of
``jiezi leaderboard submit|show``): a table frame, a comparison chart, and a submit
wrapper that turns every rejection into a plain-words message.
"""

from __future__ import annotations

import hashlib
import math
import time
from pathlib import Path

from metrics.acce import labels

PAPER = "reported in paper"
METRIC_COLUMNS = {m: m.replace("EVOI_", "") for m in labels.METRICS}  # EVOI_FAC -> FAC, as in Table 10
LEVEL_COLUMNS = ("L1", "L2", "L3", "L4", "macro")
COLUMNS = ["#", "model", "thinking", "bench", "source", "metrics", *METRIC_COLUMNS.values(), *LEVEL_COLUMNS, "notes"]
PAPER_BENCH = "paper's JieZi-Bench"
# 18 distinguishable colours (matplotlib's tab20, dark shades first); a model keeps its
# colour in every view because it is picked by a hash of the name, not by the position.
# (its two greys left out: a grey bar reads as "missing")
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22",
           "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2",
           "#dbdb8d", "#9edae5"]

LEGEND = (
    "Scores are 0-100. **L1**..**L4** average the metrics of each level and **macro** the eleven metrics "
    "(FAC and SCE are EVOI's two judge axes) that were computed; *metrics* says how many of the eleven a row has, "
    "so a macro over fewer metrics is not comparable with a full one. "
    "Rows marked *reported in paper* are Table 10 of the JieZi paper "
    "(BERTScore with bert-base-chinese, EVOI judged by Doubao-Seed-2.0-lite), scored on the paper's JieZi-Bench. "
    "The *bench* column says which bench each row was scored on: a row scored on another bench (a locally built "
    "JieZi-Bench has other questions) or with another protocol is **not comparable** with the paper's rows; it is "
    "ranked only among rows of its own bench (# like `b1`) and marked in the chart. *notes* name the bench and "
    "scorer. Click a column header to sort; type in the search box to filter rows."
)
SUBMIT_HELP = (
    "Upload the `predictions.jsonl` that `jiezi eval` writes: UTF-8 JSON Lines, one object per JieZi-Bench "
    "question with `id` and `output` (optional `parsed`, `latency_s`, `error`), every bench id exactly once. "
    "It is validated, scored with the board's fixed scorer settings and stored as one row (the same answers "
    "submitted twice stay one row). The predictions of `jiezi eval --protocol paper` (one line per bench image, "
    "the eight-field JSON reply) are accepted too: scored with the authors' scorer (reference) and ranked only "
    "with rows of the same protocol and scoring, such as the paper's. Largest file: {limit} MB. The same as "
    "`jiezi leaderboard submit predictions.jsonl --model-name NAME`."
)
# Form fields of the submit tab -> harness metadata keys.
META_KEYS = {"organisation": "organization", "link": "url", "notes": "notes"}


class BoardUnavailable(RuntimeError):
    """The leaderboard cannot be read (message says why)."""


def _round(value) -> float | None:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return None
    return round(float(value), 1)


def bench_label(row) -> str:
    """Which bench a row was scored on: :data:`PAPER_BENCH` for the paper's rows (and a
    submission whose details say it used the paper's bench and protocol), else
    ``"local <fingerprint[:8]>"`` with the protocol when one is recorded."""
    if row.source == PAPER:
        return PAPER_BENCH
    d = row.details or {}
    bench = d.get("bench") or {}
    # the run record (``details["run"]``, harness.board.runs.run_record) names the protocol
    protocol = d.get("protocol") or (d.get("run") or {}).get("protocol") or getattr(row, "protocol", None)
    protocol_name = protocol.get("name") if isinstance(protocol, dict) else protocol
    scoring = getattr(row, "scoring", None)  # issue 13: reference | jiezi; never ranked together
    if bench.get("official") and protocol_name in (None, "paper") and scoring in (None, "reference"):
        return PAPER_BENCH
    label = f"local {str(bench.get('fingerprint') or '?')[:8]}"
    label += f" · {protocol_name} protocol" if protocol_name and protocol_name != "paper" else ""
    return label + (f" · {scoring} scoring" if scoring and scoring != "reference" else "")


def colour(model: str) -> str:
    """The chart colour of ``model``: fixed per name (SHA-1 of the name into :data:`PALETTE`)."""
    return PALETTE[int(hashlib.sha1(model.encode("utf-8")).hexdigest(), 16) % len(PALETTE)]


def _notes(row) -> str:
    if row.source != "submitted":
        return ""
    d = row.details or {}
    bench = d.get("bench") or {}
    out = []
    if bench:
        out.append(f"scored on bench {bench.get('source', '?')} ({bench.get('config', '?')}/{bench.get('split', '?')}, "
                   f"{bench.get('rows', '?')} rows, fingerprint {str(bench.get('fingerprint', '?'))[:12]})")
    if not d.get("comparable_to_paper", False):
        model = (d.get("bertscore") or {}).get("requested") or (d.get("bertscore") or {}).get("model")
        out.append(f"BERTScore: {model}" if model else "scorer differs from the paper's")
    missing = sorted((d.get("not_computed") or {}).keys())
    if missing:
        out.append("not computed: " + ", ".join(METRIC_COLUMNS.get(m, m) for m in missing))
    if d.get("empty_or_failed"):
        out.append(f"{d['empty_or_failed']} empty answers")
    return "; ".join(out)


def table(board_dir: str | Path | None):
    """The leaderboard as a pandas frame with :data:`COLUMNS`, best macro first.

    Submitted rows come from ``board_dir`` (absent or empty: only the paper's rows);
    ``source`` is ``"reported in paper"`` or ``"submitted <date>"``; ``bench`` is
    :func:`bench_label`; ``#`` ranks rows within their bench only (``1``.. for the
    paper's bench, ``b1``.. for the next bench, ...). Raises
    :class:`BoardUnavailable` when the board cannot be read.
    """
    import pandas as pd
    from harness.board.table import table as board_table

    try:
        rows = board_table(board_dir)
    except Exception as exc:  # a damaged board must not take the Space down
        raise BoardUnavailable(f"the leaderboard at {board_dir} cannot be read: {type(exc).__name__}: {exc}") from exc
    records = []
    ranks: dict[str, int] = {}
    groups: dict[str, str] = {PAPER_BENCH: ""}  # rank prefix per bench: "" for the paper's, then b, c, ...
    for row in rows:
        bench = bench_label(row)
        prefix = groups.setdefault(bench, "bcdefghijklmnopqrstuvwxyz"[min(len(groups) - 1, 24)])
        ranks[bench] = ranks.get(bench, 0) + 1
        rec = {"#": f"{prefix}{ranks[bench]}", "model": row.model_name, "thinking": row.thinking, "bench": bench}
        for metric, column in METRIC_COLUMNS.items():
            rec[column] = _round(row.scores.get(metric))
        for level in LEVEL_COLUMNS:
            rec[level] = _round(row.scores.get(level))
        rec["source"] = PAPER if row.source == PAPER else f"submitted {(row.submitted_at or '')[:10]}".strip()
        # a macro over fewer metrics is not the same number: say over how many
        rec["metrics"] = f"{sum(row.scores.get(m) is not None for m in METRIC_COLUMNS)}/{len(METRIC_COLUMNS)}"
        rec["notes"] = _notes(row)
        records.append(rec)
    frame = pd.DataFrame(records, columns=COLUMNS)
    # the paper's bench first, ranked among itself; each other bench after it, ranked apart
    order = {b: i for i, b in enumerate(groups)}
    frame = frame.sort_values("bench", key=lambda col: col.map(order), kind="stable").reset_index(drop=True)
    return frame


def default_models(frame, n: int = 4) -> list[str]:
    """Models preselected in the chart: every submitted row (newest board rows first in
    table order) and the best paper rows, ``n`` in all."""
    submitted = frame.loc[frame["source"] != PAPER, "model"].tolist()
    paper = frame.loc[frame["source"] == PAPER, "model"].tolist()
    return list(dict.fromkeys(submitted + paper))[:n]


def chart(frame, models: list[str]):
    """A grouped bar chart (matplotlib figure) of ``models`` on the eleven metrics, or
    None when no model is chosen. Metrics not computed for a model are left out."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import font_manager

    chosen = frame[frame["model"].isin(models)].drop_duplicates("model")
    if chosen.empty:
        return None
    installed = {f.name for f in font_manager.fontManager.ttflist}
    family = [f for f in ("Noto Sans CJK SC", "Noto Sans CJK JP", "WenQuanYi Zen Hei", "AR PL UMing CN")
              if f in installed] + ["DejaVu Sans"]
    metrics = list(METRIC_COLUMNS.values())
    with plt.rc_context({"font.family": family, "axes.unicode_minus": False}):
        fig, ax = plt.subplots(figsize=(10, 4.8), dpi=100)
        width = 0.8 / len(chosen)
        for k, (_, row) in enumerate(chosen.iterrows()):
            xs = [i + (k - (len(chosen) - 1) / 2) * width for i in range(len(metrics))]
            ys = [row[m] if row[m] is not None and not (isinstance(row[m], float) and math.isnan(row[m])) else 0.0
                  for m in metrics]
            other = row["bench"] != PAPER_BENCH
            label = row["model"] + (" (paper)" if row["source"] == PAPER else "") + \
                (f" [{row['bench']}: not comparable]" if other else "")
            # rows of another bench are hatched as well as labelled
            ax.bar(xs, ys, width=width * 0.95, label=label, color=colour(row["model"]),
                   hatch="//" if other else None, edgecolor="#222222" if other else None,
                   linewidth=0.6 if other else 0)
        ax.set_xticks(range(len(metrics)), metrics)
        ax.set_ylim(0, 100)
        ax.set_ylabel("score (0-100)")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8, ncol=min(3, len(chosen)), loc="upper center", bbox_to_anchor=(0.5, -0.09),
                  frameon=False)
        mixed = (chosen["bench"] != PAPER_BENCH).any() and (chosen["bench"] == PAPER_BENCH).any()
        ax.set_title("JieZi-Bench: eleven ACCE metrics" + (" (hatched: another bench, not comparable)" if mixed else ""))
        fig.tight_layout()
    plt.close(fig)
    return fig


def submit(config, data: bytes | None, model_name: str, form_meta: dict | None, progress=None) -> str:
    """Submit one upload through ``harness.board.submit.submit`` (the CLI's code path).

    ``config``: the :class:`space.data.SpaceConfig` (board folder, bench, upload limit,
    scorer); ``data``: the uploaded bytes (the file name is never used); ``form_meta``:
    the optional form fields (:data:`META_KEYS`); ``progress``: optional callable
    ``(fraction 0-1, description)`` told when validation and scoring start and end.
    Returns a markdown message: the new or existing row with the seconds it took, or the
    reason for rejection (a missing file and an empty, 0-byte file each have their own).
    """
    from harness.board.row import SubmissionError
    from harness.board.submit import submit as harness_submit

    if data is None:
        return "✕ **Rejected**: no file uploaded: choose your predictions.jsonl first."
    if isinstance(data, (bytes, bytearray)) and len(data) == 0:
        return ("✕ **Rejected**: the uploaded file is empty (0 bytes). `jiezi eval` writes one JSON line per bench "
                "question to predictions.jsonl; check that the run finished and upload that file.")
    if not isinstance(data, (bytes, bytearray)):
        return f"✕ **Rejected**: the upload arrived as {type(data).__name__}, expected file bytes."
    limit = config.max_upload_mb * 1024 * 1024
    if len(data) > limit:  # Gradio's max_file_size stops most; this catches the rest
        return f"✕ **Rejected**: the file is {len(data) / 1e6:.1f} MB; the limit here is {config.max_upload_mb} MB."
    meta = {META_KEYS[k]: v.strip() for k, v in (form_meta or {}).items() if k in META_KEYS and v and v.strip()}
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    tell = progress or (lambda fraction, desc: None)
    tell(0.05, f"validating and scoring {lines:,} lines ({len(data) / 1e6:.1f} MB) against the bench")
    start = time.perf_counter()
    try:
        row = harness_submit(bytes(data), model_name, meta or None, config.board, bench=config.bench,
                             bertscore_model=config.bertscore_model, judge=config.judge, progress=progress is not None)
    except SubmissionError as exc:
        return f"✕ **Rejected**: {_escape(str(exc))}"
    except Exception as exc:  # scoring or storage failures are shown, never a crash
        return f"✕ **Could not score the submission**: {type(exc).__name__}: {_escape(str(exc))}"
    seconds = time.perf_counter() - start
    tell(1.0, "stored")
    macro = row.scores.get("macro")
    score = f"macro {macro:.1f}" if isinstance(macro, (int, float)) else "macro not computed"
    if not row.created:
        return (f"✓ These predictions are already on the board as **{_escape(row.model_name)}** ({score}, "
                f"row `{row.id[:12]}`); nothing was added.")
    return (f"✓ **Added**: **{_escape(row.model_name)}**, {score} (row `{row.id[:12]}`, bench "
            f"{_escape(bench_label(row))}, protocol {row.protocol}, scoring {row.scoring}), validated and scored in "
            f"{seconds:.1f} s.")


def _escape(text: str) -> str:
    return "".join("\\" + ch if ch in "\\`*_{}[]<>#|" else ch for ch in text)
