"""The Hub Space folder: ``app.py``, the Space ``README.md`` (YAML front matter),
``requirements.txt`` and ``packages.txt`` (the Debian packages the Hub installs with apt:
fontconfig and the fused baseline's template-reader fonts, fonts-ipamj-mincho and
fonts-droid-fallback) at the root, beside every project module the app imports, copied from
this checkout as they are.

Which modules: those reached by imports from ``space.app`` (``hub.imports.imported_modules``,
imports inside functions included, so a backend loaded on demand is there too), with the data
files (:data:`DATA_SUFFIXES`) that lie beside them (``harness/board/paper_table10.json``). A module
the app starts importing is bundled without editing a list here.

The Hub runs ``python app.py`` in the Space root; ``space/app.py`` finds its packages
both there and in the repository, so the same file runs in both places unchanged.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from hub.imports import ROOT as REPO
from hub.imports import imported_modules, module_file

ENTRY = "space.app"
ROOT_FILES = {"app.py": "space/app.py", "README.md": "space/README.md", "requirements.txt": "space/requirements.txt",
              "packages.txt": "space/packages.txt"}
# data files the bundled modules read from their own folder
DATA_SUFFIXES = (".json", ".txt")


class BundleError(RuntimeError):
    """The bundle cannot be written (target not empty, a source file missing)."""


def bundle_files() -> dict[str, Path]:
    """Space path -> source file of everything :func:`write_bundle` copies: the root files,
    every project module :data:`ENTRY` reaches by imports, and the data files beside them."""
    files: dict[str, Path] = {dest: REPO / src for dest, src in ROOT_FILES.items()}
    folders = set()
    for mod in imported_modules(ENTRY, REPO):
        path = module_file(mod, REPO)
        files[path.relative_to(REPO).as_posix()] = path
        folders.add(path.parent)
    for folder in sorted(folders):
        for path in sorted(folder.iterdir()):
            rel = path.relative_to(REPO).as_posix()
            if path.is_file() and path.suffix in DATA_SUFFIXES and rel not in ROOT_FILES.values():
                files[rel] = path
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
