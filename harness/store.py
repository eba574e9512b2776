"""The BentoML model store, read through BentoML's public API (``bentoml.models.get``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .launchers import QUIET_ENV, tool
from .process import HarnessError, run_command


@dataclass(frozen=True)
class StoredModel:
    tag: str
    path: Path
    metadata: dict[str, Any]

    @property
    def kind(self) -> str:
        return self.metadata["kind"]


def use_home(home: Path) -> None:
    """Point this process's BentoML at ``home``. BentoML reads BENTOML_HOME once, on first use of its
    stores: call this before anything here touches one."""
    os.environ["BENTOML_HOME"] = str(home)


def stored_model(tag: str) -> StoredModel:
    """A model of this process's store (``use_home`` first when it is not the default one)."""
    import bentoml
    from bentoml.exceptions import NotFound

    try:
        m = bentoml.models.get(tag)
    except NotFound:
        home = os.environ.get("BENTOML_HOME")
        raise HarnessError(f"model {tag!r} is not in {home}: import it (zsc import-model)") from None
    home = os.environ.get("BENTOML_HOME")
    if home and not Path(m.path).resolve().is_relative_to(Path(home).resolve()):
        raise HarnessError(f"this process already reads another BentoML home than {home}: use_home() came too late")
    return StoredModel(str(m.tag), Path(m.path), dict(m.info.metadata))


def ensure_default(env: Mapping[str, str]) -> None:
    """The bundled model in the store of ``env`` (imported on first use: a minute or so)."""
    cmd = [*tool("zsc", "service.cli"), "-q", "ensure-default"]
    run_command(cmd, {**env, **QUIET_ENV}, timeout=900, what="zsc ensure-default")


def import_model(source: str, name: str, env: Mapping[str, str], *args: str) -> None:
    """``zsc import-model`` into the store of ``env``, its progress on this terminal."""
    cmd = [*tool("zsc", "service.cli"), "import-model", source, "--name", name, *args]
    run_command(cmd, {**env, **QUIET_ENV}, timeout=1800, capture=False, what=f"zsc import-model {source}")
