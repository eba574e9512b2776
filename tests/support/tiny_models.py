"""Tiny, randomly initialised but real transformers checkpoints, written in the layouts users import."""

from __future__ import annotations

import json
from pathlib import Path

import torch
from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

WORDS = (
    "the a an of to in on for with is was are be this that it my your order card refund ship shipping "
    "late broken price charged twice money account login password team game match won lost goal "
    "market stock shares bank phone laptop software update battery screen great terrible love hate "
    "please help thanks about example text sports business technology billing praise complaint "
    "inquiry weather music movie travel food health science politics"
).split()
CHINESE = list("我的订单退款发货快递价格质量手机电脑游戏体育股票房产教育科技社会时政娱乐财经很好不满意请问什么时候")


def write_vocab(path: Path) -> Path:
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    pieces = [f"##{c}" for c in "abcdefghijklmnopqrstuvwxyz"]
    vocab = specials + sorted(set(WORDS)) + list("abcdefghijklmnopqrstuvwxyz") + pieces + CHINESE + list(".,!?{}")
    path.write_text("\n".join(dict.fromkeys(vocab)) + "\n", encoding="utf-8")
    return path


def tiny_bert_nli(label2id: dict[str, int], seed: int = 0, vocab_size: int = 0) -> BertForSequenceClassification:
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        num_labels=len(label2id),
        label2id=label2id,
        id2label={v: k for k, v in label2id.items()},
    )
    model = BertForSequenceClassification(config).eval()
    # random init puts logits near zero; spread them so scores differ visibly
    with torch.no_grad():
        model.classifier.weight.mul_(40)
    return model


def write_hf_nli(dst: Path, seed: int = 0) -> tuple[BertForSequenceClassification, BertTokenizerFast]:
    """Hugging Face layout, MNLI label order (contradiction 0, neutral 1, entailment 2)."""
    dst.mkdir(parents=True, exist_ok=True)
    tok = BertTokenizerFast(vocab_file=str(write_vocab(dst / "vocab.txt")), do_lower_case=True)
    tok.model_max_length = 128
    model = tiny_bert_nli({"contradiction": 0, "neutral": 1, "entailment": 2}, seed, len(tok))
    model.save_pretrained(str(dst))
    tok.save_pretrained(str(dst))
    return model, tok


def write_modelscope_structbert(dst: Path, seed: int = 1) -> tuple[BertForSequenceClassification, BertTokenizerFast]:
    """ModelScope StructBERT zero-shot layout: model_type structbert, no label names, vocab.txt only,
    pytorch_model.bin, configuration.json. Returns the same model with named labels (entailment 0) as
    the reference for transformers' pipeline."""
    dst.mkdir(parents=True, exist_ok=True)
    vocab = write_vocab(dst / "vocab.txt")
    tok = BertTokenizerFast(vocab_file=str(vocab), do_lower_case=True)
    tok.model_max_length = 128
    model = tiny_bert_nli({"entailment": 0, "neutral": 1, "contradiction": 2}, seed, len(tok))
    torch.save(model.state_dict(), dst / "pytorch_model.bin")
    config = model.config.to_dict()
    for key in ("id2label", "label2id", "architectures", "transformers_version", "torch_dtype", "dtype"):
        config.pop(key, None)
    config.update(model_type="structbert", num_labels=3)
    (dst / "config.json").write_text(json.dumps(config, indent=2))
    (dst / "configuration.json").write_text(
        json.dumps(
            {
                "framework": "pytorch",
                "task": "zero-shot-classification",
                "model": {"type": "structbert"},
                "pipeline": {"type": "zero-shot-classification"},
            },
            indent=2,
        )
    )
    return model, tok
