"""Randomly initialised but real BERT NLI checkpoints, written in the layouts users import.

No NLI weights can be downloaded here, so tests (tiny shapes) and benchmarks (the exact shapes of real
checkpoints: the same compute, meaningless scores) build their own and load them with the product's code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

MNLI_LABELS = {"contradiction": 0, "neutral": 1, "entailment": 2}  # Hugging Face NLI checkpoints
STRUCTBERT_LABELS = {"entailment": 0, "neutral": 1, "contradiction": 2}  # ModelScope's pipeline's fixed order


@dataclass(frozen=True)
class BertShape:
    vocab_size: int
    hidden: int
    layers: int
    heads: int
    ffn: int
    max_positions: int = 512


MINILM_L6 = BertShape(30522, 384, 6, 12, 1536)
STRUCTBERT_BASE_ZH = BertShape(21128, 768, 12, 12, 3072)
# multilingual-e5-small's encoder (the default model's compute) with StructBERT zh's vocabulary size: the
# embedding table is a lookup, so its 250k rows change the file's size, not the work per token
E5_SMALL_SHAPE = BertShape(21128, 384, 12, 12, 1536)


def bert_nli(shape: BertShape, label2id: dict[str, int], seed: int = 0):
    """A ``BertForSequenceClassification`` of this shape with random weights (seeded), in eval mode."""
    import torch
    from transformers import BertForSequenceClassification

    torch.manual_seed(seed)
    config = bert_config(
        shape, num_labels=len(label2id), label2id=label2id, id2label={v: k for k, v in label2id.items()}
    )
    return BertForSequenceClassification(config).eval()


def bert_config(shape: BertShape, **more):
    """transformers' ``BertConfig`` of this shape (``more``: the head's fields)."""
    from transformers import BertConfig

    return BertConfig(
        vocab_size=shape.vocab_size,
        hidden_size=shape.hidden,
        num_hidden_layers=shape.layers,
        num_attention_heads=shape.heads,
        intermediate_size=shape.ffn,
        max_position_embeddings=shape.max_positions,
        **more,
    )


def save_modelscope_structbert(model, dst: Path) -> Path:
    """ModelScope's StructBERT zero-shot layout: ``model_type: structbert``, no label names in the config,
    ``pytorch_model.bin``, ``configuration.json`` (the tokenizer, a ``vocab.txt``, is the caller's)."""
    import torch

    dst.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), dst / "pytorch_model.bin")
    config = model.config.to_dict()
    for key in ("id2label", "label2id", "architectures", "transformers_version", "torch_dtype", "dtype"):
        config.pop(key, None)
    config.update(model_type="structbert", num_labels=model.config.num_labels)
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
    return dst
