"""The engine's tokenizer against transformers' own calls (the calls the engine made through transformers
before it read the Rust tokenizer directly): every output the engine uses, on texts that cut, fall back and
meet special cases."""

from __future__ import annotations

import shutil
from pathlib import Path

from transformers import AutoTokenizer

from service.engine.tokenization import SERVING_FACTS, Tokenizer, write_serving_facts

TEXTS = [
    "The striker scored twice in the cup final.",
    "央行宣布下调存款准备金率，股市应声大涨",
    "Mixed 中文 and English, ÉLAN café naïve — “quotes” ½ ① 😀👍🏽",
    "   leading   and  inner   spaces\tand\ttabs\nnew line  ",
    "",
    "a",
    "word " * 300,  # past any max_length here
    "长文本" * 200,
    "<s> </s> [CLS] [SEP] <pad> [PAD] literal specials",
]
HYPOTHESES = ["This text is about sports.", "这段文字是关于财经的。", "x " * 40]


def served_copy(source: str | Path, tmp: Path) -> Path:
    """The model folder's tokenizer files, with the record the importer writes beside them."""
    dst = tmp / "tokenizer"
    shutil.copytree(source, dst, ignore=shutil.ignore_patterns("*.safetensors", "*.bin", "*.onnx*", "onnx", "openvino"))
    (dst / SERVING_FACTS).unlink(missing_ok=True)
    write_serving_facts(dst)
    return dst


def assert_same_as_transformers(path: Path, max_length: int) -> None:
    hf = AutoTokenizer.from_pretrained(str(path), use_fast=True)
    if hf.pad_token_id is None:
        hf.pad_token = hf.eos_token
    ours = Tokenizer.load(path, max_length)
    assert (path / SERVING_FACTS).is_file()  # read without transformers
    types = "token_type_ids" in hf.model_input_names
    assert (ours.pad_id, ours.has_types) == (hf.pad_token_id, types)

    want = hf(TEXTS, truncation=True, max_length=max_length, padding=False, return_token_type_ids=types)
    got = ours.encode_texts(TEXTS)
    assert got.ids == want["input_ids"]
    assert got.type_ids == (want["token_type_ids"] if types else None)

    premises = [t for t in TEXTS for _ in HYPOTHESES]
    hypotheses = HYPOTHESES * len(TEXTS)
    got = ours.encode_pairs(premises, hypotheses)
    for i, (p, h) in enumerate(zip(premises, hypotheses)):
        try:
            one = hf(p, h, truncation="only_first", max_length=max_length, return_token_type_ids=types)
        except Exception as exc:  # the hypothesis alone is longer than max_length: not cut
            assert "too short" in str(exc)
            one = hf(p, h, truncation=False, return_token_type_ids=types)
        assert got.ids[i] == one["input_ids"], (p[:40], h[:40])
        if types:
            assert got.type_ids[i] == one["token_type_ids"]

    plain = hf(TEXTS, add_special_tokens=False, truncation=False)
    assert ours.counts(TEXTS) == [len(ids) for ids in plain["input_ids"]]
    for text in TEXTS:
        spans = hf(text, add_special_tokens=False, truncation=False, return_offsets_mapping=True)["offset_mapping"]
        assert ours.offsets(text) == [tuple(s) for s in spans]
    assert [ours.specials(False), ours.specials(True)] == [hf.num_special_tokens_to_add(p) for p in (False, True)]
