"""lmms-eval end to end on the shipped task folder (harness/interop/lmms_eval_tasks/jiezi_bench).

``python -m lmms_eval`` (0.7.3, the real CLI) runs the whole ``jiezi_bench`` group with its own
``qwen2_vl`` model class on a tiny random Qwen2-VL saved to disk (tests/tiny_vlm.py), a few docs
per level (``--limit``) of the small bench of tests/harness_fixtures.py. The task folder is the
shipped one, written for that local bench by ``jiezi lmms-tasks --bench``; its hooks score through
the project's metric core. A random model's answers score near zero; what is checked is that
lmms-eval loads every level, generates, scores every metric of every level and prints its own
results table, and that its per-metric numbers are the metric core's on the same answers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from harness_fixtures import build_hub_folders
from tiny_vlm import build_tiny_vlm

from metrics.acce import labels

REPO = Path(__file__).resolve().parent.parent
JIEZI = Path(sys.executable).parent / "jiezi"
LIMIT = 2  # docs per level


@pytest.mark.subprocess
@pytest.mark.slow
def test_lmms_eval_runs_the_task_folder_on_a_tiny_qwen2_vl(tmp_path):
    bench, _ = build_hub_folders(tmp_path / "built")
    model = build_tiny_vlm("qwen2_vl", tmp_path / "tiny-qwen2-vl")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "HF_HOME": str(tmp_path / "hf-home"), "JIEZI_BERTSCORE_MODEL": "offline-minilm",
           "TOKENIZERS_PARALLELISM": "false",
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)}
    for key in ("JIEZI_JUDGE_BASE_URL", "JIEZI_JUDGE_MODEL"):
        env.pop(key, None)
    tasks = tmp_path / "tasks"
    subprocess.run([str(JIEZI), "lmms-tasks", "--bench", str(bench), "--output", str(tasks)], env=env,
                   check=True, capture_output=True, timeout=300)
    out = tmp_path / "lmms-out"
    cmd = [sys.executable, "-m", "lmms_eval", "--model", "qwen2_vl",
           "--model_args", f"pretrained={model},device=cpu,device_map=cpu,max_pixels=50176",
           "--tasks", "jiezi_bench", "--include_path", str(tasks / "jiezi_bench"), "--limit", str(LIMIT),
           "--batch_size", "1", "--gen_kwargs", "max_new_tokens=24", "--log_samples", "--output_path", str(out)]
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    log = done.stdout + done.stderr
    assert done.returncode == 0 and "Error during evaluation" not in log, log[-5000:]
    print(done.stdout)  # lmms-eval's own results table

    # lmms-eval reports, per level, the metrics of the docs it ran (the first LIMIT rows of the
    # level's test split): each in its printed table and in its results file, on 0-100
    from hub.read import load_hub_layout

    table = [line.replace(" ", "") for line in done.stdout.splitlines() if line.startswith("|")]
    results_files = sorted(out.rglob("*results.json"))
    assert results_files, sorted(str(p) for p in out.rglob("*"))
    report = json.loads(results_files[-1].read_text("utf-8"))
    for level in labels.LEVELS:
        task = f"jiezi_bench_{level.lower()}"
        docs = load_hub_layout(bench, level, "test").select(range(LIMIT))
        expected = {m for row in docs for m in row["metrics"] if labels.METRIC_LEVEL[m] == level}
        # (the hooks also hand lmms-eval the payloads of the row's other-level metrics, e.g. COME of
        # a component question in L2; lmms-eval leaves those out of its table and writes [])
        reported = {key.split(",")[0] for key, value in report["results"][task].items()
                    if key.endswith(",none") and "_stderr" not in key and value != []}
        assert reported == expected, (task, reported, expected)
        for metric in expected:
            assert any(row.startswith(f"|-{task}|") and f"|{metric}|" in row for row in table), (task, metric, table)
            value = report["results"][task][f"{metric},none"]
            assert isinstance(value, float) and 0.0 <= value <= 100.0, (task, metric, value)
        assert report["n-samples"][task]["effective"] == LIMIT, report["n-samples"]

    # the CHAR value lmms-eval reports is the metric core's on the answers lmms-eval logged
    samples = sorted(out.rglob("*samples_jiezi_bench_l1.jsonl"))
    assert samples, sorted(str(p) for p in out.rglob("*"))
    rows = [json.loads(line) for line in samples[-1].read_text("utf-8").splitlines() if line]
    payloads = [r["CHAR"] for r in rows if "CHAR" in r]
    assert len(payloads) >= 1
    from metrics.acce.core import score

    expected = score([p["prediction"] for p in payloads], [p["reference"] for p in payloads],
                     [["CHAR"]] * len(payloads), settings={"bertscore": False, "progress": False}, judge=False)
    assert report["results"]["jiezi_bench_l1"]["CHAR,none"] == pytest.approx(expected["CHAR"])
