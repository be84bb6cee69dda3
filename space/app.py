"""The JieZi Space: exegesis demo, dataset explorer, leaderboard and submission (Gradio 6).

Run it with ``jiezi space`` (see ``space/cli.py``), or as a Hub Space: the Space runs
``python app.py`` and this module reads ``JIEZI_BENCH``, ``JIEZI_DATASET``,
``JIEZI_BOARD``, ``JIEZI_BACKENDS`` and ``JIEZI_MAX_UPLOAD_MB`` (defaults: the Hub ids
``jiezi/bench`` and ``jiezi/dataset``, the board folder of :func:`space.data.default_board`).
Nothing is loaded at import time: a resource that cannot be loaded shows its reason in
the tab that needs it.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

# Works both from the repository (space/app.py) and from a Space folder written by
# `jiezi space-bundle` (app.py beside the space/, harness/ and metrics/ packages).
_HERE = Path(__file__).resolve().parent
for _root in (_HERE, _HERE.parent):
    if (_root / "space" / "__init__.py").exists() and str(_root) not in sys.path:
        sys.path.insert(0, str(_root))
        break

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr  # noqa: E402

from hub.imageio import ImageRejected, open_image  # noqa: E402
from metrics.acce import labels  # noqa: E402
from space import board as lb  # noqa: E402
from space.backends import BackendUnavailable, Explainers  # noqa: E402
from space.data import (ALL, BENCH_SPLITS, DATASET_SPLITS, DataUnavailable, Resources, SpaceConfig,  # noqa: E402
                        coverage_line, query)
from space.images import GlyphImageError, prepare, sketch_image  # noqa: E402
from space.render import CSS, exegesis_html, references_of, score_item  # noqa: E402

TITLE = "解字 JieZi · Ancient Chinese Character Exegesis"
# Local fonts only: a Google-Fonts theme would make every visitor's browser (and the
# test's offline Chromium) fetch fonts from the network.
FONT = ["Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Zen Hei", "PingFang SC", "Microsoft YaHei",
        "ui-sans-serif", "system-ui", "sans-serif"]
MONO = ["Noto Sans Mono CJK SC", "ui-monospace", "monospace"]
APP_CSS = CSS + """
#jz-bench-preview img{object-fit:contain}
.jz-status{font-size:.9em}
"""


def theme() -> gr.themes.Base:
    """The Space theme: Gradio's default with local CJK-capable fonts."""
    return gr.themes.Default(primary_hue="red", neutral_hue="stone", font=FONT, font_mono=MONO)


def _md_escape(text: str) -> str:
    # markup that could turn data into links, HTML or emphasis; the rest stays readable
    return "".join("\\" + ch if ch in "\\`*_[]<>|" else ch for ch in str(text))


