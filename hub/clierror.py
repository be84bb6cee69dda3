"""The one error of the ``jiezi`` command line: :class:`CLIError`.

A command raises it when it cannot do what was asked (a bad flag, an unreadable input, a
rejected submission); ``jiezi_cli.py`` wraps every registered command so that a
:class:`CLIError` prints one line on stderr and exits with status 2::

    jiezi leaderboard submit: out/eval/m/predictions.jsonl: line 3: field 'output' must be a string or null

that is ``<command>: <item>: <field>: <what is wrong>``, the item (the flag, file, folder,
row or model the command was handling) and the field (the part of it at fault) when known.
Errors of the stages below the CLI (``RunError``, ``BenchError``, ``SubmissionError`` ...)
become one with :func:`reraise_as_cli_error`. This module imports nothing heavy, so the
command modules import it at the top.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

EXIT_STATUS = 2


class CLIError(Exception):
    """A command cannot run as asked (exit status :data:`EXIT_STATUS`). ``message`` says
    what is wrong; ``item`` names what was being handled (``--protocol``, a file, a row),
    ``field`` the part of it at fault; ``str()`` joins the three with ``": "``."""

    exit_status = EXIT_STATUS

    def __init__(self, message: str, *, item: object = None, field: object = None):
        super().__init__(message)
        self.message, self.item, self.field = message, item, field

    def __str__(self) -> str:
        return ": ".join(str(p) for p in (self.item, self.field, self.message) if p not in (None, ""))


@contextmanager
def reraise_as_cli_error(*errors: type[BaseException], item: object = None) -> Iterator[None]:
    """Turn an exception of ``errors`` raised in the block into a :class:`CLIError` with its
    message (and ``item`` when given); other exceptions pass unchanged."""
    try:
        yield
    except CLIError:
        raise
    except errors as exc:
        raise CLIError(str(exc), item=item) from exc
