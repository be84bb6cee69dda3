"""Stage 0, sources: the registry of source datasets (as data), their fetch and check, and
one adapter per source that reads its files into :class:`builder.sources.adapters.Entry` rows.

In: the source cache (``--sources DIR``, ``$JIEZI_SOURCES`` or ``~/.cache/jiezi/sources``).
Out: parsed entries for the records stage; nothing is written.
"""