# ------------------------------------------------------------------------ handlers
class Handlers:
    """The event handlers of one app, over one :class:`SpaceConfig`."""

    def __init__(self, config: SpaceConfig):
        self.config = config
        self.resources = Resources(config)
        self.explainers = Explainers(self.resources)

    # -- exegesis --------------------------------------------------------------------
    def bench_choices(self) -> list[tuple[str, str]]:
        """Dropdown choices ``(label, image_id)`` of the bench images (``all``/``test``)."""
        try:
            frame = self.resources.bench("all", "test").select_columns(["image_id", "character", "script"]).to_pandas()
        except DataUnavailable:
            return []
        first = frame.drop_duplicates("image_id")
        return [(f"{r.character} · {r.script} · {r.image_id}", r.image_id) for r in first.itertuples()]

    def bench_rows(self, image_id: str) -> list[dict]:
        """The bench rows (``all``/``test``) of image ``image_id``."""
        ds = self.resources.bench("all", "test")
        ids = ds["image_id"]
        return [ds[i] for i, v in enumerate(ids) if v == image_id]

    def bench_preview(self, image_id: str | None):
        """Image and caption of a chosen bench item."""
        if not image_id:
            return None, ""
        try:
            rows = self.bench_rows(image_id)
        except DataUnavailable as exc:
            return None, f"⚠️ {exc}"
        if not rows:
            return None, f"⚠️ no bench item with image id {_md_escape(image_id)}"
        r = rows[0]
        flags = [f for f, on in (("unseen character", r["unseen_character"]), ("unseen glyph", r["unseen_glyph"])) if on]
        return r["image"], (f"**{r['character']}** · {r['script']} · {len(rows)} questions"
                            + (f" · {', '.join(flags)}" if flags else ""))

    def explain(self, image, backend: str, bench_id: str | None = None):
        """Run one explainer on one image; returns (status markdown, HTML, gallery)."""
        try:
            glyph = prepare(image)
        except GlyphImageError as exc:
            return f"⚠️ {exc}", "", []
        backend = backend or self.config.backends[0]
        if backend not in self.config.backends:
            return f"⚠️ backend {_md_escape(backend)} is not offered here", "", []
        try:
            explainer = self.explainers.get(backend)
        except BackendUnavailable as exc:
            return f"⚠️ {exc}", "", []
        refs = None
        questions = None
        if bench_id:
            try:
                refs = references_of(self.bench_rows(bench_id))
                questions = {q: r["question"] for q, r in refs.items()}
            except DataUnavailable as exc:
                return f"⚠️ {exc}", "", []
        ex = explainer.explain(glyph, questions)
        scores = score_item(ex, refs) if refs else None
        html = exegesis_html(ex, refs, scores)
        gallery = [(n.image, f"{n.character} · {n.script} · sim {n.similarity:.2f}") for n in ex.neighbours
                   if n.image is not None]
        status = self._status(ex, refs is not None)
        if bench_id:
            status += self._script_note(self.bench_rows(bench_id)[0]["script"])
        return status, html, gallery

    def _script_note(self, script: str) -> str:
        """A warning when a bench item's script has no glyph in the retrieval gallery."""
        try:
            held = self.resources.coverage()["scripts"]
        except DataUnavailable:
            return ""
        if script in held:
            return ""
        return (f"\n\n⚠️ This item is in {_md_escape(script)}, a script with **no glyphs in the gallery**: "
                f"the retrieval baseline cannot answer it with {_md_escape(script)} (it holds {'、'.join(held)}).")

    def _status(self, ex, with_refs: bool) -> str:
        notes = " ".join(_md_escape(n) for n in ex.notes)
        if ex.abstained:
            cands = "、".join(f"{_md_escape(c)} ({w:.2f})" for c, w in ex.decision["candidates"][:5])
            status = (f"**{_md_escape(ex.backend)}** could not read this glyph (confidence "
                      f"{ex.decision['confidence']:.2f}) in {ex.seconds:.2f} s: no level is answered. "
                      f"Nearest candidates: {cands}. " + notes)
        else:
            errors = [f"{q}: {f.error}" for q, f in ex.facts.items() if f.error]
            read = (ex.decision or {}).get("read_by")
            conf = (ex.decision or {}).get("confidence")
            how = f"read by **{_md_escape(read)}**, confidence {conf:.2f}; " if read and conf is not None else ""
            status = (f"**{_md_escape(ex.backend)}** answered in {ex.seconds:.2f} s ({how.rstrip('; ')}). " + notes
                      if how else f"**{_md_escape(ex.backend)}** answered in {ex.seconds:.2f} s. " + notes
                      + (f"\n\nNot answered: {_md_escape('; '.join(errors))}" if errors else ""))
        if with_refs:
            status += "\n\nReference answers are JieZi-Bench's; scores are this item's ACCE scores (0-100)."
        return status

    def coverage(self) -> str:
        """The coverage line of the retrieval gallery (markdown), or why it is unknown."""
        try:
            return coverage_line(self.resources.coverage())
        except DataUnavailable as exc:
            return f"**Gallery coverage** unknown: {_md_escape(str(exc))}"

    def explain_upload(self, image, backend):
        """The upload arrives as a file path and is opened here, through the one image guard
        (hub/imageio.py: pixel cap, empty, truncated, undecodable), not by Gradio."""
        if isinstance(image, (str, Path)):
            try:
                image = open_image(image, name=Path(image).name)
            except ImageRejected as exc:
                return f"⚠️ {_md_escape(str(exc))}", "", []
        return self.explain(image, backend)

    def explain_sketch(self, sketch, backend):
        try:
            image = sketch_image(sketch)
        except GlyphImageError as exc:
            return f"⚠️ {exc}", "", []
        if image is None:
            return "⚠️ nothing drawn yet: draw a glyph on the sketch pad", "", []
        return self.explain(image, backend)

    def explain_bench(self, image_id, backend):
        if not image_id:
            return "⚠️ pick a bench item first", "", []
        image, _ = self.bench_preview(image_id)
        if image is None:
            return f"⚠️ bench item {_md_escape(image_id)} is not available", "", []
        return self.explain(image, backend, bench_id=image_id)

    # -- explorer ----------------------------------------------------------------------
    def explore(self, resource: str, split: str, character: str, script: str, subtask: str, page: int):
        """One explorer page: (gallery, table, info markdown, page number, page items,
        cleared detail)."""
        kind = "bench" if resource == "JieZi-Bench" else "dataset"
        splits = BENCH_SPLITS if kind == "bench" else DATASET_SPLITS
        split = split if split in splits else splits[0]
        try:
            pg = query(self.resources, kind, split, character, script, subtask, int(page or 1))
        except DataUnavailable as exc:
            return [], _frame([], []), f"⚠️ {exc}", 1, [], ""
        info = (f"{pg.total:,} matching {'questions' if kind == 'bench' else 'glyph images'} in "
                f"{resource} / {split} · page {pg.page} of {pg.pages} · click a glyph for its QA pairs and sources")
        if not pg.total and script and script != ALL:
            info = self._no_script_data(kind, resource, split, script) or info
        return pg.images, _frame(pg.rows, pg.columns), info, pg.page, pg.items, ""

    def _no_script_data(self, kind: str, resource: str, split: str, script: str) -> str | None:
        """The explorer's message when ``script`` has no rows at all in the resource."""
        counts = self.resources.script_counts(kind, split)
        if counts.get(script):
            return None
        held = ", ".join(f"{s} ({n:,})" for s, n in sorted(counts.items(), key=lambda t: -t[1]))
        return (f"0 matching: {resource} / {split} has **no {script} glyphs** in this build, so there is nothing to "
                f"show. Scripts with data: {held or 'none'}.")

    def split_choices(self, resource: str):
        splits = list(BENCH_SPLITS if resource == "JieZi-Bench" else DATASET_SPLITS)
        return gr.update(choices=splits, value=splits[0])

    @staticmethod
    def detail(items: list, evt: gr.SelectData):
        """Markdown of the explorer item selected in the gallery."""
        from space.data import provenance_list, qa_turns

        if not items or evt is None or evt.index is None or evt.index >= len(items):
            return ""
        item = items[evt.index]
        head = f"### {item.get('character')} · {item.get('script')} · `{item.get('id')}`"
        if "messages" in item:
            provs = provenance_list(item.get("provenance"))
            lines = [head]
            for k, (code, q, a) in enumerate(qa_turns(item)):
                lines.append(f"**{code}** {_md_escape(q)}\n\n> {_md_escape(a)}")
                if k < len(provs) and provs[k]:
                    lines.append(_sources_md(provs[k]))
            return "\n\n".join(lines)
        flags = [f for f, on in (("unseen character", item.get("unseen_character")),
                                 ("unseen glyph", item.get("unseen_glyph"))) if on]
        lines = [f"### {item.get('character')} · {item.get('script')} · image `{item.get('image_id')}`"
                 + (f" · {', '.join(flags)}" if flags else "")]
        for q in item.get("questions") or [item]:
            lines += [f"**{q.get('subtask')}** ({q.get('level')}; metrics {', '.join(q.get('metrics') or [])})",
                      f"**问题** {_md_escape(q.get('question', ''))}", f"**参考答案**\n\n{_md_escape(q.get('answer', ''))}",
                      _sources_md(provenance_list(q.get("provenance")))]
        return "\n\n".join(lines)

    # -- leaderboard -------------------------------------------------------------------
    def board(self, models: list[str] | None = None):
        """(table, chart, model choices update, info) of the leaderboard."""
        try:
            frame = lb.table(self.config.board)
        except lb.BoardUnavailable as exc:
            return _frame([], []), None, gr.update(choices=[], value=[]), f"⚠️ {exc}"
        names = frame["model"].tolist()
        chosen = [m for m in (models or []) if m in names] or lb.default_models(frame)
        info = (f"{len(frame)} rows · {int((frame['source'] != lb.PAPER).sum())} submitted · "
                f"board `{str(self.config.board).replace('`', '')}`")
        return frame, lb.chart(frame, chosen), gr.update(choices=names, value=chosen), info

    def chart(self, models: list[str]):
        try:
            frame = lb.table(self.config.board)
        except lb.BoardUnavailable:
            return None
        return lb.chart(frame, models or [])

    # -- submission --------------------------------------------------------------------
    def submit(self, data: bytes | None, model_name: str, organisation: str, link: str, notes: str,
               progress=gr.Progress(track_tqdm=True)):
        """Validate, score and store one predictions.jsonl upload; returns (message,
        table, chart, model choices update, info). ``progress`` (Gradio's tracker) shows
        the stage and the scorer's own progress bars while it runs."""
        message = lb.submit(self.config, data, model_name,
                            {"organisation": organisation, "link": link, "notes": notes},
                            progress=lambda fraction, desc: progress(fraction, desc=desc))
        return (message, *self.board())


