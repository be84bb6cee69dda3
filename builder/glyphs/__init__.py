"""Glyph images: one module per glyph source (scans, font renderings, tracings, user folders),
collected through a registry into :class:`builder.schema.GlyphImage` rows and PNG files.

In: the source cache, installed fonts, user glyph folders or manifests.
Out: ``OUT/records/images/<script>/*.png`` and the image list attached to each record.
"""
