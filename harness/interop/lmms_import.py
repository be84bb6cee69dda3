"""An lmms-eval ``--log_samples --output_path DIR`` folder of the JieZi tasks as a board
submission (issue 24): ``jiezi leaderboard submit DIR`` scores its answers like our own
predictions (the same answers give the same row).

lmms-eval 0.7.3 writes, per run, ``DIR/<model>/<stamp>_results.json`` and one
``<stamp>_samples_<task>.jsonl`` per task; each sample line carries the payloads our
``process_results`` hook returned (``harness/interop/lmms_eval_tasks/jiezi_bench/utils.py``):
``{metric: {"id", "prediction", "reference", ...}}``. :func:`read_lmms_log` takes the
answers from them: the per-question tasks (``jiezi_bench_l1`` .. ``_l4``; a component
question asked in L2 and in L4 keeps its first answer, a differing second one is
reported) or the paper task (``jiezi_bench_paper``, one reply per image). The logged
references tie the log to a bench: :meth:`LmmsLog.results` refuses a log whose
references differ from the board's bench, and writes the run record the board keeps
(model, model arguments without keys, lmms-eval version, ``--limit``, thinking).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from hub.runfiles import RESULTS_FORMAT

PER_QUESTION_TASKS = ("jiezi_bench_l1", "jiezi_bench_l2", "jiezi_bench_l3", "jiezi_bench_l4")
PAPER_TASK = "jiezi_bench_paper"
_SAMPLES = re.compile(r"^(?P<stamp>.+)_samples_(?P<task>jiezi_bench\w*)\.jsonl$")
_SECRET = re.compile(r"(api_key|token|secret|password)", re.I)


class LmmsLogError(ValueError):
    """The folder is not a readable lmms-eval log of the JieZi tasks (message says why)."""


@dataclass
class LmmsLog:
    """The answers of one lmms-eval run: ``answers`` (id -> output), ``references`` (id ->
    the logged reference), ``protocol`` (per-question | paper), ``config`` (the run's
    ``results.json`` ``config``), ``version``, ``tasks``, ``notes`` (conflicts found)."""

    folder: Path
    protocol: str
    answers: dict[str, str]
    references: dict[str, str]
    config: dict
    version: str | None
    tasks: list[str]
    prompt_version: str | None = None
    notes: list[str] = field(default_factory=list)

    def predictions_bytes(self) -> bytes:
        """The answers in ``jiezi eval``'s predictions.jsonl format (id order)."""
        return "".join(json.dumps({"id": i, "output": self.answers[i], "parsed": None, "latency_s": None,
                                   "error": None}, ensure_ascii=False) + "\n" for i in sorted(self.answers)).encode()

    def results(self, bench: dict, fingerprint: str, references: dict[str, object]) -> dict:
        """The run record (``jiezi-eval-results/1``) of this log on a board's ``bench`` whose
        rows (or images) have ``fingerprint`` and the reference of each id in ``references``.
        Raises :class:`LmmsLogError` when an id is not in the bench or its logged reference
        differs (the log was made on another bench)."""
        unknown = [i for i in self.references if i not in references]
        differ = [i for i in self.references if i in references and not _same(self.references[i], references[i])]
        if unknown or differ:
            first = (unknown or differ)[0]
            raise LmmsLogError(f"the lmms-eval log {self.folder} was made on another bench than the board's "
                               f"{bench.get('source')!r}: {len(unknown)} id(s) not in it, {len(differ)} reference(s) "
                               f"differ (first: {first!r}); write the task folder for the board's bench with "
                               "`jiezi lmms-tasks --bench BENCH` and run lmms-eval again")
        limit = self.config.get("limit")
        return {"format": RESULTS_FORMAT, "protocol": self.protocol,
                "scoring": "reference" if self.protocol == "paper" else "jiezi",
                "model": self.model_record(),
                "bench": {**bench, "fingerprint": fingerprint, "rows": len(self.answers), "limit": limit,
                          "sample": "lmms-eval --limit: the first N docs of each task" if limit else None},
                "prompt_version": self.prompt_version, "strategy": {"name": "zero-shot", "shots": 0},
                "packages": {"lmms_eval": self.version}, "lmms_eval": {"tasks": self.tasks, "notes": self.notes}}

    def model_record(self) -> dict:
        """``spec``, ``backend``, ``model_args`` (keys dropped), ``thinking`` of the lmms-eval run."""
        args = _model_args(str(self.config.get("model_args") or ""))
        model = str(self.config.get("model") or "?")
        name = args.get("model_version") or args.get("pretrained") or args.get("model") or model
        return {"spec": f"lmms-eval:{model}:{name}", "backend": f"lmms-eval {model}",
                "model_backend": self.config.get("model_backend"), "model": name, "model_args": args,
                "gen_kwargs": self.config.get("gen_kwargs") or None, "thinking": _thinking(args)}


