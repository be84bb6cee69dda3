"""`jiezi` commands of the space stage (registered by jiezi_cli.py).

``jiezi space`` runs the JieZi Space (``space/app.py``) on this machine;
``jiezi space-bundle`` writes the folder that is uploaded as the Hub Space;
``jiezi explain`` is the exegesis tab on the command line (same explainers, same
abstention), one answer per image.
"""

from __future__ import annotations

import re

from pathlib import Path
from typing import Optional

import typer

from hub.clierror import CLIError, reraise_as_cli_error

LEVEL_KEYS = {"L1": ("CHAR", "SCRC"), "L2": ("STRC", "COMR", "FORC"), "L3": ("ORIM",), "L4": ("COME", "EVOI")}


def default_dataset() -> str:
    """The retrieval gallery when none is given: env ``JIEZI_DATASET``, else the main
    job's output ``out/jiezi-dataset`` (``jiezi build --output out``), else the Hub id."""
    import os

    from space.data import DEFAULT_DATASET

    if os.environ.get("JIEZI_DATASET"):
        return os.environ["JIEZI_DATASET"]
    return "out/jiezi-dataset" if Path("out/jiezi-dataset").is_dir() else DEFAULT_DATASET


def explanation_json(image: str, ex) -> dict:
    """The ``jiezi explain --json`` object of one image: ``image``, ``character`` and
    ``script`` (null when abstaining or unanswered), ``abstained`` (bool),
    ``confidence`` (0-1; null for model backends, which have no calibrated confidence),
    ``read_by`` (fused / ocr baselines: ``OCR``, ``retrieval``, ``OCR and retrieval`` or
    ``OCR + retrieval fusion``; else null), ``ocr`` (the recogniser's reading: text and
    candidates, or null),
    ``levels`` (L1..L4 -> question type -> answer text or null), ``unanswered``
    (question type -> reason), ``candidates`` ([character, vote weight] best first),
    ``backend`` and ``seconds``."""
    facts = ex.facts
    comps = ((facts.get("COMR") and facts["COMR"].parsed) or {}).get("components") or []
    come = "；".join(f"{c['name']}：{c['evolution_type']}" for c in comps if c.get("evolution_type")) or None
    answers = {q: (f.answer or None) for q, f in facts.items()}
    answers["COME"] = come
    decision = ex.decision or {}
    char = decision.get("character") if ex.decision else (facts["CHAR"].parsed or {}).get("character")
    script = decision.get("script") if ex.decision else (facts["SCRC"].parsed or {}).get("script")
    return {"image": image, "backend": ex.backend, "character": char, "script": script,
            "abstained": ex.abstained, "confidence": decision.get("confidence"),
            "read_by": decision.get("read_by"), "ocr": decision.get("ocr"),
            "candidates": [list(c) for c in decision.get("candidates") or []],
            "levels": {lv: {q: answers.get(q) for q in qs} for lv, qs in LEVEL_KEYS.items()},
            "unanswered": {q: f.error for q, f in facts.items() if f.error}, "seconds": round(ex.seconds, 3)}


def _explain_text(item: dict) -> str:
    if item.get("error"):
        return f"{item['image']}: error: {item['error']}"
    cands = ", ".join(f"{c} {w:.2f}" for c, w in item["candidates"])
    if item["abstained"]:
        return f"{item['image']}: cannot read this glyph (confidence {item['confidence']:.2f}); nearest: {cands}"
    conf = "" if item["confidence"] is None else f" (confidence {item['confidence']:.2f})"
    if item.get("read_by") and item["confidence"] is not None:
        conf = f" (read by {item['read_by']}, confidence {item['confidence']:.2f})"
    lines = [f"{item['image']}: {item['character'] or '?'} · {item['script'] or '?'}{conf}"]
    for level, answers in item["levels"].items():
        for q, a in answers.items():
            lines.append(f"  {level} {q}: " + (a.replace(chr(10), " ") if a else "— " + item["unanswered"].get(q, "")))
    return "\n".join(lines)


def _model_failed(item: dict) -> bool:
    """Whether an explanation holds no answer at all and every level failed with the same
    backend error (a server that cannot be reached), as opposed to a glyph not read."""
    levels = [v for lv in (item.get("levels") or {}).values() for v in lv.values()]
    reasons = set((item.get("unanswered") or {}).values())
    return bool(reasons) and not any(levels) and len(reasons) == 1 and bool(re.match(r"^\w+(Error|Exception)\b", next(iter(reasons))))


