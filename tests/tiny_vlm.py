"""Tiny, randomly initialised Qwen-VL checkpoints for CPU tests (no weights downloaded).

``build_tiny_vlm(family, out_dir)`` writes a complete checkpoint folder: a model built from
a config (2 text layers, hidden size 64; a 2-block vision tower; fixed seed), a byte-level
BPE tokenizer trained on the spot with ``tokenizers`` on a small Chinese + English ACCE
corpus (all label sets of ``metrics/acce/labels.py``) carrying the Qwen special tokens,
the family's real chat template (the copies TRL ships, so TRL recognises them, e.g. for
assistant-only loss), a Qwen2-VL image processor sized so a glyph image becomes a handful
of visual tokens, and the family's video processor with the same patch settings (every
Qwen-VL processor has one; JieZi never feeds it a video). Load it with::

    AutoModelForImageTextToText.from_pretrained(out_dir)
    AutoProcessor.from_pretrained(out_dir)

Families: ``qwen2_vl``, ``qwen2_5_vl``, ``qwen3_vl`` and ``qwen3_5`` (the paper's Qwen3.5
architecture, hybrid Gated-DeltaNet / full attention; slower on CPU, use it sparingly).
A build takes about a second; the folder is about 1 MB.

``build_tiny_jiezi_dataset(out_dir)`` writes a matching tiny JieZi-Dataset folder (Hub
layout, real parquet, glyphs rendered with a CJK font) for training tests.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

FAMILIES = ("qwen2_vl", "qwen2_5_vl", "qwen3_vl", "qwen3_5")

# Qwen special tokens, in the order the Qwen vocabularies list them (ids differ here).
SPECIAL_TOKENS = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|quad_start|>",
    "<|quad_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
)
# Qwen3 / Qwen3.5 chat templates also emit these (as plain added tokens).
QWEN3_EXTRA_TOKENS = ("<think>", "</think>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>")

# transformers' Qwen2 pre-tokenizer pattern, so the BPE merges match how Qwen2Tokenizer splits text.
_PRETOKENIZE_REGEX = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

# Processor / config / video processor classes per family (as in transformers' auto mappings),
# the TRL chat template each real checkpoint ships, and the vision patch size.
_FAMILY = {
    "qwen2_vl": ("Qwen2VLProcessor", "Qwen2VLConfig", "Qwen2VLVideoProcessor", "qwen2_5_vl_chat_template", 14),
    "qwen2_5_vl": ("Qwen2_5_VLProcessor", "Qwen2_5_VLConfig", "Qwen2VLVideoProcessor", "qwen2_5_vl_chat_template", 14),
    "qwen3_vl": ("Qwen3VLProcessor", "Qwen3VLConfig", "Qwen3VLVideoProcessor", "qwen3_vl_chat_template", 16),
    "qwen3_5": ("Qwen3VLProcessor", "Qwen3_5Config", "Qwen3VLVideoProcessor", "qwen3_5_nothink_chat_template", 16),
}


def acce_corpus() -> list[str]:
    """Chinese + English lines covering the ACCE vocabulary, for training the tiny tokenizer."""
    from metrics.acce import labels

    lines = []
    for table in (labels.SCRIPTS, labels.STRUCTURES, labels.FORMATIONS, labels.FUNCTIONS, labels.EVOLUTION_TYPES):
        for zh, en in table.items():
            lines.append(f"{zh}：{en}")
    lines += [f"{zh}（{en}）" for zh, en in labels.SUBTASK_NAMES.values()]
    lines += [f"{idc}{name}" for idc, name in labels.STRUCTURE_ZH.items()]
    lines += [
        "这个字形对应的现代汉字是什么？请只回答一个字。",
        "这个字形属于哪种书体？可选：甲骨文、金文、战国文字、篆书、隶书、楷书、草书、简体。",
        "这个字是什么结构？请用表意文字描述符回答。",
        "请列出这个字的构件，并说明每个构件的功能、解释和演变类型。",
        "这个字的造字法属于六书中的哪一种？",
        "这个字的本义是什么？",
        "请描述这个字从甲骨文到楷书的字形演变。",
        "江：从水，工声。本义为长江。形声字，左右结构。",
        "河：从水，可声。本义为黄河。",
        "人：象侧立之人形。象形字，独体字。",
        "休：从人依木。会意字，表示人在树下休息。",
        "上：指事字，以短画指示位置在上。",
        "What modern character does this glyph write? Answer with one character.",
        "Which script is this glyph written in? The script is seal script.",
        "The component 氵 (water) is semantic; 工 is phonetic. Evolution type: retention.",
        "Original meaning: the Yangtze River. Formation: phono-semantic compound.",
        "甲骨文 金文 战国文字 篆书 隶书 楷书 草书 简体 象形 指事 会意 形声 转注 假借 表意 表音 符号 保留 讹变 简化 繁化 区别",
    ]
    return lines


def _train_tokenizer(extra_tokens: tuple[str, ...]):
    """Byte-level BPE (vocab ~600) with the Qwen pre-tokenizer and special tokens; returns a Qwen2Tokenizer."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
    from transformers import Qwen2Tokenizer

    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(_PRETOKENIZE_REGEX), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=600,
        special_tokens=list(SPECIAL_TOKENS) + list(extra_tokens),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(acce_corpus() * 4, trainer)
    model = json.loads(tok.to_str())["model"]
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
    qwen_tokenizer = Qwen2Tokenizer(
        vocab=model["vocab"],
        merges=merges,
        unk_token=None,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        extra_special_tokens=[t for t in SPECIAL_TOKENS if t not in ("<|endoftext|>", "<|im_end|>")],
        model_max_length=32768,
    )
    # <think>, <tool_call>, ...: whole tokens that are not special (as in the Qwen3 vocabularies).
    qwen_tokenizer.add_tokens(list(extra_tokens))
    return qwen_tokenizer


