"""The JieZi Space end to end in headless Chromium (Debian's, driven by Playwright).

``jiezi space`` is started as a subprocess on a free 127.0.0.1 port over small Hub-layout
folders; the test uploads a transparent glyph and reads a four-level answer with its
sources, draws one on the sketch pad, explains a bench item beside its reference,
browses the explorer, checks that the leaderboard renders with the paper's rows, that a
bad submission and an oversized upload show their errors, and that a good submission
(the predictions of ``jiezi eval --model retrieval``) adds a row. Screenshots of every
tab go to ``$JIEZI_SCREENSHOTS`` (default ``out/screenshots``); their paths are printed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from metrics.acce import labels

from space_fixtures import build_space_data, encode, glyph, incomplete_predictions, run_retrieval_eval, serve_chat

pytestmark = [pytest.mark.browser, pytest.mark.subprocess, pytest.mark.server]  # a jiezi space process, Chromium

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 60_000
SHOTS = Path(os.environ.get("JIEZI_SCREENSHOTS") or REPO / "out" / "screenshots")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def data(sources_dir, tmp_path_factory):
    root = tmp_path_factory.mktemp("space-data")
    bench, dataset = build_space_data(sources_dir, root)
    predictions = run_retrieval_eval(bench, root / "eval")
    return {"root": root, "bench": bench, "dataset": dataset, "predictions": predictions}


@pytest.fixture(scope="module")
def chat():
    """A loopback OpenAI-compatible server, as `vllm serve` or SGLang would offer."""
    with serve_chat() as server:
        yield server.url


@pytest.fixture(scope="module")
def server(data, chat, warm_templates, tmp_path_factory):
    """``jiezi space`` in a subprocess (retrieval plus the loopback ``openai:`` model);
    yields its URL, stops it afterwards. The template reader's templates are rendered
    beforehand (``warm_templates``): the first upload's wait is the fused fit alone."""
    port = _free_port()
    log = tmp_path_factory.mktemp("space-log") / "server.log"
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "JIEZI_CACHE": str(data["root"] / "cache"), "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "jiezi_cli", "space", "--bench", str(data["bench"]), "--dataset",
           str(data["dataset"]), "--board", str(data["root"] / "board"), "--host", "127.0.0.1", "--port", str(port),
           "--max-upload-mb", "1", "--backend", f"openai:tiny-vl@{chat}"]
    with open(log, "w") as fh:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=fh, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                pytest.fail(f"`jiezi space` exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
            try:
                if httpx.get(url, timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"`jiezi space` did not answer on {url} within 180 s:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def page(server, tmp_path_factory):
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} not found: install Debian's chromium (`make setup` does)")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 1000}, locale="zh-CN")
        context.set_default_timeout(TIMEOUT_MS)
        pg = context.new_page()
        pg.jiezi_requests = []  # every URL the page asks for
        pg.on("request", lambda req: pg.jiezi_requests.append(req.url))
        pg.goto(server)
        pg.get_by_text("解字 JieZi").first.wait_for()
        yield pg
        context.close()


def idle(pg, quiet_ms: int = 600) -> None:
    """Wait until no Gradio event has been running for ``quiet_ms`` (every status
    tracker hidden), so that an event a click has just sent is not missed."""
    busy = "() => !!document.querySelector('[data-testid=status-tracker]:not(.hide)')"
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    calm_since = None
    while time.monotonic() < deadline:
        if pg.evaluate(busy):
            calm_since = None
        elif calm_since is None:
            calm_since = time.monotonic()
        elif (time.monotonic() - calm_since) * 1000 >= quiet_ms:
            return
        pg.wait_for_timeout(100)
    pytest.fail("the page stayed busy for a minute")


def shot(pg, name: str) -> Path:
    idle(pg)
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    pg.screenshot(path=str(path), full_page=True)
    print(f"screenshot: {path}")
    return path


def _rows(pg, table: str) -> int:
    """Data rows of a gr.Dataframe (it renders rows virtually; the grid's aria-rowcount
    counts all of them, the header included)."""
    return int(pg.locator(f"{table} [role=grid]").get_attribute("aria-rowcount")) - 1


def clear_upload(pg):
    """Click the file box's clear button (its label follows the browser's locale)."""
    pg.locator("#jz-predictions").get_by_role("button", name=re.compile("^(Clear|清除|清空)$")).first.click()


def tab(pg, name: str):
    pg.get_by_role("tab", name=name).click()


def test_upload_a_transparent_glyph_and_read_four_levels(page, tmp_path):
    from playwright.sync_api import expect

    png = tmp_path / "jiang.png"
    png.write_bytes(encode(glyph("江", transparent=True), "PNG"))
    tab(page, "释字 Exegesis")
    page.locator("#jz-upload input[type=file]").set_input_files(str(png))
    page.locator("#jz-upload img").first.wait_for()
    page.locator("#jz-run-upload").click()
    result = page.locator("#jz-exegesis")
    expect(result.locator("section.jz-level")).to_have_count(4, timeout=TIMEOUT_MS)
    for level in ("L1", "L2", "L3", "L4"):
        expect(result.locator(f"section[data-level={level}]")).to_be_visible()
    # the glyph is read as ONE character, 江, and each level holds that character's answers
    expect(result.locator("[data-subtask=CHAR] .jz-big")).to_have_text("江")
    verdict = result.locator(".jz-verdict[data-abstained=false]")
    expect(verdict).to_contain_text("read as")
    expect(verdict.locator(".jz-cand").first).to_have_text("江")
    for subtask in ("STRC", "FORC"):
        expect(result.locator(f"[data-subtask={subtask}] .jz-basis")).to_contain_text("from the records of 江")
    # the original meaning comes from 江's own records or stays unanswered (a bench character's
    # gallery record has no Shuowen gloss): never a neighbour's
    expect(result.locator("[data-subtask=ORIM]").locator(".jz-err, .jz-basis").first).to_contain_text("records of 江")
    expect(result.locator("[data-subtask=SCRC] .jz-basis")).to_contain_text("江's")
    # the IDC, with its name beside it, in the answer and in the quoted source spans
    expect(result.locator("[data-subtask=STRC] .jz-idc").first).to_have_text("⿰")
    expect(result.locator("[data-subtask=STRC]")).to_contain_text("左右")
    expect(result.locator("[data-subtask=STRC] .jz-span .jz-idcl").first).to_have_text("左右")
    for subtask in ("SCRC", "STRC", "FORC"):
        expect(result.locator(f"[data-subtask={subtask}] .jz-err")).to_have_count(0)
    # the components come from 江's own records or stay unanswered with the reason: the
    # fixture's gallery may hold only 江's seal drawing, whose record (a bench character's)
    # carries no Shuowen analysis; never a neighbour's components
    comr = result.locator("[data-subtask=COMR]")
    expect(comr.locator("table.jz-comp, .jz-err").first).to_be_visible()
    if comr.locator(".jz-err").count():
        expect(comr.locator(".jz-err")).to_contain_text("records of 江")
    # each fact lists its sources: source, entry, exact span
    assert result.locator("[data-subtask=STRC] .jz-src li").count() >= 1
    assert result.locator("[data-subtask=FORC] .jz-src li").count() >= 1
    assert result.locator(".jz-span").count() >= 5
    # the default backend is the fused baseline: PP-OCR read the glyph, retrieval agreed
    expect(page.locator("#jz-status")).to_contain_text("fused:ppocr-v6 answered")
    expect(page.locator("#jz-status")).to_contain_text("read by")
    expect(verdict.locator(".jz-readby")).to_contain_text("OCR")
    expect(result.locator("[data-subtask=CHAR] .jz-basis")).to_contain_text("OCR probability")
    expect(page.locator("#jz-neighbours img").first).to_be_visible()
    assert page.locator("#jz-neighbours img").count() >= 5
    shot(page, "exegesis-upload")


def test_sketch_a_glyph(page):
    from playwright.sync_api import expect

    tab(page, "释字 Exegesis")
    choose_backend(page, "retrieval")  # the look-alike baseline alone
    tab(page, "手写 Sketch")
    page.locator("#jz-sketch button[aria-label=Brush]").click()
    canvas = page.locator("#jz-sketch canvas").first
    box = canvas.bounding_box()
    # 十: one horizontal and one vertical stroke
    for (x1, y1), (x2, y2) in (((0.2, 0.45), (0.8, 0.45)), ((0.5, 0.15), (0.5, 0.85))):
        page.mouse.move(box["x"] + x1 * box["width"], box["y"] + y1 * box["height"])
        page.mouse.down()
        for t in range(1, 13):
            page.mouse.move(box["x"] + (x1 + (x2 - x1) * t / 12) * box["width"],
                            box["y"] + (y1 + (y2 - y1) * t / 12) * box["height"])
        page.mouse.up()
    page.locator("#jz-run-sketch").click()
    # a rough 十 is not in the small test gallery: the baseline says it cannot read it
    expect(page.locator("#jz-status")).to_contain_text("could not read this glyph", timeout=TIMEOUT_MS)
    expect(page.locator("#jz-exegesis section.jz-level")).to_have_count(4)
    expect(page.locator("#jz-exegesis .jz-verdict[data-abstained=true]")).to_have_count(1)
    shot(page, "exegesis-sketch")


def choose_backend(pg, spec: str) -> None:
    pg.locator("#jz-backend input").click()
    pg.get_by_role("option", name=spec, exact=True).click()


def _upload(pg, path) -> None:
    tab(pg, "释字 Exegesis")
    tab(pg, "上传 Upload")
    pg.locator("#jz-upload input[type=file]").set_input_files(str(path))
    pg.locator("#jz-upload img").first.wait_for()
    pg.locator("#jz-run-upload").click()


def test_the_fused_baseline_reads_a_character_the_gallery_lacks_and_abstains_on_noise(page, tmp_path):
    """PP-OCR names 鼎, which no gallery record holds: CHAR is answered, read by OCR, and
    every later level says there is no record; an upload of noise is not read at all."""
    import numpy as np
    from PIL import Image
    from playwright.sync_api import expect

    tab(page, "释字 Exegesis")
    choose_backend(page, "fused")
    png = tmp_path / "ding-fused.png"
    png.write_bytes(encode(glyph("鼎", transparent=False), "PNG"))
    _upload(page, png)
    result = page.locator("#jz-exegesis")
    expect(result.locator("[data-subtask=CHAR] .jz-big")).to_have_text("鼎", timeout=TIMEOUT_MS)
    expect(result.locator(".jz-verdict[data-abstained=false] .jz-readby")).to_have_text("read by OCR")
    expect(result.locator("[data-subtask=STRC] .jz-err")).to_contain_text("no record of 鼎")
    shot(page, "exegesis-fused-ocr-only")
    noise = tmp_path / "noise.png"
    Image.fromarray((np.random.default_rng(0).random((160, 160, 3)) * 255).astype(np.uint8)).save(noise)
    _upload(page, noise)
    expect(page.locator("#jz-status")).to_contain_text("could not read this glyph", timeout=TIMEOUT_MS)
    expect(result.locator(".jz-verdict[data-abstained=true]")).to_have_count(1)
    expect(result.locator("[data-subtask=CHAR] .jz-big")).to_have_count(0)
    shot(page, "exegesis-fused-noise")


def test_a_glyph_outside_the_gallery_is_not_read(page, tmp_path):
    from playwright.sync_api import expect

    png = tmp_path / "ding.png"
    png.write_bytes(encode(glyph("鼎", transparent=True), "PNG"))  # no record of 鼎 in the gallery
    tab(page, "释字 Exegesis")
    choose_backend(page, "retrieval")  # retrieval alone cannot name it
    tab(page, "上传 Upload")
    page.locator("#jz-upload input[type=file]").set_input_files(str(png))
    page.locator("#jz-upload img").first.wait_for()
    page.locator("#jz-run-upload").click()
    verdict = page.locator("#jz-exegesis .jz-verdict[data-abstained=true]")
    expect(verdict).to_contain_text("cannot read this glyph", timeout=TIMEOUT_MS)
    assert verdict.locator(".jz-cand").count() >= 2  # the nearest candidates are named
    expect(page.locator("#jz-status")).to_contain_text("could not read this glyph")
    expect(page.locator("#jz-exegesis [data-subtask=CHAR] .jz-big")).to_have_count(0)  # no character claimed
    expect(page.locator("#jz-exegesis .jz-err").first).to_contain_text("abstained")
    shot(page, "exegesis-abstain")


def test_coverage_is_stated(page):
    from playwright.sync_api import expect

    tab(page, "释字 Exegesis")
    cov = page.locator("#jz-coverage")
    expect(cov).to_contain_text("Gallery coverage", timeout=TIMEOUT_MS)
    expect(cov).to_contain_text("楷书")
    expect(cov).to_contain_text("No data")
    expect(cov).to_contain_text("金文")
    tab(page, "浏览 Explorer")
    page.get_by_label("JieZi-Bench").check()
    page.locator("#jz-script input").click()
    page.get_by_role("option", name="金文", exact=True).click()
    page.locator("#jz-search").click()
    expect(page.locator("#jz-explorer-info")).to_contain_text("no 金文 glyphs", timeout=TIMEOUT_MS)
    expect(page.locator("#jz-explorer-info")).to_contain_text("Scripts with data")
    shot(page, "explorer-no-data")
    page.locator("#jz-script input").click()
    page.get_by_role("option", name="全部 all", exact=True).click()


def test_a_real_model_server_answers_in_the_demo(page, chat, tmp_path):
    """The ``openai:`` backend against a loopback chat-completions server (how the Space
    runs with a vLLM / SGLang server: ``jiezi space --backend openai:MODEL@URL``)."""
    from playwright.sync_api import expect

    png = tmp_path / "jiang.png"
    png.write_bytes(encode(glyph("江"), "PNG"))
    tab(page, "释字 Exegesis")
    tab(page, "上传 Upload")
    page.locator("#jz-backend input").click()
    page.get_by_role("option", name=f"openai:tiny-vl@{chat}").click()
    page.locator("#jz-upload input[type=file]").set_input_files(str(png))
    page.locator("#jz-run-upload").click()
    expect(page.locator("#jz-status")).to_contain_text("openai:tiny-vl", timeout=TIMEOUT_MS)
    expect(page.locator("#jz-status")).to_contain_text("answered")
    result = page.locator("#jz-exegesis")
    expect(result.locator("[data-subtask=CHAR] .jz-big")).to_have_text("江")
    expect(result.locator("[data-subtask=ORIM]")).to_contain_text("水名")
    expect(result.locator("[data-subtask=FORC]")).to_contain_text("形声")
    shot(page, "exegesis-openai-backend")
    page.locator("#jz-backend input").click()
    page.get_by_role("option", name="retrieval", exact=True).click()


def test_bench_item_shows_reference_beside_answer(page):
    from playwright.sync_api import expect

    tab(page, "释字 Exegesis")
    tab(page, "评测题 Bench")
    page.locator("#jz-bench-pick input").click()
    page.get_by_role("option").first.click()
    expect(page.locator("#jz-bench-preview img")).to_be_visible()
    page.locator("#jz-run-bench").click()
    result = page.locator("#jz-exegesis")
    expect(result.locator(".jz-ref").first).to_be_visible(timeout=TIMEOUT_MS)
    assert result.locator(".jz-fact.with-ref").count() == 8  # CHAR SCRC STRC COMR FORC ORIM COME EVOI
    expect(result.locator("[data-subtask=CHAR] .jz-ref")).to_contain_text("参考 reference")
    expect(result.locator("[data-subtask=CHAR] .jz-score")).to_contain_text("CHAR")
    expect(page.locator("#jz-status")).to_contain_text("Reference answers are JieZi-Bench")
    shot(page, "exegesis-bench-item")


def test_explorer_pages_through_bench_and_dataset(page):
    from playwright.sync_api import expect

    tab(page, "浏览 Explorer")
    page.locator("#jz-search").click()
    info = page.locator("#jz-explorer-info")
    expect(info).to_contain_text("matching questions in JieZi-Bench / test", timeout=TIMEOUT_MS)
    expect(info).to_contain_text("page 1 of")
    assert _rows(page, "#jz-qa-table") >= 5
    # one thumbnail per glyph: the page's questions are about fewer glyphs than rows
    n_glyphs = page.locator("#jz-page-gallery img").count()
    assert 1 <= n_glyphs < _rows(page, "#jz-qa-table")
    page.locator("#jz-page-gallery img").first.click()
    expect(page.locator("#jz-detail")).to_contain_text("参考答案")
    shot(page, "explorer-bench")
    # JieZi-Dataset filtered by subtask: only COME turns
    page.get_by_label("JieZi-Dataset").check()
    page.locator("#jz-search").click()
    expect(info).to_contain_text("glyph images in JieZi-Dataset / train")
    n_all = int(info.inner_text().split()[0].replace(",", ""))
    sub = page.get_by_label("子任务 subtask")
    sub.click()
    page.get_by_role("option", name="COME", exact=True).click()
    page.locator("#jz-search").click()
    expect(info).not_to_contain_text(f"{n_all} matching")
    expect(page.locator("#jz-qa-table [role=row]").nth(1)).to_contain_text("COME")
    shot(page, "explorer-dataset")


def test_leaderboard_renders_with_paper_rows(page):
    from playwright.sync_api import expect

    tab(page, "排行榜 Leaderboard")
    board = page.locator("#jz-board")
    expect(board).to_contain_text("reported in paper", timeout=TIMEOUT_MS)
    expect(board).to_contain_text("Qwen3.5-9B + JieZi-Dataset")
    assert _rows(page, "#jz-board") >= 18  # Table 10 of the paper
    for column in ("CHAR", "FAC", "SCE", "L1", "L4", "macro", "source"):
        expect(board.locator("thead")).to_contain_text(column)
    expect(page.locator("#jz-chart img, #jz-chart svg").first).to_be_visible()
    shot(page, "leaderboard")


def test_bad_submissions_show_their_errors(page, data, tmp_path):
    from playwright.sync_api import expect

    tab(page, "提交 Submit")
    bad = tmp_path / "predictions.jsonl"
    bad.write_bytes(incomplete_predictions(data["predictions"]))
    page.locator("#jz-predictions input[type=file]").set_input_files(str(bad))
    page.locator("#jz-model-name textarea, #jz-model-name input").first.fill("my-model")
    page.locator("#jz-submit").click()
    msg = page.locator("#jz-submit-result")
    expect(msg).to_contain_text("Rejected", timeout=TIMEOUT_MS)
    expect(msg).to_contain_text("missing bench id")
    shot(page, "submit-rejected")
    # a path as model name is refused by the harness's name check
    clear_upload(page)
    page.locator("#jz-predictions input[type=file]").set_input_files(str(data["predictions"]))
    page.locator("#jz-model-name textarea, #jz-model-name input").first.fill("../evil")
    page.locator("#jz-submit").click()
    expect(msg).to_contain_text("is not allowed", timeout=TIMEOUT_MS)
    # the server was started with --max-upload-mb 1: Gradio refuses a bigger file
    clear_upload(page)
    big = tmp_path / "big.jsonl"
    big.write_bytes(b" " * 1_300_000)
    page.locator("#jz-predictions input[type=file]").set_input_files(str(big))
    expect(page.get_by_text("exceed the maximum allowed size").first).to_be_visible(timeout=TIMEOUT_MS)
    page.wait_for_timeout(800)  # let the toast finish fading in before the picture
    shot(page, "submit-too-large")
    # an empty file gets its own message, not "no file uploaded" (the refused big file left the box empty)
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    page.locator("#jz-predictions input[type=file]").set_input_files(str(empty))
    page.locator("#jz-model-name textarea, #jz-model-name input").first.fill("my-model")
    page.locator("#jz-submit").click()
    expect(msg).to_contain_text("empty (0 bytes)", timeout=TIMEOUT_MS)
    shot(page, "submit-empty-file")


def test_good_submission_adds_a_row(page, data, tmp_path):
    from playwright.sync_api import expect

    tab(page, "提交 Submit")
    page.reload()
    page.get_by_text("解字 JieZi").first.wait_for()
    tab(page, "提交 Submit")
    upload = tmp_path / "upload.jsonl"  # a file name the server must not care about
    shutil.copyfile(data["predictions"], upload)
    page.locator("#jz-predictions input[type=file]").set_input_files(str(upload))
    page.locator("#jz-model-name textarea, #jz-model-name input").first.fill("jiezi-retrieval-e2e")
    # record every progress text the page shows while the submission runs
    page.evaluate("""() => { window.jzSeen = [];
        new MutationObserver(() => { const t = Array.from(document.querySelectorAll(
                '[data-testid=status-tracker], #jz-submit-result')).map(e => e.innerText).join("\\n");
            if (/validating and scoring/.test(t)) window.jzSeen.push(t.match(/validating and scoring[^\\n]*/)[0]); })
        .observe(document.body, {subtree: true, childList: true, characterData: true}); }""")
    page.locator("#jz-submit").click()
    msg = page.locator("#jz-submit-result")
    expect(msg).to_contain_text("Added", timeout=TIMEOUT_MS)
    expect(msg).to_contain_text("jiezi-retrieval-e2e")
    expect(msg).to_contain_text("scored in")
    seen = page.evaluate("() => window.jzSeen")
    assert seen and "lines" in seen[0], seen  # the stage was shown while it ran
    shot(page, "submit-added")
    tab(page, "排行榜 Leaderboard")
    board = page.locator("#jz-board")
    expect(board).to_contain_text("jiezi-retrieval-e2e", timeout=TIMEOUT_MS)
    row = board.locator("[role=row]", has_text="jiezi-retrieval-e2e")
    expect(row).to_contain_text("submitted")
    # scored on this locally built bench: labelled, ranked apart, the bench named in the notes
    expect(row).to_contain_text("local ")
    expect(row).to_contain_text("b1")
    expect(row).to_contain_text("scored on bench")
    expect(page.locator("#jz-board-legend")).to_contain_text("not comparable")
    stored = [json.loads(p.read_text("utf-8")) for p in (data["root"] / "board" / "submissions").glob("*.json")]
    assert len(stored) == 1
    computed = sum(v is not None for k, v in stored[0]["scores"].items() if k in labels.METRICS)
    expect(row).to_contain_text(f"{computed}/11")  # offline: no BERTScore model, no EVOI judge
    assert _rows(page, "#jz-board") >= 19
    shot(page, "leaderboard-after-submit")
    # the same file again adds nothing
    tab(page, "提交 Submit")
    page.locator("#jz-submit").click()
    expect(msg).to_contain_text("already on the board", timeout=TIMEOUT_MS)
    rows = list((data["root"] / "board" / "submissions").glob("*.json"))
    assert len(rows) == 1


def test_the_page_asks_nothing_of_the_network(page):
    """Fonts, scripts and analytics all come from the Space itself: no request leaves
    127.0.0.1 (the test browser runs offline, as a visitor behind a firewall might)."""
    from urllib.parse import urlparse

    outside = [u for u in page.jiezi_requests
               if urlparse(u).scheme in ("http", "https", "ws", "wss") and urlparse(u).hostname != "127.0.0.1"]
    assert page.jiezi_requests and not outside, outside[:10]