def _sources_md(provs: list) -> str:
    if not provs:
        return ""
    return "\n".join(f"- *{_md_escape(p.get('source', '?'))}* {_md_escape(p.get('entry_id', ''))} "
                     f"「{_md_escape(p.get('span', ''))}」 ({_md_escape(p.get('rule', ''))})" for p in provs[:8])


def _frame(rows, columns):
    import pandas as pd

    return pd.DataFrame(rows, columns=columns or None)


# ------------------------------------------------------------------------------ layout
def build_app(config: SpaceConfig | None = None) -> gr.Blocks:
    """The Space as a ``gr.Blocks`` (not launched). ``config`` defaults to
    :meth:`SpaceConfig.from_env`."""
    config = config or SpaceConfig.from_env()
    h = Handlers(config)
    # delete_cache: uploads and rendered glyphs older than a day are removed, daily
    with gr.Blocks(title="JieZi Space", delete_cache=(86400, 86400)) as demo:
        gr.Markdown(f"# {TITLE}\nGive the image of one ancient glyph; read its exegesis on four levels "
                    "(identity and script · structure, components and formation · original meaning · evolution), "
                    "with the source of each fact.")
        with gr.Tabs():
            bench_pick, coverage = _exegesis_tab(h, config)
            _explorer_tab(h)
            board_outs = _board_tab(h)
            _submit_tab(h, config, board_outs)
        data_status = gr.Markdown(elem_id="jz-data-status")
        demo.load(lambda: h.board(), None, board_outs)
        demo.load(lambda: gr.update(choices=h.bench_choices()), None, bench_pick)
        demo.load(h.coverage, None, coverage)
        demo.load(lambda: "**Data**\n\n" + h.resources.status(), None, data_status)
    demo.jiezi_handlers = h  # for tests and the CLI
    return demo