def _config(family: str, tok, patch_size: int):
    import transformers

    ids = {name: tok.convert_tokens_to_ids(t) for name, t in (
        ("image_token_id", "<|image_pad|>"),
        ("video_token_id", "<|video_pad|>"),
        ("vision_start_token_id", "<|vision_start|>"),
        ("vision_end_token_id", "<|vision_end|>"),
    )}
    vocab_size = -(-len(tok) // 64) * 64
    hidden, heads = 64, 4
    text = dict(
        vocab_size=vocab_size,
        hidden_size=hidden,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=heads,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        bos_token_id=None,
        eos_token_id=tok.convert_tokens_to_ids("<|im_end|>"),
        pad_token_id=tok.pad_token_id,
        tie_word_embeddings=False,
    )
    head_dim = hidden // heads  # 16: multimodal RoPE splits its 8 frequencies over (t, h, w)
    if family in ("qwen2_vl", "qwen2_5_vl"):
        text["rope_parameters"] = {"rope_type": "default", "rope_theta": 1e6, "mrope_section": [4, 2, 2]}
    elif family == "qwen3_vl":
        text["head_dim"] = head_dim
        text["rope_parameters"] = {"rope_type": "default", "rope_theta": 5e6, "mrope_section": [4, 2, 2],
                                   "mrope_interleaved": True}
    else:  # qwen3_5: one linear-attention (Gated DeltaNet) layer, one full-attention layer
        text.update(head_dim=head_dim, layer_types=["linear_attention", "full_attention"],
                    linear_key_head_dim=16, linear_value_head_dim=16, linear_num_key_heads=2,
                    linear_num_value_heads=4, linear_conv_kernel_dim=4)
        text["rope_parameters"] = {"rope_type": "default", "rope_theta": 1e7, "mrope_section": [1, 1, 0],
                                   "mrope_interleaved": True, "partial_rotary_factor": 0.25}
    if family == "qwen2_vl":
        vision = dict(depth=2, embed_dim=32, hidden_size=hidden, num_heads=2, mlp_ratio=2,
                      patch_size=patch_size, spatial_merge_size=2, temporal_patch_size=2)
    elif family == "qwen2_5_vl":
        vision = dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=hidden,
                      patch_size=patch_size, spatial_merge_size=2, temporal_patch_size=2,
                      window_size=56, fullatt_block_indexes=[1])
    else:
        vision = dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=hidden,
                      patch_size=patch_size, spatial_merge_size=2, temporal_patch_size=2,
                      num_position_embeddings=64)
        if family == "qwen3_vl":
            vision["deepstack_visual_indexes"] = [1]
    config_class = getattr(transformers, _FAMILY[family][1])
    return config_class(text_config=text, vision_config=vision, tie_word_embeddings=False, **ids)


