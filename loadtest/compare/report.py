"""A load test's report: ``report.md`` with tables, ``throughput.png`` and ``latency.png``, ``summary.csv``,
``results.json``. Reads only ``Results``, so a report can be written again from a stored ``results.json``."""

from __future__ import annotations

import csv
from pathlib import Path

from harness.cpus import format_cpus
from harness.report import ms, pyplot, save, table

from .results import Results, Step, TargetResult

DATASETS = " plus ../shared/datasets (THUCNews headlines, CIC intents) when present"
SUMMARY_COLUMNS = (
    "target", "users", "requests", "failures", "failure_rate", "requests_per_s", "texts_per_s", "pairs_per_s",
    "p50_ms", "p95_ms", "p99_ms", "cache_hit_rate", "server_cores", "front_cores", "loadgen_cores", "other_cores",
)  # fmt: skip


def write_report(results: Results, out: Path) -> None:
    results.save(out / "results.json")
    write_summary_csv(results, out / "summary.csv")
    charts(results, out)
    (out / "report.md").write_text(markdown(results))


def write_summary_csv(results: Results, path: Path) -> None:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(SUMMARY_COLUMNS)
        for s in results.steps:
            w.writerow([_fmt_csv(getattr(s, c)) for c in SUMMARY_COLUMNS])


def _fmt_csv(v) -> str:
    if v is None:
        return ""
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def peaks(results: Results) -> dict[str, Step]:
    """Per target: the step with the most pairs/s among those with under 1% failures (else any)."""
    out = {}
    for t in results.targets:
        steps = results.steps_of(t.key)
        good = [s for s in steps if s.failure_rate < 0.01] or steps
        if good:
            out[t.key] = max(good, key=lambda s: s.pairs_per_s)
    return out


def knee(steps: list[Step], gain: float = 1.2) -> tuple[int, bool] | None:
    """(users, found): the last user count after which more users raised pairs/s by under ``gain`` (20%):
    past it, more users mostly add latency. found is False when throughput still grew at the last step."""
    steps = sorted(steps, key=lambda s: s.users)
    if not steps:
        return None
    for a, b in zip(steps, steps[1:]):
        if b.pairs_per_s < gain * a.pairs_per_s:
            return a.users, True
    return steps[-1].users, False


def _latencies(x) -> str:
    return f"{ms(x.p50_ms)} / {ms(x.p95_ms)} / {ms(x.p99_ms)}"