def _input_tabs(config: SpaceConfig):
    """The three ways to give a glyph; returns their components."""
    with gr.Tabs():
        with gr.Tab("上传 Upload", id="upload"):
            image = gr.Image(type="filepath", image_mode=None, sources=["upload", "clipboard"],
                             label="glyph image: upload or paste (PNG, JPEG, WebP)", height=300, elem_id="jz-upload")
            run_upload = gr.Button("释读 Explain", variant="primary", elem_id="jz-run-upload")
        with gr.Tab("手写 Sketch", id="sketch"):
            sketch = gr.Sketchpad(type="pil", canvas_size=(400, 400), label="draw one glyph (pick the brush first)",
                                  brush=gr.Brush(colors=["#000000"], default_color="#000000", default_size=12,
                                                 color_mode="fixed"), elem_id="jz-sketch")
            run_sketch = gr.Button("释读 Explain sketch", variant="primary", elem_id="jz-run-sketch")
        with gr.Tab("评测题 Bench", id="bench") as bench_tab:
            bench_pick = gr.Dropdown([], label="JieZi-Bench image", elem_id="jz-bench-pick")
            bench_image = gr.Image(type="pil", label="bench glyph", interactive=False, height=220,
                                   elem_id="jz-bench-preview")
            bench_info = gr.Markdown()
            run_bench = gr.Button("释读 Explain with reference", variant="primary", elem_id="jz-run-bench")
    return (image, run_upload, sketch, run_sketch, bench_tab, bench_pick, bench_image, bench_info, run_bench)


