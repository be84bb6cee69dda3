"""The training command line: TRL's ``trl sft`` parser plus the JieZi arguments.

Shared by :mod:`training.sft` (the run) and :mod:`training.plan` (the dry run), so that a
recipe parses the same way in both.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class JieZiArguments:
    """JieZi-specific arguments (not known to ``trl sft``; use them with this entry point).

    ``subset``: fraction of JieZi-Dataset rows (glyph images with their QA turns) to train
    on, in (0, 1]; the paper's data-scaling runs use 0.25, 0.5, 0.75 and 1.0, and subsets
    with the same ``subset_seed`` are nested (see ``training/data.py``).
    """

    subset: float = field(default=1.0, metadata={"help": "Fraction of JieZi-Dataset rows (nested subsets), in (0, 1]."})
    subset_seed: int = field(default=0, metadata={"help": "Seed of the nested-subset order."})


def make_parser(prog: str | None = None):
    """TRL's ``trl sft`` parser plus :class:`JieZiArguments`."""
    from trl import DatasetMixtureConfig, ModelConfig, ScriptArguments, SFTConfig, TrlParser

    return TrlParser((ScriptArguments, SFTConfig, ModelConfig, DatasetMixtureConfig, JieZiArguments), prog=prog)


def parse(args: list[str] | None = None):
    """Parse ``args`` (default ``sys.argv[1:]``) into the five argument dataclasses.

    Unknown keys in a ``--config`` YAML or on the command line raise ``ValueError`` /
    ``SystemExit`` (argparse), as ``trl sft`` does."""
    return make_parser().parse_args_and_config(args)
