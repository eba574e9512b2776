"""Export a stored model to ONNX at import time: fp32 graph, fused, plus an int8 dynamic-quantized copy.

Needs torch and onnx (import/export only); serving an exported model needs only onnxruntime. Files land
in the model directory, next to the weights:

    onnx/model.onnx         fp32, fused by onnxruntime's transformer optimizer when the architecture is BERT-like
    onnx/model.int8.onnx    dynamic int8 quantization of the fused graph (int8 weights, activations on the fly)
    onnx/model.fp16.onnx    (opt-in) fp16 weights and compute for CUDA; fp32 inputs/outputs

Inputs ``input_ids``, ``attention_mask`` (and ``token_type_ids`` when the model has segments), dynamic batch
and sequence axes. Output ``logits`` for NLI models, ``embeddings`` (mean-pooled, L2-normalised) for
embedding models, so the ONNX backend returns exactly what the torch backend returns.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path

from service.backends.files import FP16, FP32, INT8, ONNX_DIR, VARIANT_FILES, onnx_path
from service.core.model_spec import ModelSpec

__all__ = ["FP16", "FP32", "INT8", "ONNX_DIR", "VARIANT_FILES", "export", "onnx_path"]

log = logging.getLogger("zsc.onnx_export")

# model types onnxruntime's transformer optimizer knows how to fuse (attention, LayerNorm, GELU)
_OPTIMIZER_TYPES = {
    "bert": "bert",
    "roberta": "bert",
    "xlm-roberta": "bert",
    "distilbert": "bert",
    "electra": "bert",
    "deberta-v2": "bert",
    "mpnet": "bert",
}


HALVE_TABLES_OVER_BYTES = 128 * 2**20


def embedding_table_in_fp16(path: Path, over_bytes: int = HALVE_TABLES_OVER_BYTES) -> int:
    """Store the graph's word-embedding table (its largest initializer, read by a Gather or the fused
    EmbedLayerNormalization) in fp16 behind a Cast to fp32 when it is larger than ``over_bytes``; returns
    the bytes saved (0: nothing done). A small table (MiniLM's is 47 MB) stays fp32: scores stay identical
    to torch's to 1e-4, and there is little to save.

    With a 250k-piece vocabulary the table is 80% of the file. onnxruntime folds the Cast of a constant
    when it builds the session, so computation stays fp32; measured on multilingual-e5-small: 470 -> 278 MB,
    session load 0.77 -> 0.62 s, largest output difference 3.6e-6 (docs/performance.md)."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(path))
    readers = {}
    for node in model.graph.node:
        if node.op_type in ("Gather", "EmbedLayerNormalization") and node.input:
            readers.setdefault(node.input[2] if node.op_type == "EmbedLayerNormalization" else node.input[0], node)
    tables = [i for i in model.graph.initializer if i.name in readers and i.data_type == TensorProto.FLOAT]
    if not tables:
        return 0
    table = max(tables, key=lambda i: int(np.prod(i.dims)))
    if int(np.prod(table.dims)) * 4 <= over_bytes:
        return 0
    values = numpy_helper.to_array(table)
    half = numpy_helper.from_array(values.astype(np.float16), f"{table.name}.fp16")
    model.graph.initializer.remove(table)
    model.graph.initializer.append(half)
    model.graph.node.insert(0, helper.make_node("Cast", [half.name], [table.name], to=TensorProto.FLOAT))
    onnx.save(model, str(path))
    return int(values.nbytes // 2)


def _wrapper(model, kind: str):
    import torch

    class Logits(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask, token_type_ids=None):
            kw = {"token_type_ids": token_type_ids} if token_type_ids is not None else {}
            return self.m(input_ids=input_ids, attention_mask=attention_mask, **kw).logits

    class Embeddings(Logits):
        def forward(self, input_ids, attention_mask, token_type_ids=None):
            kw = {"token_type_ids": token_type_ids} if token_type_ids is not None else {}
            hidden = self.m(input_ids=input_ids, attention_mask=attention_mask, **kw).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    return (Logits if kind == "nli" else Embeddings)(model).eval()


def export(
    model_dir: str | Path, spec: ModelSpec, variants: tuple[str, ...] = ("fp32", "int8"), progress=print
) -> list[Path]:
    """Write the ONNX files into ``model_dir/onnx``; returns their paths. fp32 is always written."""
    import torch
    from transformers import AutoConfig, AutoModel, AutoModelForSequenceClassification

    model_dir = Path(model_dir)
    out_dir = model_dir / ONNX_DIR
    out_dir.mkdir(exist_ok=True)
    config = AutoConfig.from_pretrained(str(model_dir))
    loader = AutoModelForSequenceClassification if spec.kind == "nli" else AutoModel
    # eager attention exports the plain MatMul/Softmax pattern the optimizer recognises and fuses
    model = loader.from_pretrained(str(model_dir), attn_implementation="eager", dtype=torch.float32)
    has_types = getattr(config, "type_vocab_size", 0) and config.model_type not in ("roberta", "xlm-roberta")
    names = ["input_ids", "attention_mask"] + (["token_type_ids"] if has_types else [])
    dummy = tuple(torch.ones((2, 16), dtype=torch.long) for _ in names)
    output = "logits" if spec.kind == "nli" else "embeddings"
    axes = {n: {0: "batch", 1: "sequence"} for n in names} | {output: {0: "batch"}}

    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.onnx"
        progress(f"[1/3] exporting {spec.kind} model to ONNX (opset 17)")
        torch.onnx.export(
            _wrapper(model, spec.kind),
            dummy,
            str(raw),
            input_names=names,
            output_names=[output],
            dynamic_axes=axes,
            opset_version=17,
            do_constant_folding=True,
            dynamo=False,
        )
        fp32 = out_dir / FP32
        opt_type = _OPTIMIZER_TYPES.get(config.model_type)
        if opt_type:
            progress(f"[2/3] fusing attention/LayerNorm/GELU with onnxruntime's transformer optimizer ({opt_type})")
            from onnxruntime.transformers.optimizer import optimize_model

            optimized = optimize_model(
                str(raw),
                model_type=opt_type,
                num_heads=config.num_attention_heads,
                hidden_size=config.hidden_size,
                opt_level=1,
                use_gpu=False,
            )
            log.info("fused operators: %s", optimized.get_fused_operator_statistics())
            optimized.save_model_to_file(str(fp32))
            if "fp16" in variants:
                progress("[2/3] converting the fused graph to fp16 for the CUDA execution provider")
                optimized.convert_float_to_float16(keep_io_types=True)
                optimized.save_model_to_file(str(out_dir / FP16))
        else:
            progress(f"[2/3] no fusion rules for model_type {config.model_type}; keeping the plain graph")
            os.replace(raw, fp32)
    paths = [fp32] + ([out_dir / FP16] if (out_dir / FP16).is_file() else [])
    if "int8" in variants:
        progress("[3/3] quantizing to int8 (dynamic, per-channel weights)")
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic

        # fused contrib ops defeat ONNX shape inference; their outputs are float32
        quantize_dynamic(
            str(fp32),
            str(out_dir / INT8),
            weight_type=QuantType.QInt8,
            per_channel=True,
            # AVX2 without VNNI computes u8s8 with VPMADDUBSW, which saturates at full 8-bit range
            reduce_range=True,
            op_types_to_quantize=["MatMul", "Attention", "Gemm"],
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
        paths.append(out_dir / INT8)
    for path in paths:
        if path.name != FP16:
            halved = embedding_table_in_fp16(path)
            if halved:
                progress(f"{path.name}: word-embedding table stored in fp16 ({halved / 1e6:.0f} MB saved on disk)")
    (out_dir / "export.json").write_text(
        json.dumps(
            {
                "inputs": names,
                "output": output,
                "opset": 17,
                "fused": bool(opt_type),
                "variants": [p.name for p in paths],
            }
        )
    )
    return paths