def _exegesis_tab(h: Handlers, config: SpaceConfig):
    """The exegesis tab; returns (bench picker, coverage line) for the page-load events."""
    with gr.Tab("释字 Exegesis", id="exegesis"):
        coverage = gr.Markdown(elem_id="jz-coverage")
        with gr.Row():
            with gr.Column(scale=3, min_width=320):
                backend = gr.Dropdown(config.backends, value=config.backends[0], label="backend 模型", elem_id="jz-backend",
                                      info="fused = PP-OCR reads the glyph, retrieval names its script, a "
                                           "font-template reader names rare characters; all three vote on the "
                                           "character, or it abstains; retrieval = the gallery look-alike "
                                           "baseline alone")
                (image, run_upload, sketch, run_sketch, bench_tab, bench_pick, bench_image, bench_info,
                 run_bench) = _input_tabs(config)
            with gr.Column(scale=5):
                status = gr.Markdown(elem_classes=["jz-status"], elem_id="jz-status")
                result = gr.HTML(elem_id="jz-exegesis")
                neighbours = gr.Gallery(label="近邻字形 retrieved neighbour glyphs", columns=5, rows=2, height=330,
                                        object_fit="contain", allow_preview=True, elem_id="jz-neighbours")
        outs = [status, result, neighbours]
        run_upload.click(h.explain_upload, [image, backend], outs)
        run_sketch.click(h.explain_sketch, [sketch, backend], outs)
        run_bench.click(h.explain_bench, [bench_pick, backend], outs)
        bench_tab.select(lambda: gr.update(choices=h.bench_choices()), None, bench_pick)
        bench_pick.change(h.bench_preview, bench_pick, [bench_image, bench_info])
    return bench_pick, coverage


def _explorer_tab(h: Handlers) -> None:
    with gr.Tab("浏览 Explorer", id="explorer"):
        with gr.Row():
            resource = gr.Radio(["JieZi-Bench", "JieZi-Dataset"], value="JieZi-Bench", label="resource")
            split = gr.Dropdown(list(BENCH_SPLITS), value="test", label="split")
            character = gr.Textbox(label="字 character(s)", placeholder="e.g. 日月", elem_id="jz-char")
            script = gr.Dropdown([ALL, *labels.SCRIPTS], value=ALL, label="书体 script", elem_id="jz-script")
            subtask = gr.Dropdown([ALL, *labels.SUBTASKS], value=ALL, label="子任务 subtask")
        with gr.Row():
            prev_btn = gr.Button("◀ previous", size="sm")
            page = gr.Number(value=1, precision=0, minimum=1, label="page", elem_id="jz-page")
            next_btn = gr.Button("next ▶", size="sm")
            search_btn = gr.Button("查询 Search", variant="primary", elem_id="jz-search")
        info = gr.Markdown(elem_id="jz-explorer-info")
        items = gr.State([])
        with gr.Row():
            page_gallery = gr.Gallery(label="glyphs on this page (one per glyph)", columns=4, height=420,
                                      object_fit="contain", allow_preview=False, elem_id="jz-page-gallery")
            detail = gr.Markdown(elem_id="jz-detail", max_height=320)
        table = gr.Dataframe(label="QA pairs", interactive=False, wrap=True, max_height=480,
                             column_widths=["5%", "7%", "8%", "8%", "36%", "36%"], elem_id="jz-qa-table")
        filters = [resource, split, character, script, subtask]
        explore_outs = [page_gallery, table, info, page, items, detail]
        search_btn.click(lambda *a: h.explore(*a, 1), filters, explore_outs)
        character.submit(lambda *a: h.explore(*a, 1), filters, explore_outs)
        prev_btn.click(lambda *a: h.explore(*a[:-1], max(1, int(a[-1] or 1) - 1)), [*filters, page], explore_outs)
        next_btn.click(lambda *a: h.explore(*a[:-1], int(a[-1] or 1) + 1), [*filters, page], explore_outs)
        page.submit(h.explore, [*filters, page], explore_outs)
        resource.change(h.split_choices, resource, split)
        page_gallery.select(h.detail, items, detail)


def _board_tab(h: Handlers) -> list:
    """The leaderboard tab; returns its outputs (table, chart, model picker, info)."""
    with gr.Tab("排行榜 Leaderboard", id="leaderboard") as board_tab:
        board_info = gr.Markdown(elem_id="jz-board-info")
        board_table = gr.Dataframe(interactive=False, show_search="filter", max_height=520, wrap=False,
                                   pinned_columns=2, elem_id="jz-board", label="JieZi-Bench leaderboard (0-100)")
        gr.Markdown(lb.LEGEND, elem_id="jz-board-legend")
        models = gr.Dropdown([], multiselect=True, label="compare models", elem_id="jz-models")
        plot = gr.Plot(label="eleven metrics", elem_id="jz-chart")
        board_outs = [board_table, plot, models, board_info]
        board_tab.select(lambda: h.board(), None, board_outs)
        models.change(h.chart, models, plot)
    return board_outs


