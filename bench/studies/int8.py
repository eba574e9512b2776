"""int8 candidates against fp32, in one run: top-1 agreement, accuracy change and speed per bundled encoder.

    make int8-study                                   # both bundled models (about 25 minutes on 2 cores)
    .venv/bin/python -m bench.studies.int8 --models all-minilm-l6-v2 --sensitivity-texts 64   # a quicker look

Per model (from the BentoML store; imported on first use) it takes the fused fp32 ONNX graph the import
writes and builds each candidate next to it, in a work folder, never in the store:

- ``dynamic``: what ``zsc import-model --onnx int8`` ships (dynamic int8, per-channel weights, reduce_range);
- ``dynamic-skipK``: the same with the K most sensitive nodes left in fp32;
- ``static-qdq``: static QDQ, per-channel weights, activation ranges calibrated (MinMax) on held-out text;
- ``static-qdq-skipK``: the same with the K most sensitive nodes left in fp32.

Sensitivity is measured, not guessed: every quantizable node (fused Attention, MatMul, Gemm) is quantized
alone and the mean cosine error of the text embeddings it causes on the calibration text is recorded.

Every candidate is scored two ways: all int8 (what the service would do), and with the label embeddings in
fp32 (the service caches label rows, so computing them with a second, fp32 session costs nothing at steady
state). Each also runs as a ``cascade``: its texts first, then the texts whose int8 top-2 cosine margin is
under a threshold fitted on the calibration text again in fp32 (speed from the measured rates of both).

Evaluation: the shipped workload's labelled English and Chinese rows, a stratified 1,000-headline sample of
THUCNews (10 classes) and 1,000 CIC utterances (118 intents) from ``../shared/datasets``; every text against
every label of its set. Calibration text never overlaps it: ``loadtest/data/calibration-en.txt``, THUCNews
and CIC rows outside the evaluated ones, and the label phrases. Speed: the raw forward pass (texts/s, best of
fixed and planned batches over length-sorted texts, as ``make bench``'s ceiling) of torch fp32, ONNX fp32 and
each candidate, on the same 512 texts in the same run.

Writes ``int8.{json,md,png}`` into ``--out`` (default ``results/int8-<time>/``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as the service's torch backend (before torch loads)

from harness import ROOT  # noqa: E402
from harness.machine import machine_info, versions  # noqa: E402
from harness.process import HarnessError  # noqa: E402
from harness.progress import say  # noqa: E402
from harness.report import pyplot, save, table, write_results  # noqa: E402
from harness.store import StoredModel, import_model, stored_model  # noqa: E402
from loadtest.workload import SHARED, load_rows  # noqa: E402

BUNDLED = {"multilingual-e5-small": "bundled-multilingual", "all-minilm-l6-v2": "bundled"}
CALIBRATION_EN = ROOT / "loadtest" / "data" / "calibration-en.txt"
QUANTIZABLE = ("MatMul", "Attention", "Gemm")
# the rule of issue 17: what int8 must keep to become the CPU default
MIN_AGREEMENT, MAX_ACCURACY_DROP_PT, MIN_SPEEDUP = 0.99, 0.5, 1.8


# -- data ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EvalSet:
    name: str
    lang: str
    group: str  # what agreement is reported over: the workload per language, each shared dataset
    texts: list[str]
    gold: list[int]
    labels: list[str]


def eval_sets(per_set: int = 1000) -> list[EvalSet]:
    """The labelled sets, each text against all labels of its set."""
    sets = []
    rows = load_rows()
    for lang in ("en", "zh"):
        for domain in ("news", "support"):
            mine = [r for r in rows if r.lang == lang and r.domain == domain]
            labels = sorted({r.label for r in mine})
            if mine:
                sets.append(
                    EvalSet(
                        f"workload-{lang}-{domain}",
                        lang,
                        f"workload-{lang}",
                        [r.text for r in mine],
                        [labels.index(r.label) for r in mine],
                        labels,
                    )
                )
    classes = (SHARED / "thucnews_classes.txt").read_text(encoding="utf-8").split()
    lines = (SHARED / "thucnews_test.tsv").read_text(encoding="utf-8").splitlines()
    step = max(1, len(lines) // per_set)  # the file is sorted by class: a stride keeps it stratified
    picked = [line.rsplit("\t", 1) for line in lines[::step][:per_set]]
    sets.append(EvalSet("thucnews", "zh", "thucnews", [t for t, _ in picked], [int(i) for _, i in picked], classes))
    cic = [json.loads(line) for line in (SHARED / "cic_test_public.jsonl").read_text(encoding="utf-8").splitlines()]
    cic_labels = sorted({r["label_des"] for r in cic})
    sets.append(
        EvalSet(
            "cic",
            "zh",
            "cic",
            [r["sentence"] for r in cic[:per_set]],
            [cic_labels.index(r["label_des"]) for r in cic[:per_set]],
            cic_labels,
        )
    )
    return sets


def calibration_texts(per_set: int = 1000, chinese: int = 200) -> list[str]:
    """Held-out text: the English file, THUCNews rows between the evaluated ones, CIC rows after them."""
    english = [x for x in CALIBRATION_EN.read_text(encoding="utf-8").splitlines() if x and not x.startswith("#")]
    lines = (SHARED / "thucnews_test.tsv").read_text(encoding="utf-8").splitlines()
    step = max(2, len(lines) // per_set)
    thucnews = [line.rsplit("\t", 1)[0] for line in lines[step // 2 :: step]][: chinese // 2 * 5 : 5]
    cic = (SHARED / "cic_test_public.jsonl").read_text(encoding="utf-8").splitlines()[per_set:]
    cic_texts = [json.loads(line)["sentence"] for line in cic[:: max(1, len(cic) // (chinese // 2))]]
    return english + thucnews + cic_texts[: chinese // 2]


# -- graphs --------------------------------------------------------------------------------------------
class Graphs:
    """The fp32 graph of one stored model and the candidates built from it, in ``work``."""

    def __init__(self, stored: StoredModel, work: Path) -> None:
        from service.core.model_spec import ModelSpec
        from service.engine.tokenization import Tokenizer
        from service.modelstore.onnx_export import export, onnx_path

        self.spec = ModelSpec.from_metadata(stored.metadata)
        self.tokenizer = Tokenizer.load(stored.path, self.spec.max_length)
        self.path = stored.path
        self.work = work
        work.mkdir(parents=True, exist_ok=True)
        self.fp32 = work / "fp32.onnx"
        if not self.fp32.is_file():
            if onnx_path(stored.path).is_file():
                shutil.copy(onnx_path(stored.path), self.fp32)
                shutil.copy(onnx_path(stored.path).parent / "export.json", work / "export.json")
            else:  # imported with --no-onnx: export a copy here
                copy = work / "model"
                shutil.copytree(stored.path, copy, dirs_exist_ok=True)
                export(copy, self.spec, ("fp32",), progress=lambda m: say(f"  {m}"))
                shutil.move(onnx_path(copy), self.fp32)
                shutil.move(onnx_path(copy).parent / "export.json", work / "export.json")
                shutil.rmtree(copy)
        self.inputs = json.loads((work / "export.json").read_text())["inputs"]

    def feeds(self, texts: list[str], batch: int = 32) -> list[dict]:
        from service.core.microbatch import pad

        enc = self.tokenizer.encode_texts(texts)
        order = np.argsort([len(x) for x in enc.ids], kind="stable")
        out = []
        for i in range(0, len(order), batch):
            idx = order[i : i + batch]
            b = pad([enc.ids[j] for j in idx], None, self.tokenizer.pad_id)
            feed = {"input_ids": b.input_ids, "attention_mask": b.attention_mask}
            if "token_type_ids" in self.inputs:
                feed["token_type_ids"] = np.zeros_like(b.input_ids)
            out.append(feed)
        return out

    def session(self, path: Path):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = len(os.sched_getaffinity(0))
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])

    def backend(self, path: Path):
        from service.backends.onnx_backend import OnnxBackend

        return OnnxBackend(self.session(path), self.inputs, f"onnx-{path.stem}", "cpu")

    def nodes(self) -> list[str]:
        import onnx

        model = onnx.load(str(self.fp32), load_external_data=False)
        weights = {i.name for i in model.graph.initializer}
        return [
            n.name for n in model.graph.node if n.op_type in QUANTIZABLE and len(n.input) > 1 and n.input[1] in weights
        ]

    def dynamic(self, out: Path, exclude: list[str] = (), only: str | None = None) -> Path:
        """The shipped recipe (service/modelstore/onnx_export.py), optionally with nodes left in fp32, or with one node
        alone in int8 (``only``: the sensitivity measurement)."""
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic

        quantize_dynamic(
            self.fp32,
            out,
            weight_type=QuantType.QInt8,
            per_channel=True,
            reduce_range=True,
            op_types_to_quantize=list(QUANTIZABLE),
            nodes_to_quantize=[only] if only else None,
            nodes_to_exclude=list(exclude),
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
        return out

    def static_qdq(self, out: Path, calibration: list[str], exclude: list[str] = ()) -> Path:
        """Static QDQ: activation ranges from the calibration text (MinMax), per-channel int8 weights with
        reduce_range (AVX2 without VNNI saturates full-range u8s8 products), uint8 activations."""
        import onnx
        from onnxruntime.quantization import (
            CalibrationDataReader,
            CalibrationMethod,
            QuantFormat,
            QuantType,
            quantize_static,
        )

        class Reader(CalibrationDataReader):
            def __init__(self, feeds):
                self.feeds, self.it = feeds, iter(feeds)

            def get_next(self):
                return next(self.it, None)

            def rewind(self):
                self.it = iter(self.feeds)

        quantize_static(
            self.fp32,
            out,
            Reader(self.feeds(calibration, 16)),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            reduce_range=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["MatMul", "Gemm"],
            nodes_to_exclude=list(exclude),
            calibrate_method=CalibrationMethod.MinMax,
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
        return out


def embed(session, feeds: list[dict]) -> np.ndarray:
    return np.concatenate([session.run(None, f)[0] for f in feeds])


class Embedder:
    """Embeddings of texts and label phrases through the service's own engine path (tokenize, truncate,
    plan, pad, forward), for one graph."""

    def __init__(self, graphs: Graphs, path: Path) -> None:
        from service.engine.engine import Engine

        self.engine = Engine(graphs.spec, graphs.tokenizer, graphs.backend(path), token_budget=8192, max_rows=256)
        self.spec = graphs.spec

    def texts(self, texts: list[str]) -> np.ndarray:
        return self.engine.encode([(self.spec.text_prefix + t, None) for t in texts])[0]

    def labels(self, labels: list[str]) -> np.ndarray:
        phrases = [self.spec.label_prefix + self.spec.default_template.format(x) for x in labels]
        return self.engine.encode([(p, None) for p in phrases])[0]


def sensitivity(graphs: Graphs, texts: list[str]) -> dict[str, float]:
    """Mean cosine error (1 - cos) of the text embeddings when only one node is quantized, per node."""
    feeds = graphs.feeds(texts)
    ref = embed(graphs.session(graphs.fp32), feeds)
    nodes = graphs.nodes()
    out = {}
    tmp = graphs.work / "one-node.onnx"
    for i, node in enumerate(nodes, 1):
        rows = embed(graphs.session(graphs.dynamic(tmp, only=node)), feeds)
        out[node] = float(np.mean(1 - np.sum(rows * ref, axis=1)))
        if i % 8 == 0 or i == len(nodes):
            say(f"  sensitivity: {i}/{len(nodes)} nodes measured")
    tmp.unlink(missing_ok=True)
    return out


# -- measurements --------------------------------------------------------------------------------------
def top1(text_rows: np.ndarray, label_rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Top label and the cosine margin to the runner-up, per text (scores are monotone in cosine)."""
    cos = text_rows @ label_rows.T
    part = np.sort(cos, axis=1)
    return np.argmax(cos, axis=1), part[:, -1] - part[:, -2]


