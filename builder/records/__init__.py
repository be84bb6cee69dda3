"""Records (paper stages 1-2): structure each source entry (rules or an LLM), check every
value against its source text (fidelity), align the sources per character, attach glyph
images, and import/export the official metadata layout.

In: adapter entries from :mod:`builder.sources`, glyph images from :mod:`builder.glyphs`.
Out: ``OUT/records/`` (``records.jsonl``, ``images/``, ``report.json``, ``skipped.jsonl``).
"""
