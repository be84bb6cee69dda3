"""The Hub clients against a Hub-protocol server, offline: ``load_dataset("jiezi/bench", "L4")``,
``evaluate.load("jiezi/acce")``, ``jiezi eval --bench jiezi/bench`` and the Space's loaders.

The server is olah (``olah-cli``, a self-hosted Hugging Face mirror) started on 127.0.0.1 with
``[accessibility] offline = true`` and ``mirrors-path`` pointing at local git repositories
``mirrors/{datasets,spaces}/jiezi/<name>`` on branch ``main``: the small bench and dataset of
tests/harness_fixtures.py in the Hub layout ``jiezi publish`` writes, and the metric folder
``metrics/acce`` as the Space ``jiezi/acce``. The clients run in subprocesses with
``HF_ENDPOINT`` set to the server, so huggingface_hub, datasets and evaluate resolve repo ids
exactly as they do against huggingface.co.

Quirks of the protocol as these clients use it (olah 0.5.4, evaluate 0.4.6):
``evaluate.load`` of a Space asks for the revision ``v<evaluate version>`` first, so the metric
repo carries that tag; olah takes no uploads, so ``jiezi publish`` is tested by its dry run
(tests/test_publish_hub.py), not here.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import evaluate
import pytest
from harness_fixtures import build_hub_folders

from hub.read import load_hub_layout

REPO = Path(__file__).resolve().parent.parent
OLAH = Path(sys.executable).parent / "olah-cli"
JIEZI = Path(sys.executable).parent / "jiezi"


def _git_repo(folder: Path, source: Path, tag: str | None = None) -> None:
    """Copy ``source`` into a new git repo ``folder`` with one commit on ``main``."""
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    git = ["git", "-C", str(folder), "-c", "user.name=jiezi-test", "-c", "user.email=test@jiezi.invalid"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "upload"]):
        subprocess.run([*git, *args], check=True, capture_output=True)
    if tag:
        subprocess.run([*git, "tag", tag], check=True, capture_output=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_ready(url: str, proc: subprocess.Popen, log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"olah exited with {proc.returncode}: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"olah not ready at {url} after {timeout} s: {log.read_text()[-2000:]}")


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """(endpoint URL, local bench folder, local dataset folder) of a running olah server."""
    root = tmp_path_factory.mktemp("hub")
    bench, dataset = build_hub_folders(root / "built")
    mirrors = root / "mirrors"
    _git_repo(mirrors / "datasets" / "jiezi" / "bench", bench)
    _git_repo(mirrors / "datasets" / "jiezi" / "dataset", dataset)
    _git_repo(mirrors / "spaces" / "jiezi" / "acce", REPO / "metrics" / "acce", tag=f"v{evaluate.__version__}")
    port = _free_port()
    (root / "olah.toml").write_text(textwrap.dedent(f"""\
        [basic]
        host = "127.0.0.1"
        port = {port}
        mirrors-path = ["{mirrors}"]
        repos-path = "{root / 'olah-cache'}"

        [accessibility]
        offline = true
        """), "utf-8")
    log = root / "olah.log"
    with log.open("w") as out:
        proc = subprocess.Popen([str(OLAH), "-c", str(root / "olah.toml")], cwd=root, stdout=out,
                                stderr=subprocess.STDOUT)
    endpoint = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(f"{endpoint}/api/datasets/jiezi/bench/revision/main", proc, log)
        yield endpoint, bench, dataset
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def run_client(code: str, endpoint: str, tmp_path: Path, timeout: int = 600) -> dict:
    """Run ``code`` in a fresh Python with HF_ENDPOINT at the server; returns its last stdout line as JSON."""
    env = {**os.environ, "HF_ENDPOINT": endpoint, "HF_HUB_OFFLINE": "0", "HF_DATASETS_OFFLINE": "0",
           "TRANSFORMERS_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf-home"), "HF_HUB_DISABLE_TELEMETRY": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.server
@pytest.mark.subprocess
def test_load_dataset_and_the_space_read_repo_ids(hub, tmp_path):
    endpoint, bench, dataset = hub
    out = run_client("""
        import json
        from datasets import load_dataset
        from huggingface_hub import HfApi
        from space.data import Resources, SpaceConfig

        l4 = load_dataset("jiezi/bench", "L4", split="test")
        info = HfApi().dataset_info("jiezi/bench", revision="main")
        space = Resources(SpaceConfig(bench="jiezi/bench", dataset="jiezi/dataset", board="board"))
        print(json.dumps({
            "l4_ids": sorted(l4["id"]), "l4_levels": sorted(set(l4["level"])),
            "files": sorted(s.rfilename for s in info.siblings), "sha": info.sha,
            "space_bench": sorted(space.bench("L1", "unseen_characters")["id"]),
            "space_gallery": len(space.gallery()), "space_dataset": len(space.dataset("all", "train")),
            "space_status": space.status(),
        }, ensure_ascii=False))
    """, endpoint, tmp_path)
    # the same rows as the folder the repo was made from
    assert out["l4_ids"] == sorted(load_hub_layout(bench, "L4", "test")["id"])
    assert "README.md" in out["files"] and any(f.startswith("L4/test-") for f in out["files"])
    assert len(out["sha"]) == 40
    assert out["space_bench"] == sorted(load_hub_layout(bench, "L1", "unseen_characters")["id"]) != []
    assert out["space_gallery"] == len(load_hub_layout(dataset, "records", "train")) > 0
    assert out["space_dataset"] == len(load_hub_layout(dataset, "all", "train")) > 0
    assert "`jiezi/bench`" in out["space_status"] and "not available" not in out["space_status"]


@pytest.mark.server
@pytest.mark.subprocess
def test_evaluate_load_the_metric_space_by_repo_id(hub, tmp_path):
    endpoint, _, _ = hub
    out = run_client("""
        import json
        import evaluate

        acce = evaluate.load("jiezi/acce")
        r = acce.compute(predictions=["江", "篆書", "河"], references=[{"character": "江"}, "篆书", {"character": "江"}],
                         subtasks=["CHAR", "SCRC", "CHAR"], settings={"bertscore": False, "progress": False},
                         judge=False)
        print(json.dumps({"module": type(acce).__module__, "CHAR": r["CHAR"], "SCRC": r["SCRC"]}))
    """, endpoint, tmp_path)
    # evaluate downloaded the Space (module named after the repo id), not the local folder
    assert out["module"].startswith("evaluate_modules.metrics.jiezi--acce.")
    assert (out["CHAR"], out["SCRC"]) == (50.0, 100.0)


@pytest.mark.server
@pytest.mark.subprocess
@pytest.mark.slow
def test_jiezi_eval_on_the_bench_repo_id(hub, tmp_path):
    endpoint, bench, _ = hub
    env = {**os.environ, "HF_ENDPOINT": endpoint, "HF_HUB_OFFLINE": "0", "HF_DATASETS_OFFLINE": "0",
           "HF_HOME": str(tmp_path / "hf-home"),
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)}
    out = tmp_path / "eval"
    cmd = [str(JIEZI), "eval", "--model", "retrieval", "--bench", "jiezi/bench", "--config", "L1",
           "--output", str(out), "--no-bertscore", "--no-progress", "--cache-dir", str(tmp_path / "emb")]
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    predictions = [json.loads(line) for line in (out / "predictions.jsonl").read_text("utf-8").splitlines() if line]
    expected = load_hub_layout(bench, "L1", "test")
    assert sorted(p["id"] for p in predictions) == sorted(expected["id"])
    results = json.loads((out / "results.json").read_text("utf-8"))
    # the retrieval gallery (jiezi/dataset, guessed from the repo id) came from the server too
    assert results["scores"]["CHAR"] > 0, results
