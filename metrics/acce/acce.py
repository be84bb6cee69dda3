"""ACCE: the eleven metrics of Ancient Chinese Character Exegesis (JieZi-Bench), for evaluate.

``evaluate.load("jiezi/acce")`` (the Hub Space) or ``evaluate.load("metrics/acce")`` (this
folder) gives this module; the scoring itself lives in the sibling modules (``core.score``),
which other toolkits import directly. Definitions: ACCE.md section 2 / the README card.
"""

import datasets
import evaluate

# evaluate copies only the sibling modules this script imports itself (it does not follow
# their imports), so every module of the package is imported here by name, each on its own
# line without a trailing comment (evaluate's import scanner reads these lines).
from .aggregate import aggregate
from .aliases import ALIAS_TO_CANONICAL
from .answers import ANSWERS
from .eui import UCD_VERSION
from .bertscore import DEFAULT_MODEL
from .bertscore_gguf import load_gguf_scorer
from .component_match import match_components
from .component_record import clean_name
from .components import parse_components
from .core import METRIC_VERSION, coerce_settings, parse_answer, score
from .extract import extract_script
from .inputs import metrics_of
from .judge import PROMPT_VERSION, OpenAIJudge, TransformersJudge
from .labels import METRICS, SPLIT_FLAG_COLUMNS, SPLITS
from .normalize import normalize_text
from .paper import score_paper
from .paper_match import pair_components
from .paper_reply import reply_object
from .synonyms import SCRIPT_SYNONYMS
from .variants import ONE_TO_ONE

_CITATION = """\
@article{jiezi2026,
  title   = {JieZi: A Large-Scale Expert-Audited Dataset and Benchmark for Ancient Chinese Character Exegesis},
  journal = {arXiv preprint arXiv:2608.11741},
  year    = {2026}
}
"""

_DESCRIPTION = """\
The eleven metrics of Ancient Chinese Character Exegesis (ACCE) on JieZi-Bench, on 0-100:
CHAR, SCRC, STRC, FORC (accuracy of the label extracted from the free-text answer; FORC also
reports recall-style partial credit), COMR / COMF / COME (per-question component F1 after
one-to-one matching of normalised component names), COMI (the same, each pair weighted by the
BERTScore F1 of its interpretations), ORIM (BERTScore F1, bert-base-chinese, mean of the first
8 hidden states) and EVOI_FAC / EVOI_SCE (an LLM judge, 0-4 x 25). Per-question scores are
averaged per metric; unparseable answers and judge failures count 0 in the headline, and the
lenient means over parsed answers are reported with the failure counts. Level scores L1..L4
and the macro average are means over the metrics that were computed.
"""

_KWARGS_DESCRIPTION = """\
Args:
    predictions (list of str): the model's raw answers.
    references (list of str or dict): the bench's reference answer text or its
        `answer_struct` (a dict or its JSON string).
    subtasks (list of str or list of list of str): per item a subtask code (CHAR, SCRC,
        STRC, COMR, COMF, COMI, FORC, ORIM, COME, EVOI) or the list of metric keys the row is
        scored on (the bench's `metrics` column, e.g. ["COMR", "COMF", "COMI", "COME"]).
    ids (list of str, optional): item ids, used in `skipped` and `items`.
    scripts (list of str, optional): script label per item -> breakdown by script.
    splits (list of list of str, optional): split names per item, from "test",
        "unseen_characters", "unseen_glyphs" (e.g. ["unseen_characters"]; one name may be
        given as a plain string) -> breakdown by split (Table 3 of the paper). An unknown
        name raises ValueError naming the item.
    settings (dict or ScorerSettings, optional): bertscore_model, bertscore_layers,
        batch_size, device, bertscore (False: skip ORIM/COMI), reference_defaults, progress.
    bertscore_model, bertscore_layers, batch_size, device (optional): shortcuts for settings.
    judge (Judge, optional): an OpenAIJudge / TransformersJudge for EVOI.
    judge_base_url, judge_model, judge_api_key, judge_concurrency, judge_cache (optional):
        build an OpenAI-compatible judge (defaults: $JIEZI_JUDGE_BASE_URL, $JIEZI_JUDGE_MODEL,
        $JIEZI_JUDGE_API_KEY). Without any judge, EVOI_FAC / EVOI_SCE are None (not computed).
    details (bool, optional): also return one record per (item, metric).
Returns:
    CHAR, SCRC, STRC, COMR, COMF, COMI, FORC, ORIM, COME, EVOI_FAC, EVOI_SCE (0-100 or None),
    L1, L2, L3, L4, macro, FORC_partial, lenient, counts, not_computed, breakdown, skipped,
    warnings, aggregation, settings.
Examples:
    >>> acce = evaluate.load("jiezi/acce")
    >>> r = acce.compute(predictions=["江", "篆書"], references=['{"character": "江"}', "篆书"],
    ...                  subtasks=["CHAR", "SCRC"], settings={"bertscore": False})
    >>> r["CHAR"], r["SCRC"], r["L1"]
    (100.0, 100.0, 100.0)
"""