def build_tiny_vlm(family: str, out_dir: Path | str, *, seed: int = 0) -> Path:
    """Build and save a tiny random Qwen-VL checkpoint; return ``out_dir``.

    ``family``: one of ``FAMILIES``. The folder holds ``config.json``, ``model.safetensors``
    (fp32, ~0.3 M parameters), ``generation_config.json``, the tokenizer files,
    ``chat_template.jinja`` and the processor configs. Deterministic for a given ``seed``.
    Images are resized to 4-16 merged visual tokens (the image processor's
    ``min_pixels``/``max_pixels`` are set to 4 and 16 merge units of (patch*2)^2 pixels).
    Raises ``ValueError`` for an unknown family.
    """
    if family not in _FAMILY:
        raise ValueError(f"unknown tiny VLM family {family!r}; expected one of {FAMILIES}")
    import torch
    import transformers
    from transformers import AutoModelForImageTextToText, GenerationConfig, Qwen2VLImageProcessor
    from trl import chat_template_utils

    processor_name, _, video_processor_name, template_name, patch = _FAMILY[family]
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)

    tok = _train_tokenizer(QWEN3_EXTRA_TOKENS if family in ("qwen3_vl", "qwen3_5") else ())
    unit = (patch * 2) ** 2
    patches = {"patch_size": patch, "merge_size": 2, "temporal_patch_size": 2,
               "size": {"shortest_edge": 4 * unit, "longest_edge": 16 * unit},
               "image_mean": [0.5, 0.5, 0.5], "image_std": [0.5, 0.5, 0.5]}
    processor = getattr(transformers, processor_name)(
        image_processor=Qwen2VLImageProcessor(**patches),
        tokenizer=tok,
        video_processor=getattr(transformers, video_processor_name)(**patches),
        chat_template=getattr(chat_template_utils, template_name),
    )

    config = _config(family, tok, patch)
    torch.manual_seed(seed)
    model = AutoModelForImageTextToText.from_config(config, dtype=torch.float32)
    model.generation_config = GenerationConfig(
        eos_token_id=[tok.convert_tokens_to_ids("<|im_end|>"), tok.convert_tokens_to_ids("<|endoftext|>")],
        pad_token_id=tok.pad_token_id,
        do_sample=False,
        max_new_tokens=64,
    )
    model.save_pretrained(out_dir)
    processor.save_pretrained(out_dir)
    return out_dir


# --- a tiny JieZi-Dataset folder (Hub layout, ARCHITECTURE.md "JieZi-Dataset rows") -------------

# (character, script, structure, formation, original meaning, evolution): a few real facts.
_GLYPHS = (
    ("江", "篆书", "⿰", "形声", "长江", "篆书从水工声，隶变后水旁写作氵。"),
    ("河", "篆书", "⿰", "形声", "黄河", "篆书从水可声，楷书氵旁沿袭隶书写法。"),
    ("人", "甲骨文", "独体", "象形", "人", "甲骨文象侧立的人形，篆书笔画弯曲，隶书以后平直。"),
    ("休", "金文", "⿰", "会意", "休息", "金文从人依木，篆书人木并列，楷书沿用。"),
    ("上", "隶书", "独体", "指事", "高处，上面", "甲骨文以短画在长画之上示意，隶书加竖。"),
    ("木", "楷书", "独体", "象形", "树木", "甲骨文象树形，上为枝下为根，楷书定型。"),
    ("明", "楷书", "⿰", "会意", "光明", "甲骨文从日从月，一说从囧，楷书作日月。"),
    ("林", "篆书", "⿰", "会意", "平地丛生的树木", "从二木，历代字形变化很小。"),
)
_QUESTION_EN = {
    "CHAR": "Which modern character does this glyph write?",
    "SCRC": "Which script is this glyph written in?",
    "STRC": "What is the structure of this character?",
    "FORC": "Which of the Six Writings formed this character?",
    "ORIM": "What is the original meaning of this character?",
    "EVOI": "Describe how this character's form evolved.",
}
_LEVEL_OF = {"CHAR": "L1", "SCRC": "L1", "STRC": "L2", "FORC": "L2", "ORIM": "L3", "EVOI": "L4"}


def cjk_font_path() -> str:
    """Path of an installed font with CJK coverage (Noto CJK via fontconfig, else a Debian path).

    Raises ``FileNotFoundError`` when none is installed (``make setup`` installs them)."""
    import shutil
    import subprocess

    if shutil.which("fc-match"):
        out = subprocess.run(["fc-match", "-f", "%{file}", "Noto Sans CJK SC:lang=zh-cn"],
                             capture_output=True, text=True, check=False).stdout.strip()
        if out and Path(out).is_file() and ("CJK" in out or "wqy" in out.lower()):
            return out
    for candidate in ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
                      "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc",
                      "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
                      "/usr/share/fonts/truetype/arphic/uming.ttc"):
        if Path(candidate).is_file():
            return candidate
    raise FileNotFoundError("no CJK font installed (apt-get install fonts-noto-cjk)")