def markdown(results: Results) -> str:
    plan, m, v, place = results.plan, results.machine, results.versions, results.placement
    minutes = (results.finished - results.started) / 60
    by_target = {t.key: t for t in results.targets}
    top = peaks(results)
    naive = top.get("naive")
    waited = (
        f" ({results.waited_for_quiet_s / 60:.1f} of them waiting for other processes to leave the CPUs)."
        if results.waited_for_quiet_s
        else "."
    )
    lines = [
        f"# Load test {results.run}",
        "",
        f"Model `{results.model.name}` ({results.model.kind}); "
        f"{m['cpu']}, {m['cpus']} CPUs, {m['memory_gib']} GiB, {m['os']} (kernel {m['kernel']}). "
        f"Run took {minutes:.1f} min{waited}",
        "",
        "Versions: " + ", ".join(f"{k} {val}" for k, val in v.items()) + ".",
        "",
        "## Headline",
        "",
    ]
    headline = []
    for t in results.targets:
        s = top.get(t.key)
        if not s:
            why = t.error or t.skipped or "no data"
            headline.append([t.label, "—", "—", "—", "—", "—", "—", why[:80]])
            continue
        k = knee(results.steps_of(t.key))
        k_text = "—" if not k else (str(k[0]) if k[1] else f"> {k[0]} (still rising)")
        ratio = f"{s.pairs_per_s / naive.pairs_per_s:.1f}" if naive and naive.pairs_per_s else "—"
        headline.append(
            [t.label, f"{s.pairs_per_s:.0f}", f"{s.requests_per_s:.1f}", s.users, _latencies(s),
             f"{s.failure_rate:.1%}", ratio, k_text]
        )  # fmt: skip
    lines += table(
        ["target", "best pairs/s", "req/s there", "users", "p50 / p95 / p99 ms", "failures", "× naive pairs/s",
         "knee (users)"],
        headline,
    )  # fmt: skip
    lines += [
        "",
        "Best = the step with the most (text, label) pairs answered per second (under 1% failures). Knee = the "
        "last user count after which more users raised pairs/s by under 20%: past it, more users mostly add "
        "latency. × naive compares pairs/s with the naive baseline's best.",
        "",
        "![throughput](throughput.png)",
        "",
        "![latency](latency.png)",
        "",
        "## Every step",
        "",
        "Rates are over the step's measuring window; pairs = (text, label) pairs answered, texts = texts "
        "classified (a `/classify_batch` call carries several). Latency percentiles are Locust's, over both "
        "endpoints. Cache hit = share of answers served entirely from the cache (`X-Cache: hit`). CPU columns "
        "are cores busy on average during the step: the servers (replicas or the naive server), nginx + "
        "Redis, Locust, and everything else on the machine (should be near 0: otherwise the step shared the "
        "machine with something else). A 1-user step carries only a few dozen requests: its percentiles are rough.",
        "",
    ]
    rows = []
    for s in results.steps:
        hit = "—" if s.cache_hit_rate is None or s.target == "naive" else f"{s.cache_hit_rate:.0%}"
        rows.append(
            [by_target[s.target].label, s.users, s.requests, f"{s.requests_per_s:.1f}", f"{s.texts_per_s:.1f}",
             f"{s.pairs_per_s:.0f}", _latencies(s), f"{s.failure_rate:.1%}", hit, f"{s.server_cores:.2f}",
             f"{s.front_cores:.2f}", f"{s.loadgen_cores:.2f}", f"{s.other_cores:.2f}"]
        )  # fmt: skip
    lines += table(
        ["target", "users", "requests", "req/s", "texts/s", "pairs/s", "p50 / p95 / p99 ms", "failures", "cache hit",
         "server CPU", "nginx+redis CPU", "Locust CPU", "other CPU"],
        rows,
    )  # fmt: skip
    skipped = [t for t in results.targets if t.skipped_users]
    if skipped:
        lines += [""] + [
            f"- {t.label}: {', '.join(map(str, t.skipped_users))} users not run: {t.skip_reason}." for t in skipped
        ]
    lines += ["", "## By endpoint (at each target's best step)", ""]
    lines += table(
        ["target", "endpoint", "requests", "req/s", "p50 / p95 / p99 ms", "failures"],
        [
            [f"{by_target[key].label} ({s.users} users)", f"`{name}`", e.requests, f"{(e.requests_per_s or 0):.1f}",
             _latencies(e), e.failures]
            for key, s in top.items()
            for name, e in s.endpoints.items()
        ],
    )  # fmt: skip
    lines += ["", "## Where everything ran", ""]
    lines += [
        f"Locust on CPU {format_cpus(place.loadgen)}; nginx and redis-server on CPU {format_cpus(place.front)}.",
        "",
    ]
    lines += table(
        ["target", "member", "CPU set", "intra-op threads", "affinity seen", "OS threads in the worker"],
        [
            [t.label, mem.name, format_cpus(mem.cpus), mem.threads or "auto",
             ",".join(map(str, mem.affinity)) or "?", mem.os_threads if mem.os_threads is not None else "?"]
            for t in results.targets
            for mem in t.members
        ],
    )  # fmt: skip
    lines += ["", "## What this machine can and cannot show", ""] + limits(results)
    lines += [
        "",
        "## Configuration",
        "",
        f"- Users per step: {', '.join(map(str, plan.users))}; {plan.step_s:g} s per step, all users "
        "started at once (`-r` = `-u`), think time "
        f"{plan.think} s (uniform) between a user's requests.",
        f"- Workload: `loadtest/data/workload.jsonl`{'' if plan.shipped_only else DATASETS}; "
        f"{plan.labels} labels per text (capped by the dataset's classes; {_mean_labels(results)} on average); "
        f"{plan.batch_share:.0%} of requests "
        "are `/classify_batch` with 2-8 items (the naive baseline has `/classify` only, so compare pairs/s, not "
        f"req/s); {plan.repeat_rate:.0%} of texts drawn from a Zipf-weighted hot set (s = 1.1, 200 requests), "
        "the rest never seen before.",
        "- Cache off: `ZSC_CACHE_LOCAL_ENTRIES=0`, no Redis (an embedding model still encodes each label once "
        "per process: that is the model's design, not the cache). Cache on: the in-process tier plus Redis.",
        f"- A step stops the target's larger user counts when p95 > {plan.stop_p95_s:g} s or failures > "
        f"{plan.stop_failures:.0%}. Each target gets {plan.warmup_requests} warm-up requests first.",
        "- Model template: `"
        + results.model.template
        + "`; model tag served: "
        + ", ".join(sorted({str(t.model_tag) for t in results.targets if t.model_tag}) or ["—"])
        + ".",
        f"- Shared machine: waited {results.waited_for_quiet_s:g} s in all for other processes to "
        "leave the CPUs before steps; a step during which they used over 0.25 cores was run again once (the "
        "cache keeps what the first attempt put in it).",
        "- Locust's CSVs: `csv/<target>/u<users>_stats.csv` (`_failures.csv` when a step had failures; "
        "`_zsc.json`: pairs, texts and X-Cache counts); every step in `summary.csv`, everything in `results.json`.",
    ]
    return "\n".join(lines) + "\n"


