"""`jiezi explain` exit status: a model that answers nothing at all is "cannot be reached"
(exit 2, README), a glyph it merely cannot read is not."""

from space.cli import _model_failed


def _item(levels, unanswered):
    return {"levels": {"L1": dict(levels)}, "unanswered": unanswered}


def test_every_level_failing_with_one_backend_error_is_an_unreachable_model():
    down = {k: "APIConnectionError: Connection error." for k in ("CHAR", "SCRC", "ORIM")}
    assert _model_failed(_item({"CHAR": None, "SCRC": None}, down))


def test_an_abstention_or_a_partial_answer_is_not():
    assert not _model_failed(_item({"CHAR": None}, {"CHAR": "cannot read this glyph (confidence 0.10)"}))
    assert not _model_failed(_item({"CHAR": "江", "SCRC": None}, {"SCRC": "TimeoutError: read timed out"}))
    assert not _model_failed(_item({"CHAR": None}, {}))