def render_glyph(character: str, size: int = 96):
    """A black-on-white rendering of ``character`` (PIL RGB image, ``size`` x ``size``)."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(cjk_font_path(), int(size * 0.8))
    image = Image.new("RGB", (size, size), "white")
    ImageDraw.Draw(image).text((size / 2, size / 2), character, font=font, fill="black", anchor="mm")
    return image


def _turns(character: str, script: str, structure: str, formation: str, meaning: str, evolution: str):
    return [
        ("CHAR", "这个字形对应的现代汉字是什么？", character),
        ("SCRC", "这个字形属于哪种书体？可选：甲骨文、金文、战国文字、篆书、隶书、楷书、草书、简体。", script),
        ("STRC", "这个字是什么结构？", structure),
        ("FORC", "这个字的造字法属于六书中的哪一种？", formation),
        ("ORIM", "这个字的本义是什么？", f"本义为{meaning}。"),
        ("EVOI", "请描述这个字的字形演变。", evolution),
    ]


def build_tiny_jiezi_dataset(out_dir: Path | str, *, copies: int = 2) -> Path:
    """Write a small JieZi-Dataset folder in Hub layout; return ``out_dir``.

    ``len(_GLYPHS) * copies`` rows (one per glyph image: copy ``k`` is rendered at a
    different size, so every image is distinct), configs ``L1``..``L4`` and ``all`` (turns
    of that level only), split ``train``, files ``<config>/train-00000-of-00001.parquet``
    and a README.md whose YAML ``configs:`` lets ``load_dataset(out_dir, config)`` find them.
    Real parquet with ``datasets`` Image features; glyphs rendered with a CJK font.
    """
    import datasets

    out_dir = Path(out_dir)
    messages_feature = datasets.List({
        "role": datasets.Value("string"),
        "content": datasets.List({"type": datasets.Value("string"), "text": datasets.Value("string")}),
    })
    features = datasets.Features({
        "id": datasets.Value("string"),
        "images": datasets.List(datasets.Image()),
        "messages": messages_feature,
        "messages_en": messages_feature,
        "character": datasets.Value("string"),
        "script": datasets.Value("string"),
        "subtasks": datasets.List(datasets.Value("string")),
        "provenance": datasets.Value("string"),
    })
    configs = ("L1", "L2", "L3", "L4", "all")
    rows: dict[str, list[dict]] = {c: [] for c in configs}
    for copy in range(copies):
        for n, glyph in enumerate(_GLYPHS):
            character, script = glyph[0], glyph[1]
            image = render_glyph(character, size=64 + 32 * copy)
            image_id = f"{script}-{ord(character):05X}-{copy}"
            for config in configs:
                turns = [t for t in _turns(*glyph) if config == "all" or _LEVEL_OF[t[0]] == config]
                messages, messages_en = [], []
                for k, (code, question, answer) in enumerate(turns):
                    for out, q in ((messages, question), (messages_en, _QUESTION_EN[code])):
                        content = [{"type": "text", "text": q}]
                        if k == 0:
                            content.insert(0, {"type": "image", "text": None})
                        out.append({"role": "user", "content": content})
                        out.append({"role": "assistant", "content": [{"type": "text", "text": answer}]})
                rows[config].append({
                    "id": image_id, "images": [image], "messages": messages, "messages_en": messages_en,
                    "character": character,
                    "script": script, "subtasks": [t[0] for t in turns],
                    "provenance": json.dumps([{"source": "tests/tiny_vlm.py", "entry_id": character}] * len(turns),
                                             ensure_ascii=False),
                })
    yaml_lines = ["---", "configs:"]
    for config in configs:
        path = out_dir / config / "train-00000-of-00001.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        datasets.Dataset.from_list(rows[config], features=features).to_parquet(str(path))
        yaml_lines += [f"- config_name: {config}", "  data_files:", "  - split: train",
                       f"    path: {config}/train-*.parquet"]
        if config == "all":
            yaml_lines.append("  default: true")
    yaml_lines += ["---", "", "# tiny JieZi-Dataset (test fixture)", ""]
    (out_dir / "README.md").write_text("\n".join(yaml_lines), encoding="utf-8")
    return out_dir


if __name__ == "__main__":  # python tests/tiny_vlm.py FAMILY OUT_DIR
    import sys

    sys.path.insert(0, os.fspath(Path(__file__).resolve().parent.parent))
    print(build_tiny_vlm(sys.argv[1], Path(sys.argv[2])))