_SETTING_KEYS = ("bertscore_model", "bertscore_layers", "batch_size", "device", "bertscore", "reference_defaults",
                 "progress")
_JUDGE_KEYS = ("judge_base_url", "judge_model", "judge_api_key", "judge_concurrency", "judge_cache",
               "judge_backend", "judge_gguf_file")


def _as_reference(ref):
    if isinstance(ref, dict):
        import json

        return json.dumps(ref, ensure_ascii=False)
    return "" if ref is None else str(ref)


def _as_subtasks(sub):
    if isinstance(sub, str):
        return [sub]
    return [str(s) for s in sub]


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Acce(evaluate.Metric):
    """The ACCE metrics as an ``evaluate.Metric`` (inputs: predictions, references, subtasks).

    Init keywords (``evaluate.load(path, settings=..., judge=...)``) set defaults that
    ``compute`` keywords override.
    """

    def __init__(self, *args, settings=None, judge=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.default_settings = coerce_settings(settings)
        self.default_judge = judge

    def _info(self):
        return evaluate.MetricInfo(
            module_type="metric",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({
                "predictions": datasets.Value("string"),
                "references": datasets.Value("string"),
                "subtasks": datasets.Sequence(datasets.Value("string")),
            }),
            homepage="https://huggingface.co/spaces/jiezi/acce",
            codebase_urls=["https://huggingface.co/spaces/jiezi/acce/tree/main"],
            reference_urls=["https://arxiv.org/abs/2608.11741"],
        )

    # Dict references and plain-string subtasks are converted before evaluate encodes them
    # with the features above (one string column, one list-of-strings column).
    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of predictions, references and subtasks (dict references allowed)."""
        kwargs = self._coerce_inputs(kwargs)
        if references is not None:
            references = [_as_reference(r) for r in references]
        if predictions is not None:
            predictions = ["" if p is None else str(p) for p in predictions]
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one prediction, reference and ``subtasks`` entry (a code or a list of metric keys)."""
        if "subtasks" in kwargs and kwargs["subtasks"] is not None:
            kwargs["subtasks"] = _as_subtasks(kwargs["subtasks"])
        return super().add(prediction="" if prediction is None else str(prediction),
                           reference=_as_reference(reference), **kwargs)

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score the ACCE metrics (see the inputs description below and the README card).
        """
        kwargs = self._coerce_inputs(kwargs)
        if references is not None:
            references = [_as_reference(r) for r in references]
        if predictions is not None:
            predictions = ["" if p is None else str(p) for p in predictions]
        return super().compute(predictions=predictions, references=references, **kwargs)

    @staticmethod
    def _coerce_inputs(kwargs):
        if kwargs.get("subtasks") is not None:
            kwargs = {**kwargs, "subtasks": [_as_subtasks(s) for s in kwargs["subtasks"]]}
        return kwargs

    def _compute(self, predictions, references, subtasks, ids=None, scripts=None, splits=None, settings=None,
                 judge=None, details=False, **options):
        unknown = set(options) - set(_SETTING_KEYS) - set(_JUDGE_KEYS)
        if unknown:
            raise TypeError(f"unexpected keyword(s) for ACCE compute: {sorted(unknown)}")
        cfg = coerce_settings(settings) if settings is not None else self.default_settings
        overrides = {k: options[k] for k in _SETTING_KEYS if options.get(k) is not None}
        if overrides:
            cfg = cfg.model_copy(update=overrides)
        if judge is None and any(options.get(k) is not None for k in _JUDGE_KEYS):
            judge = self._build_judge(options)
        if judge is None:
            judge = self.default_judge
        return score(list(predictions), list(references), [list(s) for s in subtasks], ids=ids, scripts=scripts,
                     splits=splits, settings=cfg, judge=judge, details=details)

    @staticmethod
    def _build_judge(options):
        cache = options.get("judge_cache")
        if options.get("judge_backend") == "transformers":
            return TransformersJudge(options["judge_model"], gguf_file=options.get("judge_gguf_file"), cache=cache)
        return OpenAIJudge(options.get("judge_base_url"), options.get("judge_model"), options.get("judge_api_key"),
                           concurrency=options.get("judge_concurrency"), cache=cache)


__all__ = ["Acce", "aggregate", "METRICS", "METRIC_VERSION", "PROMPT_VERSION", "DEFAULT_MODEL", "ALIAS_TO_CANONICAL",
           "SPLITS", "SPLIT_FLAG_COLUMNS", "parse_answer", "parse_components", "extract_script", "normalize_text",
           "score"]
