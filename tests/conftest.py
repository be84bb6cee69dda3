"""Shared test fixtures.

Tests read the real source files from the source cache (``$JIEZI_SOURCES``, else
``../shared/sources`` beside the checkout) and never touch the network.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# Offline, always: a test that reaches for the Hub must fail fast, not hang.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def sources_dir() -> Path:
    """The source cache directory holding the real upstream files (see SOURCES.md)."""
    env = os.environ.get("JIEZI_SOURCES")
    path = Path(env) if env else REPO.parent / "shared" / "sources"
    if not (path / "shuowen").is_dir():
        pytest.fail(f"source cache not found at {path}: set JIEZI_SOURCES or run `jiezi sources fetch`")
    return path
