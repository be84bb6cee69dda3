"""The lmms-eval task folder of JieZi-Bench.

lmms-eval is not a dependency of this project (it pulls CUDA torch, torchvision, video and
audio stacks), so these tests check the folder against the task-config fields of
lmms-eval's ``TaskConfig`` (lmms_eval/api/task.py, v0.7.3) and run the hooks in
``utils.py`` on real bench rows; the harness report records a run of lmms-eval's own
loader on the same folder.
"""

from __future__ import annotations

import importlib.util
import json

import pytest
import yaml

from harness.bench import load_bench
from harness.interop.lmms import TASK_DIR, write_task_folder
from harness_fixtures import build_hub_folders
from metrics.acce import labels

# TaskConfig fields of lmms-eval 0.7.3 (lmms_eval/api/task.py) plus the loader's own keys.
TASK_CONFIG_FIELDS = {
    "task", "task_alias", "tag", "group", "group_alias", "dataset_path", "dataset_name", "dataset_kwargs",
    "training_split", "validation_split", "test_split", "fewshot_split", "full_docs", "process_results_use_image",
    "process_docs", "doc_to_visual", "doc_to_text", "doc_to_target", "doc_to_choice", "doc_to_messages",
    "process_results", "use_prompt", "description", "target_delimiter", "fewshot_delimiter", "fewshot_config",
    "num_fewshot", "metric_list", "output_type", "generation_kwargs", "repeats", "filter_list",
    "should_decontaminate", "doc_to_decontamination_query", "cluster_key", "score_key", "metadata",
    "lmms_eval_specific_kwargs", "model_specific_generation_kwargs", "model_specific_target_kwargs",
    "reasoning_tags", "auto_strip_thinking", "include",
}
GROUP_FIELDS = {"group", "group_alias", "task", "aggregate_metric_list", "metadata"}


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_constructor("!function", lambda loader, node: ("!function", loader.construct_scalar(node)))


def _load(path):
    return yaml.load(path.read_text("utf-8"), Loader=_Loader)


def _utils():
    spec = importlib.util.spec_from_file_location("jiezi_lmms_utils", TASK_DIR / "utils.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_task_yaml_uses_only_lmms_eval_fields_and_existing_hooks():
    utils = _utils()
    template = _load(TASK_DIR / "_default_template_yaml")
    assert set(template) <= TASK_CONFIG_FIELDS
    assert template["output_type"] == "generate_until" and template["test_split"] == "test"
    assert template["generation_kwargs"]["do_sample"] is False
    levels = {}
    for level in labels.LEVELS:
        cfg = _load(TASK_DIR / f"jiezi_bench_{level.lower()}.yaml")
        assert set(cfg) <= TASK_CONFIG_FIELDS
        assert cfg["dataset_name"] == level and cfg["include"] == "_default_template_yaml"
        levels[level] = [m["metric"] for m in cfg["metric_list"]]
        for m in cfg["metric_list"]:
            kind, name = m["aggregation"]
            assert kind == "!function" and callable(getattr(utils, name.split(".", 1)[1]))
            assert m["higher_is_better"] is True
    for key in ("doc_to_visual", "doc_to_text", "doc_to_messages", "process_results"):
        assert callable(getattr(utils, template[key][1].split(".", 1)[1]))
    # every ACCE metric is reported by exactly the task of its level
    assert sorted(m for ms in levels.values() for m in ms) == sorted(labels.METRICS)
    for level, metrics in levels.items():
        assert all(labels.METRIC_LEVEL[m] == level for m in metrics)
    group = _load(TASK_DIR / "jiezi_bench.yaml")
    assert set(group) <= GROUP_FIELDS and group["group"] == "jiezi_bench"
    assert group["task"] == [f"jiezi_bench_{lv.lower()}" for lv in labels.LEVELS]


def test_hooks_build_prompts_and_score_through_the_metric_core(tmp_path):
    bench, _ = build_hub_folders(tmp_path)
    utils = _utils()
    rows = load_bench(bench, "L2", "test").to_list()
    from PIL import Image
    import io

    doc = dict(rows[0])
    doc["image"] = Image.open(io.BytesIO(doc["image"]["bytes"]))
    assert utils.jiezi_doc_to_visual(doc)[0].mode == "RGB"
    text = utils.jiezi_doc_to_text(doc, {"pre_prompt": "", "post_prompt": ""})
    assert text.startswith(doc["question"]) and "结构" in text
    msgs = utils.jiezi_doc_to_messages(doc, {})
    assert msgs[0]["role"] == "system" and msgs[1]["content"][0]["type"] == "image"
    # a perfect answer to each row (its reference text) scores 100 on every computed metric
    collected: dict[str, list] = {}
    for row in rows:
        for metric, payload in utils.jiezi_process_results(row, [row["answer"]]).items():
            collected.setdefault(metric, []).append(payload)
    assert set(collected) == {"STRC", "COMR", "COMF", "COMI", "COME", "FORC"}
    for metric in ("STRC", "COMR", "COMF", "FORC"):
        assert getattr(utils, f"jiezi_aggregate_{metric}")(collected[metric]) == pytest.approx(100.0)
    wrong = [{**p, "prediction": "不知道"} for p in collected["STRC"]]
    assert utils.jiezi_aggregate_STRC(wrong) == 0.0


def test_task_folder_copy_points_at_a_local_bench(tmp_path):
    bench, _ = build_hub_folders(tmp_path / "hub")
    dest = write_task_folder(tmp_path / "tasks", str(bench))
    cfg = _load(dest / "_default_template_yaml")
    assert cfg["dataset_path"] == "parquet"
    level = _load(dest / "jiezi_bench_l3.yaml")
    assert "dataset_name" not in level and set(level) <= TASK_CONFIG_FIELDS
    # what lmms-eval does with it: datasets.load_dataset(dataset_path, **dataset_kwargs)
    import datasets

    ds = datasets.load_dataset(cfg["dataset_path"], split=cfg["test_split"], **level["dataset_kwargs"])
    assert set(ds["subtask"]) == {"ORIM"} and len(ds) == 13
    assert write_task_folder(tmp_path / "hub-id", "someone/jiezi-bench").joinpath("jiezi_bench_l3.yaml").exists()
    assert _load(tmp_path / "hub-id" / "jiezi_bench" / "_default_template_yaml")["dataset_path"] == "someone/jiezi-bench"
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "jiezi_bench").mkdir()
    with pytest.raises(FileExistsError):
        write_task_folder(tmp_path / "other")
    assert json.loads(json.dumps(_load(TASK_DIR / "_default_template_yaml")["metadata"]))["version"] == 1.0


