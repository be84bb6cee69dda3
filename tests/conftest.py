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
    # Absolute: tests link and copy source files into temporary folders.
    path = (Path(env) if env else REPO.parent / "shared" / "sources").resolve()
    if not (path / "shuowen").is_dir():
        pytest.fail(f"source cache not found at {path}: set JIEZI_SOURCES or run `jiezi sources fetch`")
    return path


@pytest.fixture(autouse=True)
def _isolated_datasets_cache(tmp_path_factory, monkeypatch):
    """A fresh `datasets` cache per test.

    datasets 5.2 keys the cache of a local folder by its base name (two `jiezi-bench`
    folders, or one rebuilt in place, share one cache entry; huggingface/datasets#2956), so
    a test that calls ``load_dataset(folder)`` directly could read another test's rows.
    The project's own readers avoid it (``hub.read.load_hub_layout``); the tests
    that exercise plain ``load_dataset`` must not depend on test order.
    """
    import datasets

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path_factory.mktemp("hf-datasets"))


@pytest.fixture(scope="session", autouse=True)
def _shared_template_cache(tmp_path_factory):
    """One font-template cache for the session (``$JIEZI_TEMPLATE_CACHE``): the fused
    baseline's reserved faces (fonts-ipamj-mincho, fonts-droid-fallback) give about 77,000
    templates, about three minutes to render and embed, which every test's fresh ``$JIEZI_CACHE`` would
    redo. The cache is keyed by the font files' SHA-256 and the embedder, so it carries no
    test's data to another. Set in ``os.environ`` so that ``jiezi space`` subprocesses share it."""
    from harness.baselines.templates import TEMPLATE_CACHE_ENV

    path = tmp_path_factory.mktemp("templates")
    before = os.environ.get(TEMPLATE_CACHE_ENV)
    os.environ[TEMPLATE_CACHE_ENV] = str(path)
    yield path
    if before is None:
        os.environ.pop(TEMPLATE_CACHE_ENV, None)
    else:
        os.environ[TEMPLATE_CACHE_ENV] = before


@pytest.fixture(scope="session")
def warm_templates(_shared_template_cache):
    """The installed template faces' templates rendered into the session cache now (None
    without a template font), so that a Space started afterwards does not spend its first
    answer on them."""
    from harness.baselines.fusion_fit import default_templates

    return default_templates(_shared_template_cache, progress=False)


@pytest.fixture
def openai_server():
    """A loopback OpenAI-compatible chat server (``tests/openai_server.py``), closed after the
    test; set ``openai_server.respond`` to script its answers, read ``openai_server.calls``."""
    from openai_server import OpenAIServer

    with OpenAIServer() as server:
        yield server
