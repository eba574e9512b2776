"""How accurate the service is on labelled data: send it through a running service, score the answers.

``classify_remote`` sends items to ``/classify_batch`` (any URL: one replica or nginx) with bounded
concurrency, retrying shed load (429/503), with a progress bar. ``Metrics`` computes accuracy, macro-F1,
per-class precision / recall / F1, the confusion matrix and, with a threshold, the abstain rate and the
accuracy on the answered items (multi-label: per-label figures, micro/macro-F1, exact match). ``write_report``
writes ``report.md``, ``report.json`` and ``confusion.png``. Used by ``zsc evaluate`` and ``zsc tune``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from service.quality.labelled import Labelled

ABSTAIN = "(abstain)"


class RemoteError(RuntimeError):
    """The service refused a call: its status and body."""


@dataclass
class Remote:
    url: str
    concurrency: int = 4
    batch_size: int = 32
    timeout_s: float = 120
    retries: int = 5
    max_pairs: int = 4096  # the service's ZSC_MAX_PAIRS_PER_REQUEST: a call is cut to stay under it
    progress: bool = True
    pairs_sent: int = 0
    seconds: float = 0.0

    def classify(self, bodies: Sequence[dict], desc: str = "classifying") -> list[dict]:
        """One answer per body (a /classify body), in order."""
        t0 = time.perf_counter()
        out = asyncio.run(self._all(list(bodies), desc))
        self.seconds += time.perf_counter() - t0
        return out

    def _chunks(self, bodies: list[dict]) -> list[list[dict]]:
        """Calls of at most ``batch_size`` items and ``max_pairs`` pairs, as the service counts them: per
        item its labels' phrasings, and the call's distinct example texts once."""
        chunks: list[list[dict]] = []
        chunk: list[dict] = []
        pairs, examples = 0, set()
        for body in bodies:
            labels = body.get("labels") or []
            own = sum(_phrasings(x) for x in labels) if isinstance(labels, list) else len(labels.split(","))
            new = {e for x in labels if isinstance(x, dict) for e in x.get("examples") or ()} - examples
            if chunk and (len(chunk) >= self.batch_size or pairs + own + len(new) > self.max_pairs):
                chunks.append(chunk)
                chunk, pairs, examples = [], 0, set()
                new = {e for x in labels if isinstance(x, dict) for e in x.get("examples") or ()}
            chunk.append(body)
            pairs += own + len(new)
            examples |= new
        return chunks + ([chunk] if chunk else [])

    async def _all(self, bodies: list[dict], desc: str) -> list[dict]:
        import httpx
        from tqdm import tqdm

        chunks = self._chunks(bodies)
        results: list[list[dict]] = [[] for _ in chunks]
        gate = asyncio.Semaphore(self.concurrency)
        bar = tqdm(total=len(bodies), desc=desc, unit="text", disable=not self.progress, leave=False)
        async with httpx.AsyncClient(base_url=self.url.rstrip("/"), timeout=self.timeout_s) as client:

            async def send(k: int, chunk: list[dict]) -> None:
                async with gate:
                    for attempt in range(self.retries + 1):
                        try:
                            r = await client.post("/classify_batch", json={"items": chunk})
                        except httpx.TransportError as exc:  # no answer at all: say where, not a traceback
                            raise RemoteError(f"could not reach {self.url}: {exc!r} (is the service running?)") from exc
                        if r.status_code in (429, 503) and attempt < self.retries:
                            await asyncio.sleep(min(8.0, 0.5 * 2**attempt))  # shed load: back off and retry
                            continue
                        if r.status_code != 200:
                            raise RemoteError(f"{self.url}/classify_batch answered {r.status_code}: {r.text[:500]}")
                        results[k] = r.json()["results"]
                        break
                self.pairs_sent += sum(len(b.get("labels") or []) for b in chunk)
                bar.update(len(chunk))

            try:
                await asyncio.gather(*(send(k, c) for k, c in enumerate(chunks)))
            finally:
                bar.close()
        return [answer for chunk in results for answer in chunk]


def _phrasings(label) -> int:
    if not isinstance(label, dict):
        return 1
    wording = label.get("description") or label.get("hypothesis") or [label.get("name")]
    return len(wording) if isinstance(wording, list) else 1


@dataclass
class ClassScores:
    precision: float
    recall: float
    f1: float
    support: int


@dataclass
class Metrics:
    items: int
    accuracy: float  # single-label: top-1 (an abstention counts as wrong); multi-label: exact match
    macro_f1: float
    per_class: dict[str, ClassScores]
    confusion: dict[str, dict[str, int]]  # true -> predicted -> count (single-label)
    classes: list[str]
    answered: int
    abstain_rate: float
    answered_accuracy: float | None
    micro_f1: float | None = None  # multi-label
    threshold: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def score_single(truth: list[str], predicted: list[str | None], classes: list[str]) -> Metrics:
    """Single-label metrics; ``None`` predictions are abstentions."""
    n = len(truth)
    answered = [(t, p) for t, p in zip(truth, predicted) if p is not None]
    confusion = {c: dict.fromkeys([*classes, ABSTAIN], 0) for c in classes}
    for t, p in zip(truth, predicted):
        confusion.setdefault(t, dict.fromkeys([*classes, ABSTAIN], 0))
        confusion[t][p if p is not None else ABSTAIN] = confusion[t].get(p if p is not None else ABSTAIN, 0) + 1
    per_class = {}
    for c in classes:
        tp = sum(1 for t, p in zip(truth, predicted) if t == c and p == c)
        fp = sum(1 for t, p in zip(truth, predicted) if t != c and p == c)
        fn = sum(1 for t, p in zip(truth, predicted) if t == c and p != c)
        per_class[c] = ClassScores(*_prf(tp, fp, fn), support=sum(1 for t in truth if t == c))
    correct = sum(1 for t, p in zip(truth, predicted) if t == p)
    return Metrics(
        items=n,
        accuracy=correct / n if n else 0.0,
        macro_f1=sum(s.f1 for s in per_class.values()) / len(per_class) if per_class else 0.0,
        per_class=per_class,
        confusion={t: {p: k for p, k in row.items() if k or p != ABSTAIN} for t, row in confusion.items()},
        classes=list(classes),
        answered=len(answered),
        abstain_rate=1 - len(answered) / n if n else 0.0,
        answered_accuracy=sum(1 for t, p in answered if t == p) / len(answered) if answered else None,
    )


def score_multi(truth: list[list[str]], predicted: list[list[str]], classes: list[str]) -> Metrics:
    """Multi-label metrics: per-label precision / recall / F1, micro and macro F1, exact-match accuracy."""
    per_class, tp_all, fp_all, fn_all = {}, 0, 0, 0
    for c in classes:
        tp = sum(1 for t, p in zip(truth, predicted) if c in t and c in p)
        fp = sum(1 for t, p in zip(truth, predicted) if c not in t and c in p)
        fn = sum(1 for t, p in zip(truth, predicted) if c in t and c not in p)
        tp_all, fp_all, fn_all = tp_all + tp, fp_all + fp, fn_all + fn
        per_class[c] = ClassScores(*_prf(tp, fp, fn), support=sum(1 for t in truth if c in t))
    n = len(truth)
    exact = sum(1 for t, p in zip(truth, predicted) if set(t) == set(p))
    answered = sum(1 for p in predicted if p)
    return Metrics(
        items=n,
        accuracy=exact / n if n else 0.0,
        macro_f1=sum(s.f1 for s in per_class.values()) / len(per_class) if per_class else 0.0,
        per_class=per_class,
        confusion={},
        classes=list(classes),
        answered=answered,
        abstain_rate=1 - answered / n if n else 0.0,
        answered_accuracy=None,
        micro_f1=_prf(tp_all, fp_all, fn_all)[2],
    )


def score_answers(data: Labelled, answers: Sequence[dict]) -> Metrics:
    """Metrics of the service's answers (their ``predicted``) against the data's labels."""
    if data.multi_label:
        return score_multi(data.labels, [a["predicted"] or [] for a in answers], data.classes)
    return score_single([row[0] for row in data.labels], [a["predicted"] for a in answers], data.classes)


# -- the report ------------------------------------------------------------------------------------------
def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def write_report(metrics: Metrics, meta: dict[str, Any], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "report.json", out / "report.md"]
    paths[0].write_text(json.dumps({**meta, "metrics": metrics.as_dict()}, indent=2, ensure_ascii=False))
    png = out / "confusion.png"
    if metrics.confusion and confusion_png(metrics, png):
        paths.append(png)
    paths[1].write_text(report_markdown(metrics, meta, png.name if png in paths else None))
    return paths


def report_markdown(metrics: Metrics, meta: dict[str, Any], png: str | None) -> str:
    m = metrics
    lines = [
        f"# Evaluation of {meta.get('model', '?')} on {meta.get('data', '?')}",
        "",
        f"{m.items} items, {len(m.classes)} classes; service {meta.get('url')}; template "
        f"{meta.get('template') or 'the model default'}; labels from {meta.get('labels_from', 'the data')}.",
        f"Throughput: {meta.get('items_per_s', 0):.1f} items/s, {meta.get('pairs_per_s', 0):.0f} (text, label) "
        f"pairs/s over {meta.get('seconds', 0):.1f} s ({meta.get('concurrency')} calls in flight, "
        f"{meta.get('batch_size')} items per call).",
        "",
        "| metric | value |",
        "|---|---|",
        f"| {'exact-match accuracy' if m.micro_f1 is not None else 'accuracy'} | {_pct(m.accuracy)} |",
        f"| macro-F1 | {_pct(m.macro_f1)} |",
    ]
    if m.micro_f1 is not None:
        lines.append(f"| micro-F1 | {_pct(m.micro_f1)} |")
    if meta.get("threshold") is not None:
        lines += [
            f"| threshold | {meta['threshold']} |",
            f"| abstain rate | {_pct(m.abstain_rate)} |",
            f"| accuracy on answered items | {_pct(m.answered_accuracy)} |",
        ]
    lines += ["", "## Per class", "", "| # | class | precision | recall | F1 | support |", "|---|---|---|---|---|---|"]
    lines += [
        f"| {i} | {c} | {_pct(s.precision)} | {_pct(s.recall)} | {_pct(s.f1)} | {s.support} |"
        for i, (c, s) in enumerate(m.per_class.items())
    ]
    if m.confusion:
        cols = [*m.classes, *([ABSTAIN] if any(ABSTAIN in row for row in m.confusion.values()) else [])]
        lines += ["", "## Confusion matrix (rows: true class, columns: predicted)", ""]
        lines += ["| true \\ predicted | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
        lines += [f"| {t} | " + " | ".join(str(row.get(c, 0)) for c in cols) + " |" for t, row in m.confusion.items()]
        if png:
            lines += ["", f"![confusion matrix]({png})"]
    return "\n".join(lines) + "\n"


def confusion_png(metrics: Metrics, path: Path) -> bool:
    """A heat map of the confusion matrix (row-normalised colour, counts written in); False without
    matplotlib (the markdown table has the same numbers)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    classes = metrics.classes
    cols = [*classes, *([ABSTAIN] if any(ABSTAIN in row for row in metrics.confusion.values()) else [])]
    counts = [[metrics.confusion.get(t, {}).get(c, 0) for c in cols] for t in classes]
    names = _drawable(cols, plt)
    shares = [[v / max(1, sum(row)) for v in row] for row in counts]
    size = max(4.0, 0.55 * len(cols) + 2)
    fig, ax = plt.subplots(figsize=(size, size * len(classes) / len(cols) + 0.8))
    ax.imshow(shares, cmap="Blues", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(cols)), names, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(classes)), names[: len(classes)], fontsize=8)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    for i, row in enumerate(counts):
        for j, v in enumerate(row):
            if v:
                ax.text(
                    j, i, str(v), ha="center", va="center", fontsize=7, color="white" if shares[i][j] > 0.5 else "black"
                )
    numbered = names != cols
    ax.set_title(
        f"accuracy {metrics.accuracy:.3f}, macro-F1 {metrics.macro_f1:.3f}"
        + ("\nclasses by number, in report.md's order" if numbered else "")
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans CJK JP", "WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "SimHei",
             "Droid Sans Fallback", "AR PL UMing CN")  # fmt: skip


def _drawable(names: list[str], plt) -> list[str]:
    """The class names as the PNG can draw them: as they are when ASCII or when a CJK font is installed
    (then used), else numbered (0, 1, ...), the order of report.md's tables."""
    if all(n.isascii() for n in names):
        return names
    from matplotlib import font_manager

    available = {f.name for f in font_manager.fontManager.ttflist}
    font = next((f for f in CJK_FONTS if f in available), None)
    if font is None:
        return [str(i) if not n.isascii() else n for i, n in enumerate(names)]
    plt.rcParams["font.sans-serif"] = [font, *plt.rcParams["font.sans-serif"]]
    return names