def judge(sets: list[EvalSet], ref: dict, pred: dict, languages: tuple[str, ...]) -> dict:
    """Agreement with fp32 and accuracy change per group of sets (the workload per language, each shared
    dataset); ``counted`` groups are in the model's languages."""
    per = {}
    for group in dict.fromkeys(s.group for s in sets):
        mine = [s for s in sets if s.group == group]
        gold = np.concatenate([s.gold for s in mine])
        r = np.concatenate([ref[s.name] for s in mine])
        p = np.concatenate([pred[s.name] for s in mine])
        per[group] = {
            "agreement": float(np.mean(r == p)),
            "accuracy_fp32": float(np.mean(r == gold)),
            "accuracy": float(np.mean(p == gold)),
            "accuracy_change_pt": float(np.mean(p == gold) - np.mean(r == gold)) * 100,
            "texts": len(gold),
            "counted": mine[0].lang in languages,
        }
    counted = [v for v in per.values() if v["counted"]]
    return {
        "sets": per,
        "min_agreement": min(v["agreement"] for v in counted),
        "agreement": float(sum(v["agreement"] * v["texts"] for v in counted) / sum(v["texts"] for v in counted)),
        "worst_accuracy_change_pt": min(v["accuracy_change_pt"] for v in counted),
    }