def _with_images_config(bench):
    """The fixture bench plus the ``images`` config (one row per image, eight-field reference)."""
    from harness.eval.protocol_paper import load_paper_images
    from harness_fixtures import _readme

    ds, _ = load_paper_images(bench)
    (bench / "images").mkdir()
    ds.to_parquet(str(bench / "images" / "test-00000-of-00001.parquet"))
    configs = {c: ["test", "unseen_characters", "unseen_glyphs"] for c in ("L1", "L2", "L3", "L4", "all")}
    _readme(bench, {**configs, "images": ["test"]}, "all")
    return ds


def test_paper_task_yaml_hooks_and_scores(tmp_path):
    utils = _utils()
    cfg = _load(TASK_DIR / "jiezi_bench_paper.yaml")
    assert set(cfg) <= TASK_CONFIG_FIELDS and cfg["dataset_name"] == "images"
    assert cfg["metadata"]["protocol"] == "paper" and cfg["metadata"]["scoring"] == "reference"
    for m in cfg["metric_list"]:
        assert callable(getattr(utils, m["aggregation"][1].split(".", 1)[1]))
    for key in ("doc_to_text", "doc_to_messages", "process_results"):
        assert callable(getattr(utils, cfg[key][1].split(".", 1)[1]))
    assert "jiezi_bench_paper" not in _load(TASK_DIR / "jiezi_bench.yaml")["task"]  # never mixed into the group

    bench, _ = build_hub_folders(tmp_path / "hub")
    ds = _with_images_config(bench)
    docs = list(ds)
    assert "现代字典字头" in utils.jiezi_paper_doc_to_text(docs[0], {})
    assert utils.jiezi_paper_doc_to_messages(docs[0], {})[1]["content"][0]["type"] == "image"
    # every reply is its own reference except one without JSON: 100 x (n-1)/n on CHAR
    collected: dict[str, list] = {}
    for k, doc in enumerate(docs):
        reply = "不知道" if k == 0 else doc["reference"]
        for metric, payload in utils.jiezi_paper_process_results(doc, [reply]).items():
            collected.setdefault(metric, []).append(payload)
    n = len(docs)
    assert utils.jiezi_paper_aggregate_CHAR(collected["CHAR"]) == pytest.approx(100.0 * (n - 1) / n)
    assert utils.jiezi_paper_aggregate_STRC(collected["STRC"]) == pytest.approx(100.0 * (n - 1) / n)

    dest = write_task_folder(tmp_path / "tasks", str(bench))
    paper = _load(dest / "jiezi_bench_paper.yaml")
    import datasets

    got = datasets.load_dataset("parquet", split="test", **paper["dataset_kwargs"])
    assert len(got) == n and "reference" in got.column_names
    # a bench without the images config gets no paper task
    plain, _ = build_hub_folders(tmp_path / "plain")
    assert not write_task_folder(tmp_path / "tasks2", str(plain)).joinpath("jiezi_bench_paper.yaml").exists()
