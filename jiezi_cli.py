"""The ``jiezi`` command: one entry point for every stage of the flow.

sources -> records -> QA pairs -> published dataset/bench -> scores. Each stage package
owns its commands in its own ``cli.py`` and exposes ``register(app)``; this module only
composes them, so stages stay independent and start-up stays cheap (heavy imports
happen inside the command functions).
"""

from __future__ import annotations

import functools
import importlib
import os
import signal
import sys

import typer

from hub.clierror import CLIError

app = typer.Typer(
    name="jiezi",
    help="JieZi: Ancient Chinese Character Exegesis (ACCE) on the Hugging Face stack.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)


# A progress bar redrawn ten times a second turns a CI or nohup log into megabytes of
# carriage returns. tqdm reads its TQDM_* defaults once, when it is first imported (tqdm.utils
# .envwrap binds them into tqdm.__init__), and the stage modules below import it: so this must
# run before them. When stderr is not a terminal, bars redraw every 30 s at most (datasets',
# transformers' and huggingface_hub's bars too); a user's own TQDM_MININTERVAL wins.
if not sys.stderr.isatty():
    os.environ.setdefault("TQDM_MININTERVAL", "30")


@app.callback()
def _main() -> None:
    """JieZi: Ancient Chinese Character Exegesis (ACCE) on the Hugging Face stack."""


# Stage packages, in flow order.
_STAGES = ("builder.cli", "harness.cli", "training.cli", "space.cli")

for _name in _STAGES:
    importlib.import_module(_name).register(app)


def _exits_on_cli_error(callback, command: str):
    """``callback`` that prints a :class:`hub.clierror.CLIError` as ``<command>: <error>`` on
    stderr and exits with status 2 (one place for every command's error block)."""

    @functools.wraps(callback)  # typer reads the parameters from the wrapped signature
    def run(*args, **kwargs):
        try:
            return callback(*args, **kwargs)
        except CLIError as exc:
            typer.echo(f"{command}: {exc}", err=True)
            raise typer.Exit(exc.exit_status) from exc
        except (FileExistsError, NotADirectoryError, IsADirectoryError) as exc:
            if exc.filename is None:
                raise
            # an output folder given as an existing file, or the reverse (fresh-user trial of
            # c4a44a5: `jiezi eval/build --output FILE` printed a traceback)
            typer.echo(f"{command}: {exc.filename}: {exc.strerror} (a folder path was expected where a file is, "
                       "or the reverse)", err=True)
            raise typer.Exit(CLIError.exit_status) from exc

    return run


def _wrap_commands(typer_app: typer.Typer, prefix: str) -> None:
    """Wrap every command (and group callback) registered under ``typer_app`` with
    :func:`_exits_on_cli_error`, naming it ``prefix`` + its command path."""
    for info in typer_app.registered_commands:
        name = info.name or info.callback.__name__.replace("_", "-")
        info.callback = _exits_on_cli_error(info.callback, f"{prefix} {name}")
    for group in typer_app.registered_groups:
        sub = group.typer_instance
        name = f"{prefix} {group.name or sub.info.name}"
        if sub.registered_callback is not None and sub.registered_callback.callback is not None:
            sub.registered_callback.callback = _exits_on_cli_error(sub.registered_callback.callback, name)
        _wrap_commands(sub, name)


_wrap_commands(app, "jiezi")


def main() -> None:
    """Console entry point (``jiezi``): runs :data:`app`; on Ctrl-C says how to resume.

    Every long job (build, eval, audit) keeps finished work on disk and skips it when the
    same command is run again, so an interruption is only a pause. SIGTERM is handled like
    Ctrl-C. Exit status 130 on either (typer's convention), otherwise the command's own.
    """
    main_pid = os.getpid()

    def _terminate(signum, frame):
        # `kill PID` should stop a build as Ctrl-C does: unwind, let the worker pools drop
        # their queued work and exit, instead of dying at once and orphaning the workers.
        # Forked workers inherit this handler; they keep the default behaviour.
        if os.getpid() != main_pid:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _terminate)
    try:
        app()
    except SystemExit as exc:
        if exc.code == 130:
            print("\ninterrupted: finished work is kept; run the same command again to resume", file=sys.stderr)
        raise


if __name__ == "__main__":  # pragma: no cover
    main()