def speed(graphs: Graphs, path: Path | None, texts: list[str], budget_s: float) -> float:
    """Raw forward texts/s (torch fp32 when ``path`` is None), as ``make bench``'s ceiling."""
    from bench.suite import measure_ceiling
    from service.backends import load_backend

    backend = graphs.backend(path) if path else load_backend(graphs.path, graphs.spec, "torch", "cpu", 0)
    bodies = [{"text": graphs.spec.text_prefix + t} for t in texts]
    return measure_ceiling(backend, graphs.tokenizer, graphs.spec, bodies, "{}", budget_s)["sequences_per_s"]


def study_model(name: str, work: Path, args) -> dict:
    stored = ensure(name)
    graphs = Graphs(stored, work / name)
    languages = tuple(graphs.spec.languages) or ("en",)
    sets = eval_sets(args.per_set)
    calibration = calibration_texts(args.per_set)
    label_phrases = sorted({x for s in sets for x in s.labels})
    say(
        f"{name}: {sum(len(s.texts) for s in sets)} evaluation texts in {len(sets)} sets, "
        f"{len(calibration)} calibration texts; languages counted: {', '.join(languages)[:40]}"
    )

    rows: dict[Path, tuple[dict, dict]] = {}  # graph -> (text rows, label rows) per set, embedded once

    def embedded(graph: Path) -> tuple[dict, dict]:
        if graph not in rows:
            e = Embedder(graphs, graph)
            rows[graph] = ({s.name: e.texts(s.texts) for s in sets}, {s.name: e.labels(s.labels) for s in sets})
        return rows[graph]

    def predictions(text_graph: Path, label_graph: Path) -> tuple[dict, dict]:
        texts, labels = embedded(text_graph)[0], embedded(label_graph)[1]
        out = {s.name: top1(texts[s.name], labels[s.name]) for s in sets}
        return {k: v[0] for k, v in out.items()}, {k: v[1] for k, v in out.items()}

    say(f"  fp32 reference over {len(sets)} sets")
    ref, _ = predictions(graphs.fp32, graphs.fp32)
    say(f"  per-node sensitivity on {args.sensitivity_texts} calibration texts")
    sens = sensitivity(graphs, calibration[:: max(1, len(calibration) // args.sensitivity_texts)])
    ranked = sorted(sens, key=sens.get, reverse=True)
    candidates: dict[str, Path] = {}
    t0 = time.time()
    candidates["dynamic"] = graphs.dynamic(graphs.work / "dynamic.onnx")
    for k in args.skip:
        candidates[f"dynamic-skip{k}"] = graphs.dynamic(graphs.work / f"dynamic-skip{k}.onnx", ranked[:k])
    say(
        f"  dynamic candidates built ({time.time() - t0:.0f} s); calibrating static QDQ on "
        f"{len(calibration) + len(label_phrases)} texts"
    )
    qdq_calibration = [graphs.spec.text_prefix + t for t in calibration] + [
        graphs.spec.label_prefix + graphs.spec.default_template.format(x) for x in label_phrases
    ]
    candidates["static-qdq"] = graphs.static_qdq(graphs.work / "static-qdq.onnx", qdq_calibration)
    k = args.skip[0]
    candidates[f"static-qdq-skip{k}"] = graphs.static_qdq(
        graphs.work / f"static-qdq-skip{k}.onnx", qdq_calibration, ranked[:k]
    )
    speed_texts = [t for s in sets for t in s.texts][:: max(1, sum(len(s.texts) for s in sets) // 512)][:512]
    say(f"  speed: raw forward on {len(speed_texts)} texts, {args.speed_s:.0f} s each")
    rates = {
        "torch-fp32": speed(graphs, None, speed_texts, args.speed_s),
        "onnx-fp32": speed(graphs, graphs.fp32, speed_texts, args.speed_s),
    }
    results = {
        "languages": list(languages),
        "sensitivity": sens,
        "excluded": ranked[: max(args.skip)],
        "speed": rates,
        "candidates": {},
    }
    for cname, path in candidates.items():
        rates[cname] = speed(graphs, path, speed_texts, args.speed_s)
        for labels_fp32 in (False, True):
            pred, margin = predictions(path, graphs.fp32 if labels_fp32 else path)
            key = cname + (" +fp32 labels" if labels_fp32 else "")
            results["candidates"][key] = {
                **judge(sets, ref, pred, languages),
                "speedup_vs_torch_fp32": rates[cname] / rates["torch-fp32"],
                "texts_per_s": rates[cname],
                "size_mb": path.stat().st_size / 1e6,
                "excluded_nodes": next((int(x) for x in cname.split("skip")[1:]), 0),
            }
        c = results["candidates"][cname + " +fp32 labels"]
        say(
            f"  {cname}: agreement {results['candidates'][cname]['agreement']:.3f} "
            f"({c['agreement']:.3f} with fp32 labels), {rates[cname]:.0f} texts/s = "
            f"{c['speedup_vs_torch_fp32']:.2f}x torch fp32"
        )
    e32 = Embedder(graphs, graphs.fp32)
    held_out = (e32.texts(calibration), {s.name: e32.labels(s.labels) for s in sets})
    for cname, path in candidates.items():
        results["candidates"][f"{cname} cascade"] = cascade(
            graphs, sets, ref, (cname, path), results, calibration, held_out, predictions, languages
        )
    results["verdict"] = verdict(results)
    return results


def cascade(graphs, sets, ref, candidate, results, calibration, held_out, predictions, languages) -> dict:
    """The candidate's texts with fp32 labels first; texts whose int8 top-2 margin is under ``delta`` again
    in fp32. ``delta``: the 99.5th percentile of |int8 margin - fp32 margin| on the held-out calibration text
    against the evaluation sets' label lists (the labels a client would send, not their answers)."""
    name, path = candidate
    cal8 = Embedder(graphs, path).texts(calibration)
    cal32, label_rows = held_out
    shifts = [np.abs(top1(cal8, label_rows[s.name])[1] - top1(cal32, label_rows[s.name])[1]) for s in sets]
    delta = float(np.quantile(np.concatenate(shifts), 0.995))
    pred8, margin8 = predictions(path, graphs.fp32)
    mixed, redone = {}, 0
    for s in sets:
        again = margin8[s.name] < delta
        mixed[s.name] = np.where(again, ref[s.name], pred8[s.name])
        redone += int(again.sum()) if s.lang in languages else 0
    counted = sum(len(s.texts) for s in sets if s.lang in languages)
    share = redone / counted
    rate8, rate32, torch = (
        results["speed"][name],
        results["speed"]["onnx-fp32"],
        results["speed"]["torch-fp32"],
    )
    rate = 1 / (1 / rate8 + share / rate32)  # every text once in int8, the re-done share once more in fp32
    out = {
        **judge(sets, ref, mixed, languages),
        "base": f"{name} +fp32 labels",
        "delta": delta,
        "recomputed_share": share,
        "texts_per_s": rate,
        "speedup_vs_torch_fp32": rate / torch,
    }
    say(
        f"  {name} cascade: delta {delta:.4f}, {share:.1%} recomputed in fp32, agreement "
        f"{out['agreement']:.3f}, {out['speedup_vs_torch_fp32']:.2f}x torch fp32"
    )
    return out


def meets(c: dict) -> bool:
    return (
        c["min_agreement"] >= MIN_AGREEMENT
        and c["worst_accuracy_change_pt"] >= -MAX_ACCURACY_DROP_PT
        and c["speedup_vs_torch_fp32"] >= MIN_SPEEDUP
    )


def verdict(results: dict) -> dict:
    every = results["candidates"]
    passing = [k for k, c in every.items() if meets(c)]
    chosen = max(passing, key=lambda k: every[k]["speedup_vs_torch_fp32"]) if passing else None
    return {"passing": passing, "chosen": chosen}


def ensure(name: str) -> StoredModel:
    try:
        return stored_model(name)
    except HarnessError:
        say(f"importing {name} (first use)")
        import_model(BUNDLED[name], name, dict(os.environ), "--onnx", "fp32")
        return stored_model(name)


# -- report --------------------------------------------------------------------------------------------
def markdown(results: dict) -> str:
    lines = [
        "# int8 candidates vs fp32",
        "",
        f"Machine: {results['machine'].get('cpu', '?')}; {results['seconds']:.0f} s. Rule: top-1 agreement with "
        f"fp32 >= {MIN_AGREEMENT:.0%} on every set in the model's languages, accuracy change >= "
        f"-{MAX_ACCURACY_DROP_PT} pt on each, raw forward >= {MIN_SPEEDUP}x torch fp32.",
    ]
    for name, r in results["models"].items():
        sets = list(next(iter(r["candidates"].values()))["sets"])
        counted = [s for s in sets if next(iter(r["candidates"].values()))["sets"][s]["counted"]]
        lines += [
            "",
            f"## {name}",
            "",
            f"Speed (raw forward, texts/s): torch fp32 {r['speed']['torch-fp32']:.0f}, "
            f"ONNX fp32 {r['speed']['onnx-fp32']:.0f}. Sets counted ({', '.join(r['languages'])[:30]}): "
            f"{', '.join(counted)}. Agreement / accuracy change in points per set.",
            "",
        ]
        header = ["candidate", "× torch fp32", "agreement (min)", *sets, "meets"]
        rows = []
        every = r["candidates"]
        for cname, c in every.items():
            label = cname
            if "delta" in c:
                label = f"{cname} (δ {c['delta']:.4f}, {c['recomputed_share']:.0%} redone in fp32)"
            cells = [f"{c['sets'][s]['agreement']:.3f} / {c['sets'][s]['accuracy_change_pt']:+.1f}" for s in sets]
            rows.append(
                [
                    label,
                    f"{c['speedup_vs_torch_fp32']:.2f}",
                    f"{c['agreement']:.3f} ({c['min_agreement']:.3f})",
                    *cells,
                    "yes" if meets(c) else "no",
                ]
            )
        lines += table(header, rows)
        acc = next(iter(r["candidates"].values()))["sets"]
        lines += [
            "",
            "fp32 accuracy: " + ", ".join(f"{s} {acc[s]['accuracy_fp32']:.3f}" for s in sets),
            "",
            "Most sensitive nodes (mean 1 - cos of text embeddings, that node alone in int8): "
            + ", ".join(f"{n} {v:.1e}" for n, v in sorted(r["sensitivity"].items(), key=lambda x: -x[1])[:6]),
            "",
            f"Verdict: {r['verdict']['chosen'] or 'no candidate meets the rule'}",
        ]
    return "\n".join(lines) + "\n"


def chart(results: dict, path: Path) -> None:
    plt = pyplot()
    models = results["models"]
    fig, axes = plt.subplots(1, len(models), figsize=(6.5 * len(models), 4.8), squeeze=False)
    for ax, (name, r) in zip(axes[0], models.items()):
        for cname, c in r["candidates"].items():
            marker = "s" if "fp32 labels" in cname else ("*" if "cascade" in cname else "o")
            ax.scatter(c["speedup_vs_torch_fp32"], c["min_agreement"], marker=marker, s=60 if marker != "*" else 140)
            ax.annotate(
                cname.replace(" +fp32 labels", "+L").replace(" cascade", "+C"),
                (c["speedup_vs_torch_fp32"], c["min_agreement"]),
                fontsize=7,
                xytext=(3, 3),
                textcoords="offset points",
            )
        ax.axhline(MIN_AGREEMENT, color="green", ls="--", lw=1)
        ax.axvline(MIN_SPEEDUP, color="green", ls="--", lw=1)
        ax.scatter([r["speed"]["onnx-fp32"] / r["speed"]["torch-fp32"]], [1.0], marker="x", color="black")
        ax.annotate("onnx fp32", (r["speed"]["onnx-fp32"] / r["speed"]["torch-fp32"], 1.0), fontsize=7)
        ax.set_title(f"{name}: worst-set top-1 agreement vs speed")
        ax.set_xlabel("raw forward, × torch fp32")
        ax.set_ylabel("top-1 agreement with fp32 (worst counted set)")
        ax.grid(alpha=0.3)
    save(fig, path)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default=",".join(BUNDLED), help="stored model names (default: both bundled)")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument(
        "--work",
        type=Path,
        default=Path(tempfile.gettempdir()) / "zsc-int8",
        help="where the candidate graphs are written (a few hundred MB per model)",
    )
    p.add_argument("--per-set", type=int, default=1000, help="texts per shared dataset")
    p.add_argument("--sensitivity-texts", type=int, default=128)
    p.add_argument(
        "--skip",
        type=lambda s: [int(x) for x in s.split(",")],
        default=[3, 8],
        help="how many of the most sensitive nodes stay fp32, per candidate",
    )
    p.add_argument("--speed-s", type=float, default=12.0, help="seconds of forward passes per speed figure")
    args = p.parse_args(argv)
    out = args.out or ROOT / "results" / time.strftime("int8-%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    results = {"machine": machine_info(), "versions": versions(servers=False), "models": {}}
    for name in args.models.split(","):
        results["models"][name] = study_model(name, args.work, args)
    results["seconds"] = time.time() - t0
    write_results(out, "int8", results, markdown, chart, show=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
