"""The lmms-eval task folder of JieZi-Bench (``harness/interop/lmms_eval_tasks/jiezi_bench``).

The folder's ``dataset_path`` names the published bench (``jiezi/bench``); lmms-eval's
YAML has no variables, so :func:`write_task_folder` writes a copy whose tasks read
another bench: another repo id, or a local Hub-layout folder, which the copy names as
explicit parquet files per level (``dataset_path: parquet`` + ``dataset_kwargs.data_files``;
see :func:`harness.bench.load_hub_layout` for why a folder path alone is not safe with
datasets' cache). Use it with::

    lmms-eval --model ... --tasks jiezi_bench --include_path DIR/jiezi_bench

(the group ``jiezi_bench`` or one level: ``jiezi_bench_l1`` .. ``jiezi_bench_l4``; the paper's
protocol, one eight-field JSON request per image: ``jiezi_bench_paper``).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from hub.read import local_data_files

TASK_DIR = Path(__file__).resolve().parent / "lmms_eval_tasks" / "jiezi_bench"
TEMPLATE = "_default_template_yaml"
TASK_FILES = (TEMPLATE, "jiezi_bench.yaml", "jiezi_bench_l1.yaml", "jiezi_bench_l2.yaml", "jiezi_bench_l3.yaml",
              "jiezi_bench_l4.yaml", "jiezi_bench_paper.yaml", "utils.py")
# task file -> (config, split) it reads; jiezi_bench_paper is the paper's protocol (config images)
TASK_CONFIGS = {f"jiezi_bench_{lv}.yaml": (lv.upper(), "test") for lv in ("l1", "l2", "l3", "l4")}
TASK_CONFIGS["jiezi_bench_paper.yaml"] = ("images", "test")


def write_task_folder(output: str | Path, bench: str | None = None) -> Path:
    """Copy the task folder to ``output/jiezi_bench``; with ``bench``, its tasks read that
    bench (a local folder is written as an absolute path). Returns the new folder. Raises
    ``FileNotFoundError`` when a task file is missing from the installation and
    ``FileExistsError`` when the target exists and is not a JieZi task folder."""
    dest = Path(output) / "jiezi_bench"
    if dest.exists() and not (dest / TEMPLATE).exists():
        raise FileExistsError(f"{dest} exists and is not a JieZi-Bench task folder; choose another --output")
    dest.mkdir(parents=True, exist_ok=True)
    for name in TASK_FILES:
        src = TASK_DIR / name
        if not src.exists():
            raise FileNotFoundError(f"{src}: missing from this installation of jiezi")
        shutil.copyfile(src, dest / name)
    if bench:
        local = Path(bench)
        value = "parquet" if local.is_dir() else str(bench)
        text = (dest / TEMPLATE).read_text("utf-8")
        text = re.sub(r"^dataset_path: .*$", f"dataset_path: {value}", text, count=1, flags=re.M)
        (dest / TEMPLATE).write_text(text, "utf-8")
        if local.is_dir():
            for name, (config, split) in TASK_CONFIGS.items():
                path = dest / name
                try:
                    files = local_data_files(local, config, split)
                except FileNotFoundError:
                    if config != "images":
                        raise
                    path.unlink()  # a bench published before the images config: no paper task
                    continue
                block = "dataset_kwargs:\n  data_files:\n    test:\n" + "".join(f"      - {f}\n" for f in files)
                path.write_text(re.sub(r"^dataset_name: .*\n", block, path.read_text("utf-8"), count=1, flags=re.M),
                                "utf-8")
    return dest
