"""The Hub Space folder: ``app.py``, the Space ``README.md`` (YAML front matter) and
``requirements.txt`` at the root, beside the packages the app imports (``space``,
``harness``, ``metrics``, and ``builder.publish.read``), copied from this checkout as they are.

The Hub runs ``python app.py`` in the Space root; ``space/app.py`` finds its packages
both there and in the repository, so the same file runs in both places unchanged.
"""

from __future__ import annotations

import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# package folder -> file suffixes copied (code and the data files the code reads)
PACKAGES = {"space": (".py",), "harness": (".py", ".json"), "metrics": (".py", ".txt")}
ROOT_FILES = {"app.py": "space/app.py", "README.md": "space/README.md", "requirements.txt": "space/requirements.txt"}
# Single modules of other packages the app imports: the guarded image opener, the reader of published folders, and the
# QA templates (and the layout helper their package imports) that harness.official reads for
# the paper protocol's per-image references (a paper-protocol submission, issue 13).
MODULE_FILES = ("builder/__init__.py", "builder/imageio.py", "builder/publish/read.py", "builder/layout.py", "builder/qa/__init__.py",
                "builder/qa/templates.py")
SKIP_DIRS = {"__pycache__", "lmms_eval_tasks"}


class BundleError(RuntimeError):
    """The bundle cannot be written (target not empty, a source file missing)."""


def bundle_files() -> dict[str, Path]:
    """Space path -> source file of everything :func:`write_bundle` copies."""
    files: dict[str, Path] = {dest: REPO / src for dest, src in ROOT_FILES.items()}
    files.update({rel: REPO / rel for rel in MODULE_FILES})
    for package, suffixes in PACKAGES.items():
        for path in sorted((REPO / package).rglob("*")):
            rel = path.relative_to(REPO)
            if path.is_file() and path.suffix in suffixes and not SKIP_DIRS & set(rel.parts):
                files[rel.as_posix()] = path
    return files


def write_bundle(output: str | Path) -> list[str]:
    """Write the Space folder to ``output`` (absent or empty). Returns the Space paths
    written, sorted. Raises :class:`BundleError` when ``output`` holds files or a source
    file is missing."""
    out = Path(output)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise BundleError(f"{out} exists and is not an empty folder; choose another --output")
    files = bundle_files()
    missing = [str(src) for src in files.values() if not src.is_file()]
    if missing:
        raise BundleError(f"missing source file(s): {missing}")
    for dest, src in files.items():
        target = out / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
    return sorted(files)


def push(folder: str | Path, repo_id: str) -> str:
    """Create (if needed) the Gradio Space ``repo_id`` and upload ``folder`` to it with
    ``huggingface_hub``; returns the Space URL. Needs a write token (``HF_TOKEN`` or
    ``hf auth login``)."""
    from huggingface_hub import HfApi

    api = HfApi()
    api.create_repo(repo_id, repo_type="space", space_sdk="gradio", exist_ok=True)
    api.upload_folder(folder_path=str(folder), repo_id=repo_id, repo_type="space",
                      commit_message="JieZi Space from `jiezi space-bundle`")
    return f"https://huggingface.co/spaces/{repo_id}"
