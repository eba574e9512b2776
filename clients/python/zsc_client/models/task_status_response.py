from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.task_status_response_status import check_task_status_response_status
from ..models.task_status_response_status import TaskStatusResponseStatus
from typing import cast






T = TypeVar("T", bound="TaskStatusResponse")



@_attrs_define
class TaskStatusResponse:
    """ 
        Attributes:
            created_at (str):
            executed_at (None | str):
            status (TaskStatusResponseStatus):
            task_id (str):
     """

    created_at: str
    executed_at: None | str
    status: TaskStatusResponseStatus
    task_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at

        executed_at: None | str
        executed_at = self.executed_at

        status: str = self.status

        task_id = self.task_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "executed_at": executed_at,
            "status": status,
            "task_id": task_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = d.pop("created_at")

        def _parse_executed_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        executed_at = _parse_executed_at(d.pop("executed_at"))


        status = check_task_status_response_status(d.pop("status"))




        task_id = d.pop("task_id")

        task_status_response = cls(
            created_at=created_at,
            executed_at=executed_at,
            status=status,
            task_id=task_id,
        )


        task_status_response.additional_properties = d
        return task_status_response

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
