"""JieZi evaluation harness: `jiezi eval`, the offline retrieval baseline, the leaderboard.

Modules:

- ``run``: ``evaluate(EvalOptions)``: model over bench -> ``predictions.jsonl`` +
  ``results.json`` (resumable, bounded concurrency, progress bar);
- ``backends``: the backend registry ``BACKENDS`` (``openai:MODEL@BASE_URL``, ``hf:PATH_OR_ID``,
  ``retrieval``, ``ocr``, ``fused``), shared by ``jiezi eval`` and the Space;
- ``prompts`` / ``strategies``: prompts (``PROMPT_VERSION``), zero-shot, few-shot ICL,
  RAG and dictionary-context prompting, paraphrase wordings;
- ``embed`` / ``retrieval`` / ``render``: glyph embeddings, the JieZi-Dataset gallery, the
  retrieval baseline and its answers in the bench's formats;
- ``ocr`` / ``ocr_baseline`` / ``fusion``: PP-OCRv6 (the ``rapidocr`` wheel's ONNX weights)
  reading single glyphs, the ``ocr`` baseline, and the ``fused`` OCR + retrieval baseline;
- ``scoring``: the bridge to ``metrics.acce.core`` (BERTScore model choice, EVOI judge);
- ``leaderboard``: validate, score and store submissions; the table with the paper's rows;
- ``bench``: loading and fingerprinting the bench and the gallery;
- ``predlog``: the append-only predictions file; ``lmms``: the lmms-eval task folder.
"""
