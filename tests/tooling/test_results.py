"""results/ holds only the runs the docs cite, summarised: every folder is named by README.md or a page of
docs/, and the whole folder stays small enough to keep in git."""

from __future__ import annotations

import itertools
import re
import subprocess

from harness import ROOT

RESULTS = ROOT / "results"
MAX_BYTES = 3 * 2**20


def _expanded(reference: str) -> list[str]:
    """``overload-2026-{head,base}{1,2}`` -> the four names it stands for (shell brace expansion)."""
    parts = re.split(r"\{([^{}]*)\}", reference)
    literals, choices = parts[0::2], [p.split(",") for p in parts[1::2]]
    names = []
    for picked in itertools.product(*choices):
        names.append("".join(a + b for a, b in itertools.zip_longest(literals, picked, fillvalue="")))
    return names


def _cited() -> set[str]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    cited: set[str] = set()
    for page in pages:
        for reference in re.findall(r"results/([A-Za-z0-9_.{},-]+)", page.read_text(encoding="utf-8")):
            cited.update(_expanded(reference))
    return cited


def _tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z", "results"], cwd=ROOT, capture_output=True, check=True)
    return [p for p in out.stdout.decode().split("\0") if p]


def test_brace_references_expand_like_the_shell() -> None:
    assert _expanded("overload-{head,base}{1,2}") == [
        "overload-head1",
        "overload-head2",
        "overload-base1",
        "overload-base2",
    ]
    assert _expanded("bench-full") == ["bench-full"]


def test_every_results_folder_is_cited_by_a_doc() -> None:
    folders = {path.split("/")[1] for path in _tracked() if path.count("/") >= 2}
    uncited = sorted(folders - _cited())
    assert not uncited, f"results folders no doc cites (cite them in docs/ or remove them): {uncited}"


def test_results_stay_small() -> None:
    size = sum((ROOT / path).stat().st_size for path in _tracked())
    assert size <= MAX_BYTES, f"results/ holds {size / 2**20:.1f} MiB in git; keep summaries, not raw runs"
