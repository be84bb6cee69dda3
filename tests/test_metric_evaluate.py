"""The ``jiezi/acce`` evaluate module: ``evaluate.load("metrics/acce")`` from the repository
root, the same folder loaded on its own (as the Hub Space holds it), the metric card, and
the Gradio 6 app."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
METRIC_DIR = REPO / "metrics" / "acce"


def _run(code: str, cwd: Path, timeout: int = 240) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


SCRIPT = """
    import json, sys
    import evaluate
    acce = evaluate.load({path!r})
    r = acce.compute(
        predictions=["江", "篆書", "1. 构件亻：功能=表意；演变类型=保留；解释=人。", None],
        references=[{{"character": "江"}}, "篆书",
                    {{"components": [{{"name": "人", "functions": ["表意"], "interpretation": "人", "evolution_type": "保留"}}]}},
                    '{{"structure": "⿰"}}'],
        subtasks=["CHAR", "SCRC", ["COMR", "COMF", "COME"], "STRC"],
        settings={{"bertscore": False, "progress": False}}, judge=False)
    acce.add_batch(predictions=["河"], references=[{{"character": "江"}}], subtasks=["CHAR"])
    acce.add(prediction="江", reference={{"character": "江"}}, subtasks="CHAR")
    r2 = acce.compute(bertscore=False)
    print(json.dumps({{"module": type(acce).__module__, "r": {{k: r[k] for k in
        ("CHAR", "SCRC", "STRC", "COMR", "COMF", "COME", "L1", "macro", "not_computed")}},
        "char2": r2["CHAR"], "pkg_imported": "metrics.acce.core" in sys.modules}}, ensure_ascii=False))
"""


def _check(out: dict) -> None:
    r = out["r"]
    assert out["module"].startswith("evaluate_modules.metrics.acce.")
    assert (r["CHAR"], r["SCRC"], r["COMR"], r["COMF"], r["COME"], r["STRC"]) == (100.0, 100.0, 100.0, 100.0, 100.0, 0.0)
    assert r["L1"] == 100.0 and set(r["not_computed"]) == set()
    assert out["char2"] == 50.0


@pytest.mark.subprocess
def test_evaluate_load_from_repo_root():
    _check(_run(SCRIPT.format(path="metrics/acce"), cwd=REPO))


@pytest.mark.subprocess
def test_metric_folder_works_on_its_own(tmp_path):
    # What the jiezi/acce Space holds: this folder alone, no project package on the path,
    # checked out under another name (Spaces use /home/user/app).
    space = tmp_path / "app"
    shutil.copytree(METRIC_DIR, space, ignore=shutil.ignore_patterns("__pycache__"))
    out = _run(SCRIPT.format(path=str(space / "acce.py")), cwd=tmp_path)
    _check(out)
    assert out["pkg_imported"] is False
    app = _run(f"""
        import json, sys
        sys.path.insert(0, {str(space)!r})
        import app
        demo = app.build_demo()
        r = app.score_table([row for row in app.EXAMPLES if row[2] != "ORIM"], False, "", "", "", "")
        print(json.dumps({{"CHAR": r["CHAR"], "COMR": r["COMR"], "COMI": r["COMI"],
                          "parsed": app.parse_one("形聲字", "FORC"),
                          "pkg_imported": "metrics.acce.core" in sys.modules}}, ensure_ascii=False))
    """, cwd=tmp_path)
    assert app == {"CHAR": 100.0, "COMR": 100.0, "COMI": None, "parsed": {"formation": ["形声"], "yisheng": False},
                   "pkg_imported": False}


def test_acce_script_imports_every_sibling_module():
    # evaluate copies only the modules acce.py imports itself (relative, one per line).
    from evaluate.loading import get_imports

    imported = {name for kind, name, _, _ in get_imports(str(METRIC_DIR / "acce.py")) if kind == "internal"}
    modules = {p.stem for p in METRIC_DIR.glob("*.py")} - {"__init__", "acce", "app"}
    assert modules <= imported, f"acce.py must import {sorted(modules - imported)} relatively"
    for name in modules:  # and the siblings import only siblings (no `metrics.` absolute imports)
        assert "from metrics" not in (METRIC_DIR / f"{name}.py").read_text(encoding="utf-8")


def test_metric_card_front_matter():
    text = (METRIC_DIR / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    meta = yaml.safe_load(text.split("---\n")[1])
    assert meta["sdk"] == "gradio" and meta["app_file"] == "app.py"
    assert {"evaluate", "metric"} <= set(meta["tags"])
    for word in ("CHAR", "EVOI_SCE", "macro", "BERTScore", "not_computed", "lenient", "FORC_partial"):
        assert word in text
    reqs = (METRIC_DIR / "requirements.txt").read_text(encoding="utf-8")
    for dist in ("evaluate", "bert-score", "opencc", "pydantic", "openai", "transformers"):
        assert dist in reqs


@pytest.mark.server
@pytest.mark.slow
def test_app_serves_under_gradio_6():
    import gradio as gr
    from gradio_client import Client

    assert int(gr.__version__.split(".")[0]) >= 6
    # loaded under its own name: a bare `import app` could return another package's app module
    spec = importlib.util.spec_from_file_location("jiezi_acce_space_app", METRIC_DIR / "app.py")
    app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(app)
    demo = app.build_demo()
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True)
    try:
        client = Client(url, verbose=False)
        assert client.predict("会意兼形声", "FORC", api_name="/parse_one") == {"formation": ["会意", "形声"],
                                                                             "yisheng": True}
    finally:
        demo.close()
