"""The EVOI judge: an LLM scores an evolution narrative 0-4 on two axes, FAC and SCE.

ACCE.md section 2: one call per answer and axis with the reference evolution text and the
prediction in the prompt; an integer 0-4 comes back and is scaled by 25. FAC (fact
alignment) checks the evolution statements against the reference only; SCE (scholarly
expression) judges terminology, rigour and dictionary style. The rubric prompts below are
this project's own wording of those rules (``PROMPT_VERSION`` names them).

Backends: ``OpenAIJudge`` (any OpenAI-compatible ``/chat/completions`` server through the
``openai`` package's client; bounded concurrency; its retries with backoff on 408, 409, 429,
5xx, timeouts and connection errors; malformed bodies asked again) and
``TransformersJudge`` (a local causal LM, greedy decoding; GGUF files through
``gguf_file=``). Both decode deterministically (temperature 0 / greedy).

Replies are parsed strictly by ``parse_score``; a reply without exactly one score in 0..4 is
a judge failure, counted and reported, never a silent 0 and never clamped. Every reply is
stored, raw, in a persistent SQLite cache keyed by (judge model, prompt version, axis,
reference, prediction): a rerun costs nothing and an interrupted run resumes where it
stopped. Transport failures (retries exhausted) are not cached, so a rerun retries them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

PROMPT_VERSION = "jiezi-evoi-judge-v1"
AXES = ("FAC", "SCE")
AXIS_METRIC = {"FAC": "EVOI_FAC", "SCE": "EVOI_SCE"}
SCALE = 25  # 0-4 -> 0-100

ENV_BASE_URL = "JIEZI_JUDGE_BASE_URL"
ENV_MODEL = "JIEZI_JUDGE_MODEL"
ENV_API_KEY = "JIEZI_JUDGE_API_KEY"
ENV_CACHE = "JIEZI_JUDGE_CACHE"
ENV_CONCURRENCY = "JIEZI_JUDGE_CONCURRENCY"

_SYSTEM = "你是一位严格、公正的古文字学评审专家。请严格按照评分规则打分，并按要求的格式输出。"

_FAC = """本次只评价一个维度：事实一致性（FAC）。

请只看【模型回答】中描述该字“历代字形演变”的语句，判断它们与【参考答案】所述的演变事实是否一致。回答里关于字头、结构、本义等其他内容不计分。判断只以参考答案为准：不要用你自己的知识去补充、纠正或质疑参考答案。

核对时关注这些要点：
1. 核心构形：字形由哪些部分构成、各象何物；
2. 关键构件之间的关系；
3. 经过的历史阶段（如甲骨文、金文、篆书、隶书、楷书）；
4. 变化的方向与先后（如讹变、简化、繁化、分化）。

分数（只能是0、1、2、3、4中的一个整数）：
4分：与参考答案一致，几乎没有事实错误；
3分：大体一致，只有细小出入；
2分：有几处明确对应，但也有明显的错误；
1分：只有表面上的相似；
0分：与参考答案矛盾，或回答为空，或讲的是另一个字。

附加规则：
- 核心构形说错或演变方向说反的，最多2分；
- 只有泛泛而谈、没有可核对事实的，最多2分；
- 有多个关键要点与参考答案相符的，不应打0分或1分；
- 不要因为回答长或读来通顺而加分，不要习惯性地给高分。

【参考答案】
{reference}

【模型回答】
{prediction}

请只输出一行：分数：N（N为0到4的整数），不要输出其他内容。"""

_SCE = """本次只评价一个维度：学术表达（SCE）。

请只看【模型回答】中描述该字“历代字形演变”的语句，评价其表达是否专业：术语是否准确规范，论述是否严谨，文体是否接近字典、字书的释文，而不是外行的解说或空洞的套话。【参考答案】用作内容与文体的参照。

分数（只能是0、1、2、3、4中的一个整数）：
4分：成熟的字典式表述，术语规范，行文简洁严谨；
3分：表述专业，只有个别地方略显松散；
2分：能读懂，但表述笼统、泛化，或有堆砌；
1分：松散随意，口语化、外行式的说法；
0分：空白，或只有口号式的空话。

附加规则：
- 重复堆砌、没有提供新信息的，最多2分；
- 夹杂外行说法的，最多2分；
- 演变叙述本身错误的，最多2分；
- 术语混乱，或用术语堆砌掩盖空洞内容的，最多1分；
- 不要默认给3分，也不要因为篇幅长或行文流畅而给高分。

