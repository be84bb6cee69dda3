"""`jiezi --help` stays fast: the command modules import no heavy stack at start-up (they
load it inside the commands)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
HEAVY = ("datasets", "torch", "transformers", "gradio", "evaluate", "pandas", "numpy", "pyarrow", "sklearn",
         "onnxruntime", "openai", "PIL", "pydantic", "trl", "huggingface_hub")

CODE = """
import json, sys, time
t0 = time.perf_counter()
import jiezi_cli
try:
    jiezi_cli.app(["--help"])
except SystemExit:
    pass
print(json.dumps({"seconds": time.perf_counter() - t0, "modules": sorted(sys.modules)}))
"""


@pytest.mark.subprocess
def test_help_loads_no_heavy_stack():
    proc = subprocess.run([sys.executable, "-c", CODE], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    loaded = sorted({m.split(".")[0] for m in report["modules"]} & set(HEAVY))
    assert loaded == [], f"`jiezi --help` imports {loaded}; import them inside the commands"
    assert report["seconds"] < 5  # about 0.5 s here; generous for a loaded machine


def test_every_command_still_has_its_help():
    from typer.testing import CliRunner

    from jiezi_cli import app

    t0 = time.perf_counter()
    out = CliRunner().invoke(app, ["eval", "--help"], env={"COLUMNS": "200"}).output
    assert "openai:MODEL@BASE_URL" in out and "offline-gemma3" in out and time.perf_counter() - t0 < 30
