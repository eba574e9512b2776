from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.job_results_page_state import check_job_results_page_state
from ..models.job_results_page_state import JobResultsPageState
from typing import cast

if TYPE_CHECKING:
  from ..models.job_answer import JobAnswer
  from ..models.job_item_error import JobItemError





T = TypeVar("T", bound="JobResultsPage")



@_attrs_define
class JobResultsPage:
    """ 
        Attributes:
            complete (bool): Whether every item of this page is finished.
            id (str):
            limit (int):
            next_offset (int | None): Where the next page starts; null on the last page.
            offset (int):
            results (list[JobAnswer | JobItemError]): The finished items of the page, in order.
            state (JobResultsPageState):
     """

    complete: bool
    id: str
    limit: int
    next_offset: int | None
    offset: int
    results: list[JobAnswer | JobItemError]
    state: JobResultsPageState
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.job_answer import JobAnswer # noqa: PLC0415
        from ..models.job_item_error import JobItemError # noqa: PLC0415
        complete = self.complete

        id = self.id

        limit = self.limit

        next_offset: int | None
        next_offset = self.next_offset

        offset = self.offset

        results = []
        for results_item_data in self.results:
            results_item: dict[str, Any]
            if isinstance(results_item_data, JobAnswer):
                results_item = results_item_data.to_dict()
            else:
                results_item = results_item_data.to_dict()

            results.append(results_item)



        state: str = self.state


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "complete": complete,
            "id": id,
            "limit": limit,
            "next_offset": next_offset,
            "offset": offset,
            "results": results,
            "state": state,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_answer import JobAnswer # noqa: PLC0415
        from ..models.job_item_error import JobItemError # noqa: PLC0415
        d = dict(src_dict)
        complete = d.pop("complete")

        id = d.pop("id")

        limit = d.pop("limit")

        def _parse_next_offset(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        next_offset = _parse_next_offset(d.pop("next_offset"))


        offset = d.pop("offset")

        results = []
        _results = d.pop("results")
        for results_item_data in (_results):
            def _parse_results_item(data: object) -> JobAnswer | JobItemError:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    results_item_type_0 = JobAnswer.from_dict(data)



                    return results_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                results_item_type_1 = JobItemError.from_dict(data)



                return results_item_type_1

            results_item = _parse_results_item(results_item_data)

            results.append(results_item)


        state = check_job_results_page_state(d.pop("state"))




        job_results_page = cls(
            complete=complete,
            id=id,
            limit=limit,
            next_offset=next_offset,
            offset=offset,
            results=results,
            state=state,
        )


        job_results_page.additional_properties = d
        return job_results_page

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