def _same(logged: str, bench_value: object) -> bool:
    try:
        a = json.loads(logged) if isinstance(logged, str) else logged
        b = json.loads(bench_value) if isinstance(bench_value, str) else bench_value
    except ValueError:
        return logged == bench_value
    return a == b


def _model_args(text: str) -> dict:
    """lmms-eval's ``k=v,k=v`` model arguments, secrets left out."""
    out = {}
    for part in filter(None, text.split(",")):
        key, _, value = part.partition("=")
        if key.strip() and not _SECRET.search(key):
            out[key.strip()] = value.strip()
    return out


def _thinking(args: dict) -> dict:
    """The thinking setting the model arguments state (``enable_thinking``,
    ``reasoning_effort``), else unknown."""
    on = args.get("enable_thinking") or args.get("enable_thinking_kwarg")
    effort = args.get("reasoning_effort")
    if on is None and effort is None:
        return {"mode": "unknown", "budget": None, "how": "not in the lmms-eval model arguments"}
    mode = "on" if effort or str(on).lower() in ("true", "1", "yes", "on") else "off"
    how = "; ".join(f"lmms-eval model_args {k}={args[k]}" for k in ("enable_thinking", "enable_thinking_kwarg",
                                                                     "reasoning_effort") if k in args)
    return {"mode": mode, "budget": effort, "how": how}


def _runs(folder: Path) -> dict[tuple[Path, str], dict[str, Path]]:
    """``{(folder, stamp): {task: samples file}}`` of the JieZi tasks under ``folder``."""
    runs: dict[tuple[Path, str], dict[str, Path]] = {}
    for path in sorted(folder.rglob("*_samples_jiezi_bench*.jsonl")):
        m = _SAMPLES.match(path.name)
        if m:
            runs.setdefault((path.parent, m["stamp"]), {})[m["task"]] = path
    return runs


def is_lmms_log(folder: str | Path) -> bool:
    """True when ``folder`` holds lmms-eval samples files of the JieZi tasks."""
    return Path(folder).is_dir() and bool(_runs(Path(folder)))


def _payloads(path: Path) -> list[tuple[str, str, str]]:
    """``(id, prediction, reference)`` of each sample line of one samples file."""
    out = []
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            sample = json.loads(line)
        except ValueError as exc:
            raise LmmsLogError(f"{path}:{n}: not a JSON line ({exc})") from exc
        payload = next((v for v in sample.values() if isinstance(v, dict) and "id" in v and "prediction" in v), None)
        if payload is None:
            raise LmmsLogError(f"{path}:{n}: no JieZi payload (id, prediction); was it written by the JieZi task "
                               "folder (`jiezi lmms-tasks`) with --log_samples?")
        out.append((str(payload["id"]), str(payload["prediction"] or ""), payload.get("reference")))
    return out


def read_lmms_log(folder: str | Path) -> LmmsLog:
    """The newest JieZi run logged under ``folder`` (see the module docstring). Raises
    :class:`LmmsLogError` naming the folder and what is missing or mixed."""
    folder = Path(folder)
    runs = _runs(folder)
    if not runs:
        raise LmmsLogError(f"{folder}: no lmms-eval samples of the JieZi tasks (*_samples_jiezi_bench*.jsonl); run "
                           "lmms-eval with --log_samples --output_path DIR")
    (where, stamp), tasks = max(runs.items(), key=lambda kv: kv[0][1])
    paper = PAPER_TASK in tasks
    if paper and set(tasks) & set(PER_QUESTION_TASKS):
        raise LmmsLogError(f"{where} run {stamp} holds both protocols (jiezi_bench_paper and the per-question "
                           "tasks); run them separately so each is one board row")
    answers, references, notes = {}, {}, []
    for task in sorted(tasks):
        for key, prediction, reference in _payloads(tasks[task]):
            if key in answers and answers[key] != prediction:
                notes.append(f"{key}: {task} answered differently; the first answer is kept")
                continue
            answers.setdefault(key, prediction)
            references.setdefault(key, reference)
    results_file = where / f"{stamp}_results.json"
    try:
        report = json.loads(results_file.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise LmmsLogError(f"{results_file}: the run's lmms-eval results file is missing or unreadable ({exc})") from exc
    return LmmsLog(folder=where, protocol="paper" if paper else "per-question", answers=answers,
                   references=references, config=report.get("config") or {},
                   version=report.get("lmms_eval_version"), tasks=sorted(tasks), notes=notes,
                   prompt_version=next((((report.get("configs") or {}).get(t) or {}).get("metadata", {})
                                        .get("prompt_version") for t in sorted(tasks)), None))
