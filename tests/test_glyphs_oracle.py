"""Oracle-MNIST glyph images: all 3,000 real scans, right labels, dark ink on light."""

from __future__ import annotations

import gzip
import hashlib
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from builder.glyphs.collect import collect_images
from builder.glyphs.oracle_mnist import ORACLE_MNIST_CLASSES, GlyphSourceError
from hub.skips import SkipLog


@pytest.fixture(scope="module")
def oracle(sources_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("oracle")
    skipped = SkipLog()
    images = collect_images([], sources_dir, out, skipped=skipped, progress=False)
    return out, images, skipped


def test_all_scans_with_class_labels(oracle, sources_dir):
    out, images, skipped = oracle
    assert len(skipped) == 0
    assert len(images) == 3000
    assert Counter(ch for ch, _ in images) == {ch: 300 for ch in ORACLE_MNIST_CLASSES}
    assert {(g.script, g.style, g.source, g.licence, g.font) for _, g in images} == {
        ("甲骨文", "scan", "oracle-mnist", "Apache-2.0", None)}
    assert len({g.id for _, g in images}) == 3000
    # The class table is the one SOURCES.md documents ("0 大, 1 日, ...").
    doc = (sources_dir / "SOURCES.md").read_text(encoding="utf-8")
    table = dict(re.findall(r"(\d) (\S),?", doc.split("Class index to character:", 1)[1].split("(", 1)[0]))
    assert tuple(table[str(i)] for i in range(10)) == ORACLE_MNIST_CLASSES
    # The label of each image is the upstream label of the same index.
    labels = gzip.decompress((sources_dir / "oracle-mnist/t10k-labels-idx1-ubyte.gz").read_bytes())[8:]
    assert [ch for ch, _ in images] == [ORACLE_MNIST_CLASSES[y] for y in labels]


def test_files_sizes_and_checksums(oracle):
    out, images, _ = oracle
    for _, g in images[:200]:
        data = (out / g.path).read_bytes()
        assert hashlib.sha256(data).hexdigest() == g.sha256
        assert g.path == f"images/甲骨文/{g.id}.png"
        with Image.open(out / g.path) as im:
            assert im.size == (g.width, g.height) == (128, 128)
            assert im.mode == "L"


def test_faithful_and_dark_ink_on_light(oracle, sources_dir):
    out, images, _ = oracle
    raw = gzip.decompress((sources_dir / "oracle-mnist/t10k-images-idx3-ubyte.gz").read_bytes())
    upstream = np.frombuffer(raw, np.uint8, offset=16).reshape(-1, 28, 28)
    means = []
    for i in range(0, 3000, 60):
        ours = np.asarray(Image.open(out / images[i][1].path), dtype=np.float64)
        means.append(ours.mean())
        # Scaled back to 28 x 28 it is the upstream scan with its polarity inverted.
        back = np.asarray(Image.open(out / images[i][1].path).resize((28, 28), Image.Resampling.BOX), dtype=np.float64)
        assert np.abs(back - (255 - upstream[i].astype(np.float64))).mean() < 6
    # Upstream is light strokes on black (mean ~60); ours is dark ink on a light ground.
    assert np.median(means) > 170


def test_missing_oracle_file_names_it(sources_dir, tmp_path):
    partial = tmp_path / "sources"
    partial.mkdir()
    for child in sources_dir.iterdir():
        if child.name != "oracle-mnist":
            (partial / child.name).symlink_to(child)
    (partial / "oracle-mnist").mkdir()
    (partial / "oracle-mnist" / "t10k-images-idx3-ubyte.gz").symlink_to(
        sources_dir / "oracle-mnist" / "t10k-images-idx3-ubyte.gz")
    with pytest.raises(GlyphSourceError, match=r"oracle-mnist.*t10k-labels-idx1-ubyte\.gz.*jiezi sources fetch"):
        collect_images([], partial, tmp_path / "out", skipped=SkipLog(), progress=False)


def test_truncated_oracle_file(sources_dir, tmp_path):
    partial = tmp_path / "sources"
    (partial / "oracle-mnist").mkdir(parents=True)
    for child in sources_dir.iterdir():
        if child.name != "oracle-mnist":
            (partial / child.name).symlink_to(child)
    raw = gzip.decompress((sources_dir / "oracle-mnist/t10k-images-idx3-ubyte.gz").read_bytes())
    (partial / "oracle-mnist/t10k-images-idx3-ubyte.gz").write_bytes(gzip.compress(raw[:5000]))
    (partial / "oracle-mnist/t10k-labels-idx1-ubyte.gz").symlink_to(sources_dir / "oracle-mnist/t10k-labels-idx1-ubyte.gz")
    with pytest.raises(GlyphSourceError, match="3000 images of 28x28"):
        collect_images([], Path(partial), tmp_path / "out", skipped=SkipLog(), progress=False)
