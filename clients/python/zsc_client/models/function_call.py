from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.function_call_status_type_0 import check_function_call_status_type_0
from ..models.function_call_status_type_0 import FunctionCallStatusType0
from ..models.function_call_type import check_function_call_type
from ..models.function_call_type import FunctionCallType
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="FunctionCall")



@_attrs_define
class FunctionCall:
    """ 
        Attributes:
            arguments (str):
            call_id (str):
            name (str):
            type_ (FunctionCallType):
            id (None | str | Unset):
            namespace (None | str | Unset):
            status (FunctionCallStatusType0 | None | Unset):
     """

    arguments: str
    call_id: str
    name: str
    type_: FunctionCallType
    id: None | str | Unset = UNSET
    namespace: None | str | Unset = UNSET
    status: FunctionCallStatusType0 | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        arguments = self.arguments

        call_id = self.call_id

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
            "arguments": arguments,
            "call_id": call_id,
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
        arguments = d.pop("arguments")

        call_id = d.pop("call_id")

        name = d.pop("name")

        type_ = check_function_call_type(d.pop("type"))




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


        def _parse_status(data: object) -> FunctionCallStatusType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                status_type_0 = check_function_call_status_type_0(data)



                return status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FunctionCallStatusType0 | None | Unset, data)

        status = _parse_status(d.pop("status", UNSET))


        function_call = cls(
            arguments=arguments,
            call_id=call_id,
            name=name,
            type_=type_,
            id=id,
            namespace=namespace,
            status=status,
        )

        return function_call

