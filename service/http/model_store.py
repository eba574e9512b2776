"""The BentoML model store, as the rest of the service sees it: a tag in, a ``StoredModel`` out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from service.core.model_spec import StoredModel
from service.errors import NotInStore


def stored(model: Any) -> StoredModel:
    """A ``bentoml.Model`` (a service class's model attribute, or the store's answer) as a ``StoredModel``."""
    created = getattr(model.info, "creation_time", None)
    return StoredModel(
        str(model.tag), Path(model.path), dict(model.info.metadata), int(created.timestamp()) if created else 0
    )


def find_stored(tag: str) -> StoredModel:
    """A model of this process's store by tag (a name: its latest version); ``NotInStore`` when it has none."""
    import bentoml
    from bentoml.exceptions import NotFound

    try:
        return stored(bentoml.models.get(tag))
    except (NotFound, ValueError):
        raise NotInStore(tag) from None
