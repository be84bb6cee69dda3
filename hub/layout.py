"""Where each stage's outputs lie inside a `jiezi build` folder (shared by every stage).

``DIR/records/`` (paper stages 1-2, or the folder passed with ``--records``), ``DIR/qa/``
(stage 3; ``qa/fingerprint.json`` names the records folder it was built from),
``DIR/jiezi-dataset/`` and ``DIR/jiezi-bench/`` (publication). Kept in ``hub`` (the shared
base) so the QA audit, publication and the ``datasets`` builders all read one definition
without a later stage being imported by an earlier one.
"""

from __future__ import annotations

import json
from pathlib import Path


def records_dir_of(data_dir: str | Path, records_dir: str | Path | None = None) -> Path:
    """The records folder the stage-3 outputs under ``data_dir`` were built from:
    ``records_dir`` when given, else the ``records_dir`` of ``data_dir/qa/fingerprint.json``,
    else ``data_dir/records``. Raises ``ValueError``/``KeyError`` for an unreadable
    fingerprint file."""
    if records_dir:
        return Path(records_dir)
    fp = Path(data_dir) / "qa" / "fingerprint.json"
    if fp.exists():
        return Path(json.loads(fp.read_text("utf-8"))["records_dir"])
    return Path(data_dir) / "records"
