"""What ``bentoml build`` packs (bentofile.yaml's include patterns, read as BentoML reads them): every file
the serving process reads besides Python, so that the bento serves what the working tree serves. The
predicate calibrations in particular: without them every embedding model answers predicates uncalibrated,
silently (``core.decisions.load_calibrations`` gives ``{}`` for a missing file, by design)."""

from __future__ import annotations

import pytest
import yaml
from pathspec import PathSpec

from harness import ROOT
from service.core.decisions import CALIBRATION_FILE, load_calibrations

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pathspec: BentoML's "gitwildmatch"


def packed(path: str) -> bool:
    config = yaml.safe_load((ROOT / "bentofile.yaml").read_text())
    include = PathSpec.from_lines("gitwildmatch", config["include"])
    exclude = PathSpec.from_lines("gitwildmatch", config.get("exclude", []))
    return include.match_file(path) and not exclude.match_file(path)


def test_the_bento_packs_every_file_the_service_reads():
    service = ROOT / "service"
    data = [p for p in service.rglob("*") if p.is_file() and p.suffix in (".json", ".html", ".js", ".css")]
    assert CALIBRATION_FILE in data
    missing = [str(p.relative_to(ROOT)) for p in data if not packed(str(p.relative_to(ROOT)))]
    assert missing == []


def test_the_calibrations_load_for_the_bundled_models():
    table = load_calibrations()
    assert len(table) >= 2 and all(entry["on"] == "t-norm" and len(entry["cohort"]) >= 2 for entry in table.values())
