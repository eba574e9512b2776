"""Tiny, randomly initialised but real transformers checkpoints, written in the layouts users import."""

from __future__ import annotations

from pathlib import Path

import torch
from transformers import BertForSequenceClassification, BertTokenizerFast

from harness.checkpoints import MNLI_LABELS, STRUCTBERT_LABELS, BertShape, bert_nli, save_modelscope_structbert
from service.core.model_spec import ModelSpec

WORDS = (
    "the a an of to in on for with is was are be this that it my your order card refund ship shipping "
    "late broken price charged twice money account login password team game match won lost goal "
    "market stock shares bank phone laptop software update battery screen great terrible love hate "
    "please help thanks about example text sports business technology billing praise complaint "
    "inquiry weather music movie travel food health science politics"
).split()
# the spec `zsc import-model` stores for write_hf_nli's checkpoint (MNLI label order)
NLI_SPEC = ModelSpec(
    kind="nli",
    default_template="This example is {}.",
    max_length=128,
    source="test",
    revision="r1",
    entailment_index=2,
    contradiction_index=0,
)
CHINESE = list("我的订单退款发货快递价格质量手机电脑游戏体育股票房产教育科技社会时政娱乐财经很好不满意请问什么时候")


def write_vocab(path: Path) -> Path:
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    pieces = [f"##{c}" for c in "abcdefghijklmnopqrstuvwxyz"]
    vocab = specials + sorted(set(WORDS)) + list("abcdefghijklmnopqrstuvwxyz") + pieces + CHINESE + list(".,!?{}")
    path.write_text("\n".join(dict.fromkeys(vocab)) + "\n", encoding="utf-8")
    return path


def tiny_bert_nli(label2id: dict[str, int], seed: int = 0, vocab_size: int = 0) -> BertForSequenceClassification:
    model = bert_nli(BertShape(vocab_size, hidden=32, layers=2, heads=2, ffn=64, max_positions=128), label2id, seed)
    # random init puts logits near zero; spread them so scores differ visibly
    with torch.no_grad():
        model.classifier.weight.mul_(40)
    return model


def write_hf_nli(dst: Path, seed: int = 0) -> tuple[BertForSequenceClassification, BertTokenizerFast]:
    """Hugging Face layout, MNLI label order (contradiction 0, neutral 1, entailment 2)."""
    dst.mkdir(parents=True, exist_ok=True)
    tok = BertTokenizerFast(vocab_file=str(write_vocab(dst / "vocab.txt")), do_lower_case=True)
    tok.model_max_length = 128
    model = tiny_bert_nli(MNLI_LABELS, seed, len(tok))
    model.save_pretrained(str(dst))
    tok.save_pretrained(str(dst))
    return model, tok


def write_modelscope_structbert(dst: Path, seed: int = 1) -> tuple[BertForSequenceClassification, BertTokenizerFast]:
    """ModelScope StructBERT zero-shot layout (vocab.txt only). Returns the same model with named labels
    (entailment 0) as the reference for transformers' pipeline."""
    dst.mkdir(parents=True, exist_ok=True)
    tok = BertTokenizerFast(vocab_file=str(write_vocab(dst / "vocab.txt")), do_lower_case=True)
    tok.model_max_length = 128
    model = tiny_bert_nli(STRUCTBERT_LABELS, seed, len(tok))
    save_modelscope_structbert(model, dst)
    return model, tok