【参考答案】
{reference}

【模型回答】
{prediction}

请只输出一行：分数：N（N为0到4的整数），不要输出其他内容。"""

_TEMPLATES = {"FAC": _FAC, "SCE": _SCE}


def build_messages(axis: str, reference: str, prediction: str) -> list[dict]:
    """Chat messages for one judgement (``axis`` is "FAC" or "SCE")."""
    if axis not in _TEMPLATES:
        raise ValueError(f"unknown judge axis {axis!r}; expected one of {AXES}")
    user = _TEMPLATES[axis].format(reference=reference.strip() or "（空）", prediction=prediction.strip() or "（空）")
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


# ----------------------------------------------------------------------------- parsing
_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9, "ten": 10, "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5,
          "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_NUM = r"(?P<n>\d+(?![.,]\d)|zero|one|two|three|four|five|six|seven|eight|nine|ten|[零〇一二两三四五六七八九十])"
_LABELLED = re.compile(
    rf"(?:分数|得分|评分|打分|最终分数|score|rating|grade)\s*(?:为|是|[:：=])?\s*[*_`\"'「(\[]*\s*{_NUM}(?![a-z])"
    rf"(?:\s*[*_`\"')\]」]*\s*(?:/|／|out of|满分)\s*(?P<d>\d+))?",
    re.I,
)
_FEN = re.compile(rf"(?<![\d.]){_NUM}\s*分(?!之|钟|析|类|别|成|开|布|数|子|配|解|离)", re.I)
_BARE = re.compile(rf"^[\s*_`\"'(\[「]*{_NUM}\s*(?:/\s*(?P<d>\d+))?[\s*_`\"')\]」.。!！]*$", re.I)
_FRACTION = re.compile(r"(?<![\d.])(?P<n>\d+)\s*/\s*(?P<d>\d+)(?![\d.])")
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)


# Axis names a reply may label its scores with (the prompts' own words and the codes).
AXIS_NAMES: dict[str, str] = {
    "FAC": r"事实对齐|事实一致性?|事实准确性?|fact(?:ual)?[ _-]?(?:alignment|accuracy)|\bFAC\b",
    "SCE": r"学术表达|学术规范性?|表达规范性?|scholarly[ _-]?expression|\bSCE\b",
}
_AXIS_SCORE = {axis: re.compile(rf"(?:{names})\s*[)）]?\s*(?:得分|分数|评分|score)?\s*(?:为|是|[:：=])?\s*"
                                rf"[*_`\"'「(\[]*\s*{_NUM}(?![a-z\d.])(?:\s*(?:/|／|out of)\s*(?P<d>\d+))?", re.I)
               for axis, names in AXIS_NAMES.items()}
_JSON_OBJECT = re.compile(r"\{[^{}]*\}")
_SCORE_KEYS = ("score", "分数", "得分", "评分", "rating")


def _json_score(text: str, axis: str | None) -> tuple[list[tuple[int, int | None]], str | None] | None:
    """Scores in a JSON object reply (``{"score": 3}``, ``{"score": "3"}``, ``{"FAC": 3, "SCE": 2}``,
    inside ```json fences or not): ``(values, error)``, or None when the reply holds no such object."""
    for m in _JSON_OBJECT.finditer(text):
        try:
            obj = json.loads(m.group())
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        keys = {str(k).strip().casefold(): v for k, v in obj.items()}
        by_axis = {a: v for a in AXES for k, v in keys.items() if re.fullmatch(AXIS_NAMES[a], k, re.I)}
        if by_axis and axis is None:
            if len({str(v) for v in by_axis.values()}) > 1:
                return [], f"ambiguous reply: scores for several axes {sorted(by_axis)} and no axis asked"
            values = list(by_axis.values())
        elif by_axis:
            if axis not in by_axis:
                return [], f"the reply scores {sorted(by_axis)} but not {axis}, the axis asked"
            values = [by_axis[axis]]
        else:
            values = [keys[k] for k in _SCORE_KEYS if k in keys]
        if not values:
            continue
        out = []
        for v in values:
            if isinstance(v, bool) or not (isinstance(v, int) or (isinstance(v, str) and v.strip().isdigit())):
                return [], f"score {v!r} in the JSON reply is not an integer"
            out.append((int(v), None))
        return out, None
    return None


def _axis_labelled(text: str, axis: str | None) -> tuple[list[re.Match], str | None]:
    """Scores labelled with an axis name (``事实对齐：3分``, ``SCE: 2``): the asked axis's
    matches, or an error when the reply scores only the other axis, or several axes when
    none was asked with different values."""
    found = {a: list(rx.finditer(text)) for a, rx in _AXIS_SCORE.items()}
    found = {a: ms for a, ms in found.items() if ms}
    if not found:
        return [], None
    if axis is not None:
        if axis not in found:
            return [], f"the reply scores {sorted(found)} but not {axis}, the axis asked"
        return found[axis], None
    if len(found) > 1:
        return [], f"ambiguous reply: scores for several axes {sorted(found)} and no axis asked"
    return next(iter(found.values())), None


def parse_score(reply: str | None, axis: str | None = None) -> tuple[int | None, str | None]:
    """Read one integer score 0-4 from a judge reply: ``(score, None)`` or ``(None, reason)``.

    ``axis``: the axis asked ("FAC" / "SCE"); a reply that labels scores with axis names
    (``事实对齐：3分\n学术表达：2``) gives the asked axis's score, and is a failure when it
    scores only the other axis (or, with no ``axis``, several axes).
    Rules, in order: a JSON object (``{"score": 3}``, ``{"score": "3"}``, ``{"FAC": 3}``);
    axis-labelled scores; a labelled score (``分数：3``, ``Score: 4/4``, ``评分为 2``); else a
    number followed by 分 (``3分``); else a line that is only a number (``3``, ``**3**``); else a
    fraction ``3/4``. English number words (zero..four) and Chinese numerals (零..四) count as
    numbers when they stand exactly where a digit would (``"three"`` -> 3, ``"三分"`` -> 3):
    they are unambiguous there. Failures: an empty reply, no score, several different
    scores, a scale other than 4 (``3/5``), a decimal, a value outside 0..4 (``"5"``).
    ``<think>...</think>`` blocks are ignored.
    """
    if reply is None or not str(reply).strip():
        return None, "empty reply"
    text = _THINK.sub("", str(reply)).strip()
    if not text:
        return None, "empty reply after removing the reasoning block"
    pairs: list[tuple[int, int | None]] = []
    js = _json_score(text, axis)
    if js is not None:
        pairs, error = js
        if error:
            return None, error
    if not pairs:
        found, error = _axis_labelled(text, axis)
        if error:
            return None, error
        found = found or list(_LABELLED.finditer(text)) or list(_FEN.finditer(text))
        if not found:
            found = [m for line in text.splitlines() if (m := _BARE.match(line.strip()))]
        if not found:
            found = list(_FRACTION.finditer(text))
        if not found:
            return None, "no score found in the reply"
        for m in found:
            n = m.group("n").lower()
            d = m.groupdict().get("d")
            pairs.append((int(n) if n.isdigit() else _WORDS[n], int(d) if d is not None else None))
    return _one_value(pairs)


def _one_value(pairs: list[tuple[int, int | None]]) -> tuple[int | None, str | None]:
    values = set()
    for value, d in pairs:
        if d is not None and d != 4:
            return None, f"score {value}/{d} is not on the 0-4 scale"
        values.add(value)
    if len(values) > 1:
        return None, f"ambiguous reply: several scores {sorted(values)}"
    value = values.pop()
    if not 0 <= value <= 4:
        return None, f"score {value} is outside 0-4"
    return value, None


# ------------------------------------------------------------------------------- cache
def default_cache_path() -> Path:
    """``$JIEZI_JUDGE_CACHE``, else ``~/.cache/jiezi/judge_cache.sqlite``."""
    env = os.environ.get(ENV_CACHE)
    return Path(env) if env else Path.home() / ".cache" / "jiezi" / "judge_cache.sqlite"


def cache_key(model_id: str, prompt_version: str, axis: str, reference: str, prediction: str) -> str:
    """SHA-256 of the judgement's identity (judge model, prompt version, axis, texts)."""
    payload = json.dumps([model_id, prompt_version, axis, reference, prediction], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class JudgeCache:
    """Persistent judge replies in SQLite (safe for several processes: WAL, busy timeout).

    One row per judgement key: model, prompt version, axis, score (NULL on a parse
    failure), the parse error, the raw reply and the time it was stored.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False)
        with self._lock, self._conn:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS judgements (key TEXT PRIMARY KEY, model TEXT, prompt_version TEXT,"
                " axis TEXT, score INTEGER, error TEXT, raw TEXT, created REAL)"
            )

    def get(self, key: str) -> tuple[int | None, str | None, str] | None:
        """(score, error, raw) stored for ``key``, or None."""
        with self._lock:
            row = self._conn.execute("SELECT score, error, raw FROM judgements WHERE key = ?", (key,)).fetchone()
        return None if row is None else (row[0], row[1], row[2])

    def put(self, key: str, *, model: str, prompt_version: str, axis: str, score: int | None,
            error: str | None, raw: str) -> None:
        """Store (or replace) one reply; committed at once so an interruption loses nothing."""
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO judgements VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (key, model, prompt_version, axis, score, error, raw, time.time()),
            )

    def __len__(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM judgements").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._conn.close()


# ------------------------------------------------------------------------------ judges
@dataclass(frozen=True)
class JudgeRequest:
    """One judgement: ``axis`` ("FAC" / "SCE"), the reference evolution text, the prediction."""

    axis: str
    reference: str
    prediction: str


@dataclass
class JudgeResult:
    """Outcome of one judgement: ``score`` 0-4 or None; ``error`` says why when None.

    ``raw`` is the judge's reply (None when no reply came back); ``cached`` is True when the
    reply came from the cache; ``transport`` is True for failures to get a reply at all.
    """

    axis: str
    score: int | None
    raw: str | None
    error: str | None
    cached: bool = False
    transport: bool = False


class JudgeTransportError(RuntimeError):
    """No usable reply from the judge backend after the allowed retries."""


class Judge:
    """Base class: cache lookup, parsing and bookkeeping; backends implement ``_complete``.

    ``model_id`` names the judge model in the cache key and in the score settings.
    ``cache``: a path, a ``JudgeCache``, or None for the default path
    (``default_cache_path()``); ``False`` disables caching.
    ``retry_failed``: ask again for cached replies that failed to parse.
    """

    backend = "base"
    concurrency = 1

    def __init__(self, model_id: str, *, cache: str | Path | JudgeCache | None | bool = None,
                 prompt_version: str = PROMPT_VERSION, retry_failed: bool = False):
        self.model_id = model_id
        self.prompt_version = prompt_version
        self.retry_failed = retry_failed
        if cache is False:
            self.cache = None
        elif isinstance(cache, JudgeCache):
            self.cache = cache
        else:
            self.cache = JudgeCache(cache if cache not in (None, True) else default_cache_path())
        self.calls = 0  # replies fetched from the backend in this process
        self._calls_lock = threading.Lock()

    def _complete(self, messages: list[dict]) -> str:
        raise NotImplementedError

    def describe(self) -> dict:
        """Judge settings recorded with the scores."""
        return {"backend": self.backend, "model": self.model_id, "prompt_version": self.prompt_version,
                "temperature": 0, "scale": "integer 0-4, x25",
                "cache": str(self.cache.path) if self.cache else None}

    def judge(self, requests: list[JudgeRequest], *, progress: bool = True) -> list[JudgeResult]:
        """Judge every request (cache first); results in the order of ``requests``.

        Identical requests are asked once. Each new reply is cached as soon as it arrives.
        """
        keys = [cache_key(self.model_id, self.prompt_version, r.axis, r.reference, r.prediction) for r in requests]
        results: dict[str, JudgeResult] = {}
        todo: dict[str, JudgeRequest] = {}
        for key, req in zip(keys, requests):
            if key in results or key in todo:
                continue
            hit = self.cache.get(key) if self.cache else None
            if hit is not None and not (self.retry_failed and hit[0] is None):
                # the stored reply is read again, so a parser fix applies to cached replies too
                score, error = parse_score(hit[2], req.axis) if hit[2] is not None else (hit[0], hit[1])
                results[key] = JudgeResult(req.axis, score, hit[2], error, cached=True)
            else:
                todo[key] = req
        if todo:
            bar = None
            if progress:
                from tqdm.auto import tqdm

                bar = tqdm(total=len(todo), desc=f"judge {self.model_id}", unit="call")
            for key, result in self._run(todo):
                results[key] = result
                if self.cache is not None and result.raw is not None:
                    req = todo[key]
                    self.cache.put(key, model=self.model_id, prompt_version=self.prompt_version, axis=req.axis,
                                   score=result.score, error=result.error, raw=result.raw)
                if bar is not None:
                    bar.update(1)
            if bar is not None:
                bar.close()
        return [results[k] for k in keys]

    def _one(self, req: JudgeRequest) -> JudgeResult:
        try:
            raw = self._complete(build_messages(req.axis, req.reference, req.prediction))
        except JudgeTransportError as exc:
            return JudgeResult(req.axis, None, None, str(exc), transport=True)
        with self._calls_lock:
            self.calls += 1
        score, error = parse_score(raw, req.axis)
        return JudgeResult(req.axis, score, raw, error)

    def _run(self, todo: dict[str, JudgeRequest]):
        if self.concurrency <= 1 or len(todo) == 1:
            for key, req in todo.items():
                yield key, self._one(req)
            return
        pool = ThreadPoolExecutor(max_workers=self.concurrency)
        try:
            futures = {pool.submit(self._one, req): key for key, req in todo.items()}
            for fut in as_completed(futures):
                yield futures[fut], fut.result()
        finally:
            # on an interruption, drop the calls not started; finished ones are cached already
            pool.shutdown(wait=True, cancel_futures=True)


# The settings of the project's one OpenAI-compatible client (``hub.openai_client``), stated
# again here: this folder is published alone as the ``jiezi/acce`` evaluate module and imports
# no project code (tests/test_hub_openai_client.py checks that the two agree).
DEFAULT_TIMEOUT = 120.0  # seconds per attempt
DEFAULT_MAX_RETRIES = 4  # further attempts after a retryable failure


class OpenAIJudge(Judge):
    """Judge through any OpenAI-compatible ``POST {base_url}/chat/completions`` server, with
    the ``openai`` package's client (the same client and settings as the project's
    ``hub.openai_client``).

    ``base_url`` / ``model`` / ``api_key`` default to ``$JIEZI_JUDGE_BASE_URL``,
    ``$JIEZI_JUDGE_MODEL``, ``$JIEZI_JUDGE_API_KEY``. ``concurrency``: parallel requests
    (``$JIEZI_JUDGE_CONCURRENCY``, default 8). ``timeout``: seconds per attempt.
    ``max_retries``: further attempts after a connection error, a timeout or HTTP 408, 409,
    429 or 5xx (the client's exponential back-off with jitter, or the server's
    ``Retry-After`` up to 60 s), and, separately, after a reply whose body is malformed.
    Other 4xx statuses fail at once. Raises ``ValueError`` when no base URL or model is
    configured.
    """

    backend = "openai-compatible"

    def __init__(self, base_url: str | None = None, model: str | None = None, api_key: str | None = None, *,
                 concurrency: int | None = None, timeout: float = DEFAULT_TIMEOUT,
                 max_retries: int = DEFAULT_MAX_RETRIES, max_tokens: int = 256, **kwargs):
        base_url = base_url or os.environ.get(ENV_BASE_URL)
        model = model or os.environ.get(ENV_MODEL)
        if not base_url or not model:
            raise ValueError(f"OpenAIJudge needs a base URL and a model (arguments or ${ENV_BASE_URL} / ${ENV_MODEL})")
        super().__init__(model, **kwargs)
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get(ENV_API_KEY)
        self.concurrency = int(concurrency or os.environ.get(ENV_CONCURRENCY) or 8)
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.max_tokens = int(max_tokens)
        self._client = None
        self._client_lock = threading.Lock()

    def describe(self) -> dict:
        return {**super().describe(), "base_url": self.base_url, "max_tokens": self.max_tokens,
                "concurrency": self.concurrency}

    def _openai(self):
        with self._client_lock:
            if self._client is None:
                from openai import OpenAI

                # a local server needs no key; the client insists on one and sends it as a bearer token
                self._client = OpenAI(base_url=self.base_url, api_key=self.api_key or "no-key", timeout=self.timeout,
                                      max_retries=self.max_retries)
        return self._client

    def _complete(self, messages: list[dict]) -> str:
        import openai

        url = f"{self.base_url}/chat/completions"
        last = "no attempt made"
        for _attempt in range(self.max_retries + 1):  # transport retries are the client's; these re-ask a garbled body
            try:
                resp = self._openai().chat.completions.create(model=self.model_id, messages=messages, temperature=0,
                                                              max_tokens=self.max_tokens)
            except openai.APITimeoutError as exc:
                raise JudgeTransportError(f"no usable reply after {self.max_retries + 1} attempts: timeout after "
                                          f"{self.timeout:g} s ({type(exc).__name__})") from exc
            except openai.APIConnectionError as exc:
                raise JudgeTransportError(f"no usable reply after {self.max_retries + 1} attempts: connection error "
                                          f"({type(exc).__name__}: {exc})") from exc
            except openai.APIStatusError as exc:
                raise JudgeTransportError(f"HTTP {exc.status_code} from {url}: {exc.message[:300]!r}") from exc
            except (openai.APIError, ValueError) as exc:  # a body that is not JSON, or not a completion
                last = f"malformed response body ({type(exc).__name__}: {exc})"[:400]
                continue
            content = _message_text(resp)
            if content is not None:
                return content
            last = f"malformed response body (no message content): {str(resp)[:200]!r}"
        raise JudgeTransportError(f"no usable reply after {self.max_retries + 1} attempts: {last}")


def _message_text(resp) -> str | None:
    """The text of the first choice of a chat completion (content parts joined), or None
    when the reply holds no choice with a string or parts content."""
    choices = getattr(resp, "choices", None)
    message = getattr(choices[0], "message", None) if choices else None
    content = getattr(message, "content", None)
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else None


class TransformersJudge(Judge):
    """Judge with a local transformers causal LM, greedy decoding.

    ``model``: Hub name or local folder; ``gguf_file``: a GGUF file inside it (loaded with
    ``gguf_file=``, de-quantised by transformers). The model loads on the first cache miss,
    so a fully cached rerun never loads it. ``max_new_tokens`` bounds each reply.
    """

    backend = "transformers"

    def __init__(self, model: str, *, gguf_file: str | None = None, max_new_tokens: int = 32,
                 device: str | None = None, **kwargs):
        model_id = f"{Path(model).name}/{gguf_file}" if gguf_file else str(model)
        super().__init__(model_id, **kwargs)
        self.model = str(model)
        self.gguf_file = gguf_file
        self.max_new_tokens = int(max_new_tokens)
        self.device = device
        self._tok = None
        self._lm = None
        self._load_error: str | None = None

    def describe(self) -> dict:
        return {**super().describe(), "source": self.model, "gguf_file": self.gguf_file,
                "max_new_tokens": self.max_new_tokens, "decoding": "greedy"}

    def _load(self):
        if self._load_error:
            raise JudgeTransportError(self._load_error)
        if self._lm is None:
            from transformers import AutoModelForCausalLM, AutoTokenizer

            kwargs = {"gguf_file": self.gguf_file} if self.gguf_file else {}
            try:
                self._tok = AutoTokenizer.from_pretrained(self.model, **kwargs)
                self._lm = AutoModelForCausalLM.from_pretrained(self.model, **kwargs)
            except Exception as exc:  # remembered: one failed load, not one per call
                self._load_error = f"could not load judge model {self.model!r} ({type(exc).__name__}: {exc})"
                raise JudgeTransportError(self._load_error) from exc
            if self.device:
                self._lm.to(self.device)
            self._lm.eval()
        return self._tok, self._lm

    def _complete(self, messages: list[dict]) -> str:
        import torch

        tok, lm = self._load()
        if getattr(tok, "chat_template", None):
            enc = tok.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt", return_dict=True)
        else:
            enc = tok("\n\n".join(m["content"] for m in messages), return_tensors="pt")
        enc = {k: v.to(lm.device) for k, v in enc.items()}
        with torch.no_grad():
            out = lm.generate(**enc, max_new_tokens=self.max_new_tokens, do_sample=False,
                              pad_token_id=tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id)
        return tok.decode(out[0, enc["input_ids"].shape[1]:], skip_special_tokens=True)


def judge_from_env(**kwargs) -> Judge | None:
    """An ``OpenAIJudge`` configured from ``$JIEZI_JUDGE_BASE_URL`` and ``$JIEZI_JUDGE_MODEL``, or None."""
    if os.environ.get(ENV_BASE_URL) and os.environ.get(ENV_MODEL):
        return OpenAIJudge(**kwargs)
    return None