def _submit_tab(h: Handlers, config: SpaceConfig, board_outs: list) -> None:
    with gr.Tab("提交 Submit", id="submit"):
        gr.Markdown(lb.SUBMIT_HELP.format(limit=config.max_upload_mb))
        with gr.Row():
            upload = gr.File(label="predictions.jsonl", type="binary", file_types=[".jsonl", ".json", ".txt"],
                             elem_id="jz-predictions")
            with gr.Column():
                model_name = gr.Textbox(label="model name", placeholder="e.g. my-org/qwen3.5-2b-jiezi",
                                        elem_id="jz-model-name")
                organisation = gr.Textbox(label="organisation (optional)")
                link = gr.Textbox(label="link to model or paper (optional)")
                notes = gr.Textbox(label="notes (optional)", lines=2)
        submit_btn = gr.Button("提交 Submit", variant="primary", elem_id="jz-submit")
        submit_msg = gr.Markdown(elem_id="jz-submit-result")
        submit_btn.click(h.submit, [upload, model_name, organisation, link, notes], [submit_msg, *board_outs])


def launch(config: SpaceConfig | None = None, *, host: str | None = None, port: int | None = None,
           block: bool = True):
    """Build and launch the Space. ``host`` / ``port`` default to Gradio's own
    (``GRADIO_SERVER_NAME`` / ``GRADIO_SERVER_PORT``, else 127.0.0.1:7860; port None with
    a host picks the first free port from 7860). Returns ``(app, local_url, share_url)``
    from ``Blocks.launch``; with ``block=False`` the server runs in a background thread."""
    from PIL import Image

    config = config or SpaceConfig.from_env()
    # A small upload can still decode to a huge image. Gradio reads each upload's header with
    # Pillow (no decoding) before the app sees the path; the app's guard (hub/imageio.py,
    # explain_upload) then refuses more pixels than its cap with one line. Pillow's own check
    # would fail that header read first, with Gradio's generic error, so it is left to the guard.
    Image.MAX_IMAGE_PIXELS = None
    demo = build_app(config)
    demo.queue(default_concurrency_limit=2)
    # Embed the retrieval gallery (and fit the fused baseline) now rather than on the first click (minutes on the full
    # dataset the first time; cached on disk afterwards). A failure is kept and shown later.
    threading.Thread(target=_warm, args=(demo.jiezi_handlers,), daemon=True, name="jiezi-warm").start()
    return demo.launch(server_name=host, server_port=port, prevent_thread_lock=not block, quiet=True,
                       max_file_size=f"{config.max_upload_mb}mb", theme=theme(), css=APP_CSS, ssr_mode=False,
                       show_error=True, footer_links=["gradio"])


def _warm(handlers: Handlers) -> None:
    try:
        handlers.explainers.get(handlers.config.backends[0])
    except BackendUnavailable:
        pass  # cached; the exegesis tab shows the reason
    _warm_scorer(handlers.config)


def _warm_scorer(config: SpaceConfig) -> None:
    """Score one ORIM pair with the board's BERTScore model so that its import and load
    happen at start, not in the first submission (measured with cProfile on a 7,996-row
    submission, 2 busy cores: importing bert_score 65 s and loading the model 116 s of
    598 s; the exact metrics took 16 s). Any failure is left to the submission, which
    reports it."""
    import json

    try:
        from harness.scoring import scorer_settings
        from metrics.acce.core import score

        board = Path(config.board) / "board.json"
        model = (json.loads(board.read_text("utf-8"))["scorer"]["bertscore_model"] if board.exists()
                 else config.bertscore_model)
        settings, _ = scorer_settings(model, progress=False)
        score(["水名"], ["水名"], [["ORIM"]], settings=settings, judge=False)
    except Exception:  # noqa: BLE001 - a warm-up only; the submission shows real errors
        pass


def block_until_interrupted() -> None:
    """Sleep until Ctrl+C (the server runs in Gradio's thread)."""
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":  # the Hub Space entry point
    launch()
