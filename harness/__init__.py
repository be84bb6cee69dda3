"""JieZi evaluation harness: `jiezi eval`, the offline retrieval baseline, the leaderboard.

Modules:

- ``run``: ``evaluate(EvalOptions)``: model over bench -> ``predictions.jsonl`` +
  ``results.json`` (resumable, bounded concurrency, progress bar);
- ``backends``: ``openai:MODEL@BASE_URL``, ``hf:PATH_OR_ID`` and ``retrieval`` backends;
- ``prompts`` / ``strategies``: prompts (``PROMPT_VERSION``), zero-shot, few-shot ICL,
  RAG and dictionary-context prompting, paraphrase wordings;
- ``embed`` / ``retrieval`` / ``render``: glyph embeddings, the JieZi-Dataset gallery, the
  retrieval baseline and its answers in the bench's formats;
- ``scoring``: the bridge to ``metrics.acce.core`` (BERTScore model choice, EVOI judge);
- ``leaderboard``: validate, score and store submissions; the table with the paper's rows;
- ``bench``: loading and fingerprinting the bench and the gallery;
- ``predlog``: the append-only predictions file; ``lmms``: the lmms-eval task folder.
"""
