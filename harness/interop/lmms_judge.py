"""The EVOI judge inside lmms-eval: our rubric prompts sent through ``lmms_eval.llm_judge``
(issue 24), so a user who runs the JieZi tasks in lmms-eval configures the judge the
lmms-eval way and the answers are judged by the same prompts, parser and cache as
``jiezi eval --judge``.

``lmms_eval.llm_judge.get_server(server_name, ServerConfig(model_name, temperature=0,
judge_type="score", score_range=(0, 4)))`` makes the provider (``openai``, ``azure``,
``async_openai``, ``bedrock``, ``local`` ...); each FAC / SCE prompt of
:func:`metrics.acce.judge.build_messages` goes out as one ``Request(messages=...)`` and the
reply is parsed by :func:`metrics.acce.judge.parse_score` (one integer 0-4, x25).

The task hooks (``harness/interop/lmms_eval_tasks/jiezi_bench/utils.py``) use it when
``$JIEZI_JUDGE_MODEL`` is set: ``$JIEZI_LMMS_JUDGE_SERVER`` names the provider (default
``openai``); lmms-eval's OpenAI provider reads ``$OPENAI_API_URL`` and ``$OPENAI_API_KEY``,
and ``$JIEZI_JUDGE_BASE_URL`` / ``$JIEZI_JUDGE_API_KEY`` stand in for them when given.
"""

from __future__ import annotations

import os

from metrics.acce.judge import ENV_API_KEY, ENV_BASE_URL, ENV_MODEL, Judge, JudgeTransportError

ENV_SERVER = "JIEZI_LMMS_JUDGE_SERVER"
SCORE_RANGE = (0, 4)


class LmmsEvalJudge(Judge):
    """A :class:`metrics.acce.judge.Judge` whose calls go through ``lmms_eval.llm_judge``.

    ``server_name``: an ``lmms_eval.llm_judge`` provider name; ``model``: the judge model;
    ``base_url`` / ``api_key``: for the OpenAI-style providers, which read
    ``OPENAI_API_URL`` / ``OPENAI_API_KEY`` when they are built (set only for that moment);
    ``max_tokens``, ``timeout`` (s), ``num_retries``, ``retry_delay`` (s): lmms-eval's
    ``ServerConfig``. The cache key is the model name, so a verdict cached by
    ``jiezi eval --judge`` on the same model and prompts is reused. Raises ``ImportError``
    without lmms-eval and ``ValueError`` when the provider reports it is not configured.
    """

    backend = "lmms-eval llm_judge"
    concurrency = 4

    def __init__(self, model: str, *, server_name: str = "openai", base_url: str | None = None,
                 api_key: str | None = None, max_tokens: int = 256, timeout: int = 60, num_retries: int = 3,
                 retry_delay: float = 1.0, **kwargs):
        from lmms_eval.llm_judge import ServerConfig, get_server

        super().__init__(model, **kwargs)
        self.server_name = server_name
        self.config = ServerConfig(model_name=model, temperature=0, max_tokens=max_tokens, timeout=timeout,
                                   num_retries=num_retries, retry_delay=retry_delay, judge_type="score",
                                   score_range=SCORE_RANGE)
        overrides = {"OPENAI_API_URL": base_url, "OPENAI_API_KEY": api_key or ("no-key" if base_url else None)}
        saved = {k: os.environ.get(k) for k in overrides}
        try:
            for key, value in overrides.items():
                if value:
                    os.environ[key] = value
            self.server = get_server(server_name, self.config)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        if not self.server.is_available():
            raise ValueError(f"lmms_eval.llm_judge provider {server_name!r} is not configured (for openai: "
                             "OPENAI_API_URL and OPENAI_API_KEY, or JIEZI_JUDGE_BASE_URL)")

    def describe(self) -> dict:
        """Judge settings recorded with the scores."""
        return {**super().describe(), "via": f"lmms_eval.llm_judge.get_server({self.server_name!r})",
                "judge_type": self.config.judge_type, "score_range": list(SCORE_RANGE)}

    def _complete(self, messages: list[dict]) -> str:
        from lmms_eval.llm_judge import Request

        try:
            response = self.server.evaluate(Request(messages=[dict(m) for m in messages], config=self.config))
        except Exception as exc:  # noqa: BLE001 - the provider raises its client's errors after its retries
            raise JudgeTransportError(f"{self.server_name} judge {self.model_id}: {type(exc).__name__}: {exc}") from exc
        if not getattr(response, "success", True):
            raise JudgeTransportError(f"{self.server_name} judge {self.model_id}: {response.error_message}")
        return response.content


def judge_from_env(**kwargs) -> LmmsEvalJudge | None:
    """The lmms-eval-side judge of ``$JIEZI_JUDGE_MODEL`` (provider ``$JIEZI_LMMS_JUDGE_SERVER``,
    default openai; ``$JIEZI_JUDGE_BASE_URL`` / ``$JIEZI_JUDGE_API_KEY`` when set), or None
    when no judge model is named (EVOI then is not computed)."""
    model = os.environ.get(ENV_MODEL)
    if not model:
        return None
    return LmmsEvalJudge(model, server_name=os.environ.get(ENV_SERVER) or "openai",
                         base_url=os.environ.get(ENV_BASE_URL), api_key=os.environ.get(ENV_API_KEY), **kwargs)