def _mean_labels(results: Results) -> str:
    texts = sum(s.texts_per_s * s.window_s for s in results.steps)
    pairs = sum(s.pairs_per_s * s.window_s for s in results.steps)
    return f"{pairs / texts:.1f}" if texts else "—"


def limits(results: Results) -> list[str]:
    place, n_cpus = results.placement, results.machine["cpus"]
    out = []
    shared = [
        (t.label, mem.name)
        for t in results.targets
        for mem in t.members
        if mem.cpus and set(mem.cpus) & set(place.loadgen) and t.replicas > 0
    ]
    lg = max((s.loadgen_cores for s in results.steps), default=0.0)
    other = max((s.other_cores for s in results.steps), default=0.0)
    out += [f"- {n}." for n in place.notes]
    if place.pinned:
        out.append(
            f"- {n_cpus} CPUs in all. The naive server and the single replica each get "
            f"CPU {format_cpus(place.server)}; Locust gets CPU {format_cpus(place.loadgen)} "
            f"(it used up to {lg:.2f} of a core)."
        )
    else:
        out.append(
            f"- {n_cpus} CPUs in all, nothing pinned: servers, Locust (up to {lg:.2f} of a core), nginx and "
            "Redis all compete for every CPU."
        )
    if shared:
        who = " and ".join(sorted({m for _label, m in shared}))
        out.append(
            f"- Not enough CPUs for every replica to have its own: in the multi-replica targets {who} shares CPU "
            f"{format_cpus(place.loadgen)} with Locust, nginx and Redis. So N replicas here measure N cores of "
            "serving minus what the load generator and the proxy take; the gain over one replica is a lower "
            "bound of what separate cores or machines give."
        )
    out += [
        "- What it can show: throughput per core, where the knee is (the user count past which only "
        "latency grows), the naive baseline against the batched service on identical cores, what nginx adds, "
        "what the cache gives for a stated repeat rate, and failures under overload.",
        f"- What it cannot show: scaling past {n_cpus} cores, replicas on separate machines (a real network, "
        "separate memory bandwidth), a load generator that never competes with the servers, GPU numbers. "
        "Per-core figures from here multiply only as far as the next bottleneck (nginx, Redis, the network).",
    ]
    if other > 0.2:
        out.append(
            f"- Other processes used up to {other:.2f} cores during some steps (column 'other CPU'): those "
            "steps shared the machine and understate the servers."
        )
    return out


def _style(target: TargetResult) -> dict:
    """Colour by replica count, dashed = cache off, black dotted = the naive baseline."""
    if target.replicas == 0:
        return {"color": "black", "linestyle": ":", "marker": "s"}
    colours = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
    return {
        "color": colours[(target.replicas - 1) % len(colours)],
        "linestyle": "-" if target.cache else "--",
        "marker": "o" if target.cache else "^",
    }


def charts(results: Results, out: Path) -> None:
    plt = pyplot()
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator, ScalarFormatter

    series: dict[str, list[Step]] = {}
    for s in results.steps:
        series.setdefault(s.target, []).append(s)
    users = sorted({s.users for s in results.steps}) or [1]
    title = f"{results.model.name}, {results.machine['cpus']} CPUs"

    def users_axis(ax) -> None:
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(users))
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlim(users[0] / 1.4, users[-1] * 1.4)
        ax.set_xlabel("concurrent users")
        ax.grid(alpha=0.3, which="both")

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for key, steps in series.items():
        target = results.target(key)
        x = [s.users for s in steps]
        kw = {"label": target.label, **_style(target)}
        axes[0].plot(x, [s.pairs_per_s for s in steps], **kw)
        axes[1].plot(x, [s.requests_per_s for s in steps], **kw)
    for ax, what in zip(axes, ("(text, label) pairs / s", "requests / s")):
        users_axis(ax)
        ax.set_ylabel(what)
        ax.set_ylim(bottom=0)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"Throughput vs users ({title}; higher is better)")
    save(fig, out / "throughput.png")

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5), sharey=True)
    for ax, p in zip(axes, ("p50", "p95", "p99")):
        for key, steps in series.items():
            pts = [(s.users, getattr(s, f"{p}_ms")) for s in steps if getattr(s, f"{p}_ms")]
            if pts:
                ax.plot(*zip(*pts), label=results.target(key).label, **_style(results.target(key)))
        users_axis(ax)
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_title(p)
    axes[0].set_ylabel("latency, ms (log scale)")
    axes[0].legend(fontsize=8)
    fig.suptitle(f"Latency percentiles vs users ({title}; lower is better)")
    save(fig, out / "latency.png")
