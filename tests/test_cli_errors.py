"""The one CLI error type (hub.clierror.CLIError): every `jiezi` command prints it as
``<command>: <item>: <field>: <message>`` on stderr and exits with status 2."""

from __future__ import annotations

from typer.testing import CliRunner

import jiezi_cli
from hub.clierror import CLIError
from jiezi_cli import app


def _commands(typer_app, prefix="jiezi"):
    for info in typer_app.registered_commands:
        yield f"{prefix} {info.name or info.callback.__name__}", info.callback
    for group in typer_app.registered_groups:
        sub = group.typer_instance
        if sub.registered_callback is not None and sub.registered_callback.callback is not None:
            yield f"{prefix} {group.name}", sub.registered_callback.callback
        yield from _commands(sub, f"{prefix} {group.name}")


def test_every_command_is_wrapped():
    wrapped = {name: getattr(cb, "__wrapped__", None) is not None for name, cb in _commands(app)}
    assert len(wrapped) > 15 and all(wrapped.values()), [n for n, ok in wrapped.items() if not ok]


def test_the_message_names_command_item_and_field(tmp_path):
    assert str(CLIError("expected a or b", item="--flag", field="'x'")) == "--flag: 'x': expected a or b"
    res = CliRunner().invoke(app, ["eval", "--model", "retrieval", "--bench", str(tmp_path), "-o", str(tmp_path / "o"),
                                   "--protocol", "nope"])
    assert res.exit_code == 2
    assert "jiezi eval: --protocol: 'nope': expected per-question or paper" in res.output
    res = CliRunner().invoke(app, ["leaderboard", "verify", "abcdef", "--board", str(tmp_path)])
    assert res.exit_code == 2 and res.output.startswith("jiezi leaderboard verify: row 'abcdef': no row")
    assert jiezi_cli._exits_on_cli_error  # the one place that turns CLIError into exit status 2


def test_a_missing_source_cache_is_one_line_not_a_traceback(tmp_path):
    # fresh-user trial of c09a032: `jiezi build --sources /nonexistent` printed a 76-line traceback
    res = CliRunner().invoke(app, ["build", "--output", str(tmp_path / "out"), "--sources", str(tmp_path / "none")])
    assert res.exit_code == 2, res.output
    assert "jiezi build: --sources: source cache" in res.output and "does not exist" in res.output
    assert "Traceback" not in res.output and len(res.output.splitlines()) <= 3, res.output


def test_a_missing_local_folder_is_not_asked_of_the_hub(tmp_path, monkeypatch):
    # fresh-user trial of 019cd92: a mistyped `out/...` path waited 25 s through Hub retries
    import pytest as _pytest

    from hub.read import load_hub_layout, looks_local

    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    assert looks_local("out/jiezi-bench") and looks_local("./x") and looks_local("/abs/x") and looks_local("a/b/c")
    assert not looks_local("jiezi/bench")  # an owner/name whose owner is no local folder stays a repo id
    with _pytest.raises(FileNotFoundError, match="no such folder"):
        load_hub_layout("out/jiezi-bench", "L1", "test")


def test_an_output_folder_that_is_a_file_is_one_line(tmp_path):
    # fresh-user trial of c4a44a5: FileExistsError / NotADirectoryError tracebacks
    f = tmp_path / "afile"
    f.write_text("x")
    res = CliRunner().invoke(app, ["lmms-tasks", "--output", str(f)])
    assert res.exit_code == 2 and "Not a directory" in res.output and "Traceback" not in res.output, res.output
