"""The tracing audit of ``commons-acc-png`` drawings: Commons file title -> verdict.

``"ok"``: an independent reviewer looked at the drawing (contact sheets, re-looked at full
size where unsure) and it draws an early form of the character its title names, in the
labelled script, legibly. ``"wrong: ..."`` (another character's graph, a component
diagram that reads as another character) and ``"doubtful: ..."`` (unsure identification,
illegible) leave the drawing out of every build, with the reviewer's reason (logged as
``glyph-audited-out``). A drawing with no verdict is JieZi-Dataset material only: the bench
takes reviewed drawings alone (``builder/qa/bench_select.py``). The ``commons-ancient``
list (:mod:`builder.glyphs.commons_ancient_audit`) applies to the same titles here.
The verdicts live in ``commons_acc_audit.json`` beside this module (title -> verdict);
being this module's data file, an edit there changes the records stage's code key
(:func:`builder.codekey.code_digest`) and rebuilds it.
"""

# title -> "ok" / "wrong: ..." / "doubtful: ..."
import json
from pathlib import Path

# Verdicts of an independent review (2026-12-02): round 1, the 954 drawings the first bench
# selection with the new source would take (x AUDIT_MARGIN), three reviewers; round 2, the 431
# the selection named next (qa/tracing_review.jsonl), three other reviewers. Round 3
# (2026-12-04): 614 small-seal drawings whose records can be asked every seal L2 question
# (all with another formation than 形声, 300 形声 with another layout than ⿰, 150 ⿰ 形声),
# three new reviewers: 610 ok, 3 wrong, 1 doubtful. Contact sheets of 48, enlarged originals
# where unsure. Round 4 (2026-12-04), from the form audit of 622 early-form drawings
# (builder/qa/form_audit.py; four reviewers, then a second reviewer on every drawing whose
# composition differs from Shuowen's): a drawing of the graph another character is (中 for 仲,
# 白 for 伯, 冬 for 終, 且 for 祖) is wrong, as in the earlier rounds; an unreviewed drawing the
# form audit found to be its character is ok.
AUDITED: dict[str, str] = json.loads((Path(__file__).with_suffix(".json")).read_text("utf-8"))