def register(app: typer.Typer) -> None:
    """Add this stage's commands to the `jiezi` app."""
    _register_explain(app)

    @app.command("space")
    def space(
        bench: Optional[str] = typer.Option(None, help="JieZi-Bench folder (Hub layout) or Hub id "
                                            "(env JIEZI_BENCH; default jiezi/bench)"),
        dataset: Optional[str] = typer.Option(None, help="JieZi-Dataset folder or Hub id (its `records` config is "
                                              "the retrieval gallery) (env JIEZI_DATASET; default jiezi/dataset)"),
        board: Optional[Path] = typer.Option(None, help="leaderboard folder (env JIEZI_BOARD)"),
        backend: list[str] = typer.Option([], "--backend", help="extra model spec offered in the exegesis tab, "
                                          "e.g. openai:MODEL@URL or hf:PATH (repeatable) (env JIEZI_BACKENDS)"),
        host: str = typer.Option("127.0.0.1", help="address to listen on (0.0.0.0 exposes it to the network)"),
        port: int = typer.Option(7860, help="port (0: the first free port from 7860)"),
        max_upload_mb: Optional[int] = typer.Option(None, help="largest upload accepted, MiB (env JIEZI_MAX_UPLOAD_MB; 50)"),
        bertscore_model: Optional[str] = typer.Option(None, help="BERTScore model of a new board, as in `jiezi "
                                                      "leaderboard submit` (env JIEZI_BERTSCORE_MODEL)"),
        judge: Optional[str] = typer.Option(None, help="EVOI judge of a new board (env JIEZI_JUDGE)"),
    ) -> None:
        """Run the JieZi Space locally: exegesis demo, dataset explorer, leaderboard, submission."""
        import os

        os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
        from space.app import launch
        from space.data import SpaceConfig

        try:
            config = SpaceConfig.from_env(bench=bench, dataset=dataset, board=board, backends=backend or None,
                                          max_upload_mb=max_upload_mb, bertscore_model=bertscore_model, judge=judge)
        except ValueError as exc:
            raise CLIError(str(exc)) from exc
        _, url, _ = launch(config, host=host, port=port or None, block=False)
        typer.echo(f"JieZi Space at {url} (bench {config.bench}, dataset {config.dataset}, board {config.board}); "
                   "Ctrl+C stops it")
        from space.app import block_until_interrupted

        block_until_interrupted()

    @app.command("space-bundle")
    def space_bundle(
        output: Path = typer.Option(..., help="folder to write the Hub Space into (must be empty or absent)"),
        repo_id: Optional[str] = typer.Option(None, help="also upload it to this Space repo (needs a token)"),
    ) -> None:
        """Write the Hub Space folder (app.py, README.md, requirements.txt, packages.txt and the
        packages it imports) and optionally upload it with huggingface_hub."""
        from space.bundle import BundleError, push, write_bundle

        with reraise_as_cli_error(BundleError, item=output):
            files = write_bundle(output)
        typer.echo(f"wrote {len(files)} files to {output}")
        if repo_id:
            url = push(output, repo_id)
            typer.echo(f"uploaded to {url}")


def _register_explain(app: typer.Typer) -> None:
    @app.command("explain")
    def explain(
        images: list[Path] = typer.Argument(..., help="glyph image files (PNG, JPEG, WebP), one glyph each"),
        model: str = typer.Option("fused", "--model", help="fused (PP-OCR + retrieval, default) | retrieval | ocr | "
                                  "openai:MODEL@BASE_URL | hf:PATH_OR_ID"),
        dataset: Optional[str] = typer.Option(None, "--dataset", help="JieZi-Dataset folder or Hub id: the retrieval "
                                              "gallery (default: env JIEZI_DATASET, else out/jiezi-dataset)"),
        as_json: bool = typer.Option(False, "--json", help="one JSON object per image (JSON Lines)"),
    ) -> None:
        """Explain glyph images on the four levels, or abstain ("cannot read this glyph").

        An image that cannot be read gets one error line and the others are still answered;
        exit status 0 when every image was answered, 1 when any could not be read, 2 when the
        model cannot start."""
        import json

        from hub.imageio import ImageRejected, open_image
        from space.backends import BackendUnavailable, Explainers
        from space.data import Resources, SpaceConfig
        from space.images import GlyphImageError, prepare

        config = SpaceConfig(dataset=dataset or default_dataset(), backends=[model])
        with reraise_as_cli_error(BackendUnavailable, item=f"--model {model}"):
            explainer = Explainers(Resources(config)).get(model)
        failed = unreachable = 0
        for path in images:
            try:  # one guarded open per file (hub/imageio.py): pixel cap, empty, truncated, undecodable
                item = explanation_json(str(path), explainer.explain(prepare(open_image(path))))
                unreachable += _model_failed(item)
            except ImageRejected as exc:  # one bad image never stops the rest
                failed += 1
                item = {"image": str(path), "error": exc.reason}
            except (OSError, GlyphImageError, ValueError) as exc:
                failed += 1
                item = {"image": str(path), "error": f"{type(exc).__name__}: {exc}"}
            typer.echo(json.dumps(item, ensure_ascii=False) if as_json else _explain_text(item))
        if unreachable:
            raise CLIError(f"answered none of {unreachable} image(s): it cannot be reached", item=f"--model {model}")
        if failed:
            raise typer.Exit(1)
