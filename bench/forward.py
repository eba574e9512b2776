"""The forward pass alone, per runtime and precision, on the stored default model: what the service's ratio
between two runtimes can be at most (docs/performance.md).

    .venv/bin/python -m bench.forward                                   # 1 thread, batches of 32, 4 rounds
    taskset -c 1 .venv/bin/python -m bench.forward --candidates onnx-fp32,openvino-bf16

The workload's texts (``loadtest/data/workload.jsonl``) are tokenized once, sorted by length and cut into
batches; each candidate runs every batch once per round, the candidates alternated round by round (the
machine's noise falls on all of them alike). Prints texts/s per candidate and round, each one's median
against the first candidate's, with the CPU and its flags; writes ``forward.json`` and ``forward.md`` into
``--out``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from harness.machine import machine_info
from harness.progress import say
from harness.report import result_folder, table, write_results
from harness.store import ensure_default, stored_model
from loadtest.workload import load_rows
from service.backends import load_backend
from service.config import DEFAULT_MODEL
from service.core.microbatch import pad
from service.core.model_spec import ModelSpec
from service.engine.tokenization import Tokenizer


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--candidates", default="onnx-fp32,openvino-fp32,openvino-bf16", help="runtime-precision, ...")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--texts", type=int, default=512)
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--out", type=Path, help="where the results go (default results/forward-<date>)")
    p.add_argument("--model", help="a model in the store (default: the bundled default, imported if missing)")
    a = p.parse_args()
    if not a.model:
        ensure_default(dict(os.environ))
    model = stored_model(a.model or DEFAULT_MODEL)
    spec = ModelSpec.from_metadata(model.metadata)
    tokenizer = Tokenizer.load(model.path, spec.max_length)
    texts = [row.text for row in load_rows()][: a.texts]
    ids = sorted(tokenizer.encode_texts(texts).ids, key=len)
    batches = [pad(ids[i : i + a.batch], None, tokenizer.pad_id) for i in range(0, len(ids), a.batch)]
    names = a.candidates.split(",")
    backends = {}
    for name in names:
        runtime, precision = name.split("-")
        backends[name] = load_backend(model.path, spec, runtime, "cpu", a.threads, precision)
        for batch in batches:  # the first pass meets each shape
            backends[name].forward(batch)
    speeds: dict[str, list[float]] = {name: [] for name in names}
    for r in range(a.rounds):
        for name, backend in backends.items():
            t0 = time.perf_counter()
            for batch in batches:
                backend.forward(batch)
            speeds[name].append(round(len(ids) / (time.perf_counter() - t0), 1))
            say(f"round {r + 1}: {name} {speeds[name][-1]} texts/s")
    first = statistics.median(speeds[names[0]])
    results = {
        "machine": machine_info(),
        "args": {k: str(v) for k, v in vars(a).items()},
        "model": model.tag,
        "texts_per_s": speeds,
        "ratio_to_first": {n: round(statistics.median(v) / first, 2) for n, v in speeds.items()},
    }
    write_results(result_folder(a.out, "forward"), "forward", results, report, show=True)


def report(r: dict) -> str:
    m, args = r["machine"], r["args"]
    rows = [
        [name, ", ".join(f"{v:g}" for v in speeds), f"{statistics.median(speeds):g}", f"{r['ratio_to_first'][name]}x"]
        for name, speeds in r["texts_per_s"].items()
    ]
    return "\n".join(
        [
            "# The forward pass alone, per runtime and precision",
            "",
            f"{m['cpu']}, {m['cpus']} CPUs; flags of note: {' '.join(m['cpu_flags'])}. {r['model']}, "
            f"{args['texts']} workload texts in batches of {args['batch']}, {args['threads']} thread(s), "
            f"{args['rounds']} alternated rounds. `python -m bench.forward`",
            "",
            *table(["candidate", "texts/s per round", "median", "against the first"], rows),
        ]
    )


if __name__ == "__main__":
    main()
