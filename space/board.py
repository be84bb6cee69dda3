"""The leaderboard and submission tabs over ``harness.leaderboard`` (the code path of
``jiezi leaderboard submit|show``): a table frame, a comparison chart, and a submit
wrapper that turns every rejection into a plain-words message.
"""

from __future__ import annotations

import math
from pathlib import Path

from metrics.acce import labels

PAPER = "reported in paper"
METRIC_COLUMNS = {m: m.replace("EVOI_", "") for m in labels.METRICS}  # EVOI_FAC -> FAC, as in Table 10
LEVEL_COLUMNS = ("L1", "L2", "L3", "L4", "macro")
COLUMNS = ["#", "model", "source", "protocol", "metrics", *METRIC_COLUMNS.values(), *LEVEL_COLUMNS, "notes"]

LEGEND = (
    "Scores are 0-100. **L1**..**L4** average the metrics of each level and **macro** the eleven metrics "
    "(FAC and SCE are EVOI's two judge axes) that were computed; *metrics* says how many of the eleven a row has, "
    "so a macro over fewer metrics is not comparable with a full one. "
    "Rows marked *reported in paper* are Table 10 of the JieZi paper "
    "(BERTScore with bert-base-chinese, EVOI judged by Doubao-Seed-2.0-lite); a submitted row scored with other "
    "settings says so under *notes* and is not directly comparable. Click a column header to sort; type in the "
    "search box to filter rows."
)
SUBMIT_HELP = (
    "Upload the `predictions.jsonl` that `jiezi eval` writes: UTF-8 JSON Lines, one object per JieZi-Bench "
    "question with `id` and `output` (optional `parsed`, `latency_s`, `error`), every bench id exactly once. "
    "It is validated, scored with the board's fixed scorer settings and stored as one row (the same answers "
    "submitted twice stay one row). Largest file: {limit} MB. The same as "
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


def _notes(row) -> str:
    if row.source != "submitted":
        return ""
    d = row.details or {}
    out = []
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
    ``source`` is ``"reported in paper"`` or ``"submitted <date>"``. Raises
    :class:`BoardUnavailable` when the board cannot be read.
    """
    import pandas as pd
    from harness import leaderboard

    try:
        rows = leaderboard.table(board_dir)
    except Exception as exc:  # a damaged board must not take the Space down
        raise BoardUnavailable(f"the leaderboard at {board_dir} cannot be read: {type(exc).__name__}: {exc}") from exc
    records = []
    ranks: dict[tuple[str, str], int] = {}
    for row in rows:
        # rows asked or scored another way (issue 13) are ranked among themselves only
        group = leaderboard.protocol_group(row)
        ranks[group] = ranks.get(group, 0) + 1
        rec = {"#": ranks[group], "model": row.model_name, "protocol": f"{group[0]} / {group[1]}"}
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
            label = row["model"] + (" (paper)" if row["source"] == PAPER else "")
            ax.bar(xs, ys, width=width * 0.95, label=label)
        ax.set_xticks(range(len(metrics)), metrics)
        ax.set_ylim(0, 100)
        ax.set_ylabel("score (0-100)")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8, ncol=min(3, len(chosen)), loc="upper center", bbox_to_anchor=(0.5, -0.09),
                  frameon=False)
        ax.set_title("JieZi-Bench: eleven ACCE metrics")
        fig.tight_layout()
    plt.close(fig)
    return fig


def submit(config, data: bytes | None, model_name: str, form_meta: dict | None) -> str:
    """Submit one upload through ``harness.leaderboard.submit`` (the CLI's code path).

    ``config``: the :class:`space.data.SpaceConfig` (board folder, bench, upload limit,
    scorer); ``data``: the uploaded bytes (the file name is never used); ``form_meta``:
    the optional form fields (:data:`META_KEYS`). Returns a markdown message: the new or
    existing row, or the reason for rejection.
    """
    from harness.leaderboard import SubmissionError
    from harness.leaderboard import submit as harness_submit

    if not data:
        return "✕ **Rejected**: no file uploaded: choose your predictions.jsonl first."
    if not isinstance(data, (bytes, bytearray)):
        return f"✕ **Rejected**: the upload arrived as {type(data).__name__}, expected file bytes."
    limit = config.max_upload_mb * 1024 * 1024
    if len(data) > limit:  # Gradio's max_file_size stops most; this catches the rest
        return f"✕ **Rejected**: the file is {len(data) / 1e6:.1f} MB; the limit here is {config.max_upload_mb} MB."
    meta = {META_KEYS[k]: v.strip() for k, v in (form_meta or {}).items() if k in META_KEYS and v and v.strip()}
    try:
        row = harness_submit(bytes(data), model_name, meta or None, config.board, bench=config.bench,
                             bertscore_model=config.bertscore_model, judge=config.judge)
    except SubmissionError as exc:
        return f"✕ **Rejected**: {_escape(str(exc))}"
    except Exception as exc:  # scoring or storage failures are shown, never a crash
        return f"✕ **Could not score the submission**: {type(exc).__name__}: {_escape(str(exc))}"
    macro = row.scores.get("macro")
    score = f"macro {macro:.1f}" if isinstance(macro, (int, float)) else "macro not computed"
    if not row.created:
        return (f"✓ These predictions are already on the board as **{_escape(row.model_name)}** ({score}, "
                f"row `{row.id[:12]}`); nothing was added.")
    return f"✓ **Added**: **{_escape(row.model_name)}**, {score} (row `{row.id[:12]}`)."


def _escape(text: str) -> str:
    return "".join("\\" + ch if ch in "\\`*_{}[]<>#|" else ch for ch in text)
