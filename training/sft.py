"""TRL SFT on JieZi-Dataset: ``trl sft`` plus nested data subsets and a run record.

Run (one device)::

    python -m training.sft --config training/recipes/qwen3_5-2b.yaml [--subset 0.25]

Run (8 devices; ``jiezi train run`` builds this command)::

    accelerate launch --config_file training/accelerate/npu-8-fsdp.yaml training/sft.py \\
        --config training/recipes/qwen3_5-2b.yaml

It parses exactly what ``trl sft`` parses (``ScriptArguments``, ``SFTConfig``,
``ModelConfig``, ``DatasetMixtureConfig``, with TRL's own ``TrlParser``) plus
:class:`JieZiArguments` (``subset``, ``subset_seed``), and then does what TRL's
``trl/scripts/sft.py`` does, with four differences:

- the dataset named by ``dataset_name`` is loaded as JieZi-Dataset (rows checked, bad rows
  skipped and listed in ``OUTPUT_DIR/skipped.jsonl``, the nested subset drawn);
- the processor is loaded before the trainer (``AutoProcessor.from_pretrained``, as
  ``SFTTrainer`` would) so that ``max_length`` is checked against the rows' image tokens
  before any model is loaded;
- the model loads with ``device_map=None`` whenever more than one process runs (TRL 1.16
  only does that for ``MULTI_GPU``/``DEEPSPEED``, not for ``MULTI_NPU`` or FSDP);
- ``OUTPUT_DIR/jiezi_run.json`` records the run (recipe, data, subset, resolved settings,
  steps, final loss; ``status`` "running" until the model is saved), which
  ``jiezi train card`` turns into a model card.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file by `accelerate launch training/sft.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hub.atomic import atomic_write_json  # noqa: E402  (after the path set-up above)
from hub.skips import SkipLog  # noqa: E402
from training.arguments import JieZiArguments, make_parser, parse  # noqa: E402,F401  (re-exported)
from training.data import load_jiezi_dataset  # noqa: E402
from training.plan import check_max_length  # noqa: E402

RUN_RECORD = "jiezi_run.json"
SKIPPED_FILE = "skipped.jsonl"

# Settings copied into the run record and the model card (SFTConfig / ModelConfig names).
RECORDED_SETTINGS = (
    "learning_rate", "lr_scheduler_type", "warmup_steps", "weight_decay", "optim", "adam_beta1", "adam_beta2",
    "adam_epsilon", "max_grad_norm", "num_train_epochs", "max_steps", "per_device_train_batch_size",
    "gradient_accumulation_steps", "bf16", "max_length", "truncation_mode", "assistant_only_loss",
    "activation_checkpointing", "seed",
)
RECORDED_MODEL_SETTINGS = ("model_name_or_path", "model_revision", "dtype", "use_peft", "lora_r", "lora_alpha",
                           "lora_dropout", "lora_target_modules")


def _settings(training_args, model_args) -> dict:
    settings = {k: getattr(training_args, k) for k in RECORDED_SETTINGS}
    settings.update({k: getattr(model_args, k) for k in RECORDED_MODEL_SETTINGS})
    return {k: (v.value if hasattr(v, "value") else v) for k, v in settings.items()}


def _set_model_init_kwargs(training_args, model_args, num_processes: int) -> None:
    """Fill ``training_args.model_init_kwargs`` as ``trl sft`` does, with ``device_map=None``
    whenever more than one process runs (TRL only does that for MULTI_GPU / DEEPSPEED)."""
    model_init_kwargs = dict(
        revision=model_args.model_revision,
        trust_remote_code=training_args.trust_remote_code,
        attn_implementation=model_args.attn_implementation,
        dtype=model_args.dtype,
    )
    if num_processes > 1:
        model_init_kwargs["device_map"] = None
    if training_args.model_init_kwargs is not None:
        model_init_kwargs.update(training_args.model_init_kwargs)
    training_args.model_init_kwargs = model_init_kwargs


def _train_dataset(state, script_args, dataset_args, jiezi_args, skips: SkipLog):
    """``(train_dataset, summary)``: JieZi-Dataset checked and subset (``summary`` its
    :class:`training.data.DatasetSummary`), or a TRL ``datasets`` mixture (``summary`` None).
    Raises ``ValueError`` for a subset of a mixture or when no dataset is named."""
    from trl import get_dataset

    if dataset_args.datasets:
        if jiezi_args.subset != 1:
            raise ValueError("subset works with dataset_name (JieZi-Dataset), not with a TRL `datasets` mixture")
        return get_dataset(dataset_args)[script_args.dataset_train_split], None
    if not script_args.dataset_name:
        raise ValueError("set dataset_name (a JieZi-Dataset folder or Hub id) or `datasets`")
    with state.main_process_first():  # one process checks rows and fills the datasets cache
        return load_jiezi_dataset(
            script_args.dataset_name, script_args.dataset_config or "all", script_args.dataset_train_split,
            subset=jiezi_args.subset, subset_seed=jiezi_args.subset_seed, skips=skips,
            progress=state.is_main_process,
        )


def _start_record(training_args, model_args, dataset_args, summary, skips: SkipLog, config_path,
                  overrides) -> dict:
    """The run record as written before training (``status`` "running")."""
    return {
        "status": "running",
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "recipe": str(config_path) if config_path else None,
        "recipe_text": Path(config_path).read_text(encoding="utf-8") if config_path else None,
        "overrides": list(overrides or []),
        "base_model": model_args.model_name_or_path,
        "dataset": summary.as_dict() if summary else {"datasets": [d.__dict__ for d in dataset_args.datasets]},
        "settings": _settings(training_args, model_args),
        "world_size": training_args.world_size,
        "global_batch": training_args.per_device_train_batch_size
        * training_args.gradient_accumulation_steps * training_args.world_size,
        "skipped_rows": len(skips),
    }


def _finish_record(record: dict, trainer, result) -> dict:
    """``record`` completed with steps, epochs, losses, runtime and package versions."""
    losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
    record.update(
        status="completed",
        finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        global_steps=trainer.state.global_step,
        epochs=trainer.state.epoch,
        train_loss=result.training_loss,
        first_logged_loss=losses[0] if losses else None,
        last_logged_loss=losses[-1] if losses else None,
        train_runtime_s=result.metrics.get("train_runtime"),
        versions=_versions(),
    )
    return record


def main(script_args, training_args, model_args, dataset_args, jiezi_args, *, callbacks=None, config_path=None,
         overrides: list[str] | None = None):
    """Train; return the ``SFTTrainer`` (its ``state.log_history`` holds the losses).

    Writes the model (or LoRA adapter) and processor to ``training_args.output_dir``, plus
    ``jiezi_run.json`` and ``skipped.jsonl``. Raises ``ValueError`` for a subset used with
    a TRL ``datasets`` mixture, or when ``max_length`` cannot hold a row's image tokens.
    """
    from accelerate import PartialState
    from transformers import AutoProcessor
    from trl import SFTTrainer, get_peft_config, get_quantization_config

    state = PartialState()
    output_dir = Path(training_args.output_dir)
    model_id = model_args.model_name_or_path
    if not model_id:
        raise ValueError("model_name_or_path is required (in the recipe or on the command line)")
    _set_model_init_kwargs(training_args, model_args, state.num_processes)
    skips = SkipLog()
    train_dataset, summary = _train_dataset(state, script_args, dataset_args, jiezi_args, skips)
    processor = AutoProcessor.from_pretrained(model_id, revision=model_args.model_revision,
                                              trust_remote_code=training_args.trust_remote_code)
    if summary is not None:
        check_max_length(training_args.max_length, summary.image_sizes, processor)
    trainer = SFTTrainer(
        model=model_id,
        args=training_args,
        train_dataset=train_dataset,
        processing_class=processor,
        peft_config=get_peft_config(model_args),
        quantization_config=get_quantization_config(model_args),
        callbacks=callbacks,
    )
    record = _start_record(training_args, model_args, dataset_args, summary, skips, config_path, overrides)
    if state.is_main_process:
        output_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_json(output_dir / RUN_RECORD, record, indent=2, default=str)
        if len(skips):
            skips.write(output_dir / SKIPPED_FILE)

    resume = training_args.resume_from_checkpoint
    if isinstance(resume, str) and resume.lower() in ("true", "last"):
        resume = True  # the Trainer then picks the last checkpoint-* of output_dir
    result = trainer.train(resume_from_checkpoint=resume)
    trainer.save_model(training_args.output_dir)  # model or adapter, and the processor
    if state.is_main_process:
        atomic_write_json(output_dir / RUN_RECORD, _finish_record(record, trainer, result), indent=2, default=str)
    if hasattr(trainer, "end"):  # transformers >= 5.18: finish trackers, tear down the process group
        trainer.end()
    return trainer


def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in ("torch", "torch_npu", "transformers", "trl", "peft", "accelerate", "datasets"):
        try:
            out[name] = version(name.replace("_", "-"))
        except PackageNotFoundError:
            continue
    return out


def cli(argv: list[str] | None = None) -> None:
    """Entry point of ``python -m training.sft`` / ``accelerate launch training/sft.py``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    config_path, overrides = None, argv
    if "--config" in argv:
        at = argv.index("--config")
        config_path, overrides = argv[at + 1], argv[:at] + argv[at + 2:]
    main(*parse(argv), config_path=config_path, overrides=overrides)


if __name__ == "__main__":
    cli()
