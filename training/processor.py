"""Load, build and save Qwen-VL processors, also on machines without torchvision.

Every Qwen-VL processor in transformers 5 (``Qwen2VLProcessor``, ``Qwen2_5_VLProcessor``,
``Qwen3VLProcessor``, which Qwen3.5 also uses) has three parts: a tokenizer, an image
processor and a *video* processor. The video processors need torchvision; the image
processors have a PIL backend that does not. Without torchvision, transformers fails in
three places even when no video is ever processed:

1. ``AutoProcessor.from_pretrained`` raises ``ImportError`` while loading the video part;
2. the processor's ``__init__`` rejects ``video_processor=None`` in its class check
   (``ProcessorMixin.check_argument_for_proper_class``);
3. ``processor.save_pretrained`` dereferences the missing video part.

This module is the one place that works around them: :func:`load_processor` (used by
training and by the evaluation harness's ``hf:`` backend), :func:`build_processor` (used by
the tiny test models) and :func:`save_processor`. With torchvision installed (the normal
GPU/NPU set-up) they are plain ``AutoProcessor`` / ``save_pretrained`` calls. Without it,
the processor is an instance of a subclass of the real class, with the same name, that
only (a) accepts ``video_processor=None`` and (b) saves its parts one by one; everything
else (chat template, image token expansion, ``apply_chat_template``) is the real class's.
Such a processor handles images and text; asking it to process a video raises
``AttributeError`` naming ``video_processor``.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

from transformers import AutoConfig, AutoImageProcessor, AutoTokenizer, ProcessorMixin

__all__ = ["build_processor", "load_processor", "save_processor", "video_free_class"]

# transformers' file names (transformers.utils.PROCESSOR_NAME / CHAT_TEMPLATE_FILE).
_PROCESSOR_FILE = "processor_config.json"
_CHAT_TEMPLATE_FILE = "chat_template.jinja"


@functools.cache
def video_free_class(processor_class: type[ProcessorMixin]) -> type[ProcessorMixin]:
    """Return a subclass of ``processor_class`` that accepts ``video_processor=None``.

    The subclass has the same ``__name__`` (so ``processor_config.json`` names the real
    class) and overrides only the constructor's class check and ``save_pretrained``.
    Raises ``TypeError`` when ``processor_class`` has no ``video_processor`` part.
    """
    if "video_processor" not in processor_class.get_attributes():
        raise TypeError(f"{processor_class.__name__} has no video_processor part; use it as is")
    parent = processor_class

    def check_argument_for_proper_class(self, argument_name: str, argument: Any):
        # The only relaxation: a missing video processor passes; every other part is checked.
        if argument_name == "video_processor" and argument is None:
            return None
        return parent.check_argument_for_proper_class(self, argument_name, argument)

    def save_pretrained(self, save_directory, push_to_hub: bool = False, **kwargs):
        if getattr(self, "video_processor", None) is not None:
            return parent.save_pretrained(self, save_directory, push_to_hub=push_to_hub, **kwargs)
        if push_to_hub:
            raise NotImplementedError(
                "push_to_hub of a processor without a video processor: save it to a folder, then push the "
                "folder with huggingface_hub.upload_folder"
            )
        return _save_parts(self, Path(save_directory))

    return type(
        parent.__name__,
        (parent,),
        {
            "check_argument_for_proper_class": check_argument_for_proper_class,
            "save_pretrained": save_pretrained,
            "__module__": __name__,
            "__doc__": f"{parent.__name__} without a video processor (see training/processor.py).",
        },
    )


def _save_parts(processor: ProcessorMixin, save_directory: Path) -> list[str]:
    # ProcessorMixin.save_pretrained, part by part, skipping the absent video processor.
    save_directory.mkdir(parents=True, exist_ok=True)
    processor_name = type(processor).__name__
    processor.tokenizer._set_processor_class(processor_name)
    processor.tokenizer.save_pretrained(save_directory)
    processor.image_processor.save_pretrained(save_directory)
    if isinstance(processor.chat_template, str):
        (save_directory / _CHAT_TEMPLATE_FILE).write_text(processor.chat_template, encoding="utf-8")
    # processor_config.json as ProcessorMixin writes it, minus the absent video part, so that a
    # machine with torchvision loads the folder with AutoProcessor (and a default video processor).
    config = {k: v for k, v in processor.to_dict().items() if v is not None}
    config["processor_class"] = processor_name
    out = save_directory / _PROCESSOR_FILE
    out.write_text(json.dumps(config, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return [str(out)]


def build_processor(
    processor_class: type[ProcessorMixin],
    *,
    tokenizer,
    image_processor,
    video_processor=None,
    chat_template: str | None = None,
) -> ProcessorMixin:
    """Build a Qwen-VL style processor from its parts.

    ``video_processor=None`` is allowed (it is the only option without torchvision): the
    result is then an instance of :func:`video_free_class` of ``processor_class``.
    """
    if video_processor is None and "video_processor" in processor_class.get_attributes():
        processor_class = video_free_class(processor_class)
        return processor_class(
            image_processor=image_processor, tokenizer=tokenizer, video_processor=None, chat_template=chat_template
        )
    return processor_class(
        image_processor=image_processor, tokenizer=tokenizer, video_processor=video_processor, chat_template=chat_template
    )


def _processor_class_name(path: str, processor_dict: dict, **kwargs) -> str:
    name = processor_dict.get("processor_class")
    if name:
        return name
    from transformers.models.auto.processing_auto import PROCESSOR_MAPPING_NAMES

    model_type = AutoConfig.from_pretrained(path, **kwargs).model_type
    if model_type not in PROCESSOR_MAPPING_NAMES:
        raise ValueError(f"{path}: no processor_class in {_PROCESSOR_FILE} and no processor known for model type {model_type!r}")
    return PROCESSOR_MAPPING_NAMES[model_type]


def load_processor(path_or_repo_id: str | os.PathLike, **kwargs) -> ProcessorMixin:
    """Load the processor of a VLM checkpoint (local folder or Hub id).

    ``AutoProcessor.from_pretrained`` first. When that fails on the video part (no
    torchvision, or a checkpoint saved without a video processor), loads the tokenizer
    (``AutoTokenizer``), the image processor (``AutoImageProcessor``, the PIL backend
    without torchvision) and the chat template, and builds the processor class named in
    the checkpoint's ``processor_config.json`` (else the one mapped to its model type) with
    ``video_processor=None`` (module docstring). ``kwargs`` go to every ``from_pretrained``
    call (``revision``, ``local_files_only``, ...).

    Raises ``OSError`` when the folder / repo has no processor files, ``ValueError`` when
    the processor class cannot be determined, and AutoProcessor's own error when the
    failure has nothing to do with the video processor.
    """
    from transformers import AutoProcessor
    from transformers.models.auto.processing_auto import processor_class_from_name

    path = str(path_or_repo_id)
    try:
        return AutoProcessor.from_pretrained(path, **kwargs)
    except (ImportError, OSError, ValueError, TypeError) as err:
        message = str(err).lower()
        if "video" not in message and "torchvision" not in message:
            raise
    processor_dict, _ = ProcessorMixin.get_processor_dict(path, **kwargs)
    class_name = _processor_class_name(path, processor_dict, **kwargs)
    processor_class = processor_class_from_name(class_name)
    if processor_class is None or "video_processor" not in processor_class.get_attributes():
        raise ValueError(f"{path}: cannot load processor class {class_name!r} without its video processor")
    tokenizer = AutoTokenizer.from_pretrained(path, **kwargs)
    image_processor = AutoImageProcessor.from_pretrained(path, **kwargs)
    chat_template = processor_dict.get("chat_template") or getattr(tokenizer, "chat_template", None)
    return build_processor(
        processor_class, tokenizer=tokenizer, image_processor=image_processor, chat_template=chat_template
    )


def save_processor(processor: ProcessorMixin, out_dir: str | os.PathLike) -> None:
    """Save ``processor`` to ``out_dir`` so that :func:`load_processor` (and, with
    torchvision, ``AutoProcessor``) reloads it. Same as ``processor.save_pretrained``."""
    processor.save_pretrained(str(out_dir))
