from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.job_status_backend import check_job_status_backend
from ..models.job_status_backend import JobStatusBackend
from ..models.job_status_state import check_job_status_state
from ..models.job_status_state import JobStatusState
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.job_links import JobLinks





T = TypeVar("T", bound="JobStatus")



@_attrs_define
class JobStatus:
    """ 
        Attributes:
            backend (JobStatusBackend): redis: any replica answers for it; memory: this one.
            chunks (int):
            chunks_done (int):
            created (float): Unix time.
            done (int): Items with a stored result (answers and item errors).
            elapsed_s (float): From the first chunk taken to the end (or now).
            errors (int): Of those, items answered with an error.
            id (str): The job's id (unguessable: whoever holds it can read, cancel and delete the job).
            links (JobLinks):
            progress (float): done / total.
            state (JobStatusState):
            total (int): Items in the job.
            ttl_s (int): The job and its results are kept this long once it has ended (done or cancelled).
            estimated (int | None | Unset): Items asking for calibration "job": chunks whose texts are in the job's sample
                so far (the estimate pass, before any is answered); null when no item does.
            finished (float | None | Unset):
            items_per_s (float | None | Unset):
            started (float | None | Unset):
     """

    backend: JobStatusBackend
    chunks: int
    chunks_done: int
    created: float
    done: int
    elapsed_s: float
    errors: int
    id: str
    links: JobLinks
    progress: float
    state: JobStatusState
    total: int
    ttl_s: int
    estimated: int | None | Unset = UNSET
    finished: float | None | Unset = UNSET
    items_per_s: float | None | Unset = UNSET
    started: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.job_links import JobLinks # noqa: PLC0415
        backend: str = self.backend

        chunks = self.chunks

        chunks_done = self.chunks_done

        created = self.created

        done = self.done

        elapsed_s = self.elapsed_s

        errors = self.errors

        id = self.id

        links = self.links.to_dict()

        progress = self.progress

        state: str = self.state

        total = self.total

        ttl_s = self.ttl_s

        estimated: int | None | Unset
        if isinstance(self.estimated, Unset):
            estimated = UNSET
        else:
            estimated = self.estimated

        finished: float | None | Unset
        if isinstance(self.finished, Unset):
            finished = UNSET
        else:
            finished = self.finished

        items_per_s: float | None | Unset
        if isinstance(self.items_per_s, Unset):
            items_per_s = UNSET
        else:
            items_per_s = self.items_per_s

        started: float | None | Unset
        if isinstance(self.started, Unset):
            started = UNSET
        else:
            started = self.started


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "backend": backend,
            "chunks": chunks,
            "chunks_done": chunks_done,
            "created": created,
            "done": done,
            "elapsed_s": elapsed_s,
            "errors": errors,
            "id": id,
            "links": links,
            "progress": progress,
            "state": state,
            "total": total,
            "ttl_s": ttl_s,
        })
        if estimated is not UNSET:
            field_dict["estimated"] = estimated
        if finished is not UNSET:
            field_dict["finished"] = finished
        if items_per_s is not UNSET:
            field_dict["items_per_s"] = items_per_s
        if started is not UNSET:
            field_dict["started"] = started

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_links import JobLinks # noqa: PLC0415
        d = dict(src_dict)
        backend = check_job_status_backend(d.pop("backend"))




        chunks = d.pop("chunks")

        chunks_done = d.pop("chunks_done")

        created = d.pop("created")

        done = d.pop("done")

        elapsed_s = d.pop("elapsed_s")

        errors = d.pop("errors")

        id = d.pop("id")

        links = JobLinks.from_dict(d.pop("links"))




        progress = d.pop("progress")

        state = check_job_status_state(d.pop("state"))




        total = d.pop("total")

        ttl_s = d.pop("ttl_s")

        def _parse_estimated(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        estimated = _parse_estimated(d.pop("estimated", UNSET))


        def _parse_finished(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        finished = _parse_finished(d.pop("finished", UNSET))


        def _parse_items_per_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        items_per_s = _parse_items_per_s(d.pop("items_per_s", UNSET))


        def _parse_started(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        started = _parse_started(d.pop("started", UNSET))


        job_status = cls(
            backend=backend,
            chunks=chunks,
            chunks_done=chunks_done,
            created=created,
            done=done,
            elapsed_s=elapsed_s,
            errors=errors,
            id=id,
            links=links,
            progress=progress,
            state=state,
            total=total,
            ttl_s=ttl_s,
            estimated=estimated,
            finished=finished,
            items_per_s=items_per_s,
            started=started,
        )


        job_status.additional_properties = d
        return job_status

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
