"""The offline baselines: glyph embedders and normalisation, the retrieval baseline with its
calibrated abstention, the PP-OCR glyph reader (``ocr``) and the fused baseline (``fused``)."""
