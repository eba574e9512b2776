from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.custom_tool_call_status_type_0 import check_custom_tool_call_status_type_0
from ..models.custom_tool_call_status_type_0 import CustomToolCallStatusType0
from ..models.custom_tool_call_type import check_custom_tool_call_type
from ..models.custom_tool_call_type import CustomToolCallType
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CustomToolCall")



@_attrs_define
class CustomToolCall:
    """ 
        Attributes:
            call_id (str):
            input_ (str):
            name (str):
            type_ (CustomToolCallType):
            id (None | str | Unset):
            namespace (None | str | Unset):
            status (CustomToolCallStatusType0 | None | Unset):
     """

    call_id: str
    input_: str
    name: str
    type_: CustomToolCallType
    id: None | str | Unset = UNSET
    namespace: None | str | Unset = UNSET
    status: CustomToolCallStatusType0 | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        call_id = self.call_id

        input_ = self.input_

        name = self.name

        type_: str = self.type_

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        namespace: None | str | Unset
        if isinstance(self.namespace, Unset):
            namespace = UNSET
        else:
            namespace = self.namespace

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        elif isinstance(self.status, str):
            status = self.status
        else:
            status = self.status


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "call_id": call_id,
            "input": input_,
            "name": name,
            "type": type_,
        })
        if id is not UNSET:
            field_dict["id"] = id
        if namespace is not UNSET:
            field_dict["namespace"] = namespace
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        call_id = d.pop("call_id")

        input_ = d.pop("input")

        name = d.pop("name")

        type_ = check_custom_tool_call_type(d.pop("type"))




        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))


        def _parse_namespace(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        namespace = _parse_namespace(d.pop("namespace", UNSET))


        def _parse_status(data: object) -> CustomToolCallStatusType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                status_type_0 = check_custom_tool_call_status_type_0(data)



                return status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CustomToolCallStatusType0 | None | Unset, data)

        status = _parse_status(d.pop("status", UNSET))


        custom_tool_call = cls(
            call_id=call_id,
            input_=input_,
            name=name,
            type_=type_,
            id=id,
            namespace=namespace,
            status=status,
        )

        return custom_tool_call

