from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.function_call_output_status_type_0 import check_function_call_output_status_type_0
from ..models.function_call_output_status_type_0 import FunctionCallOutputStatusType0
from ..models.function_call_output_type import check_function_call_output_type
from ..models.function_call_output_type import FunctionCallOutputType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.input_text import InputText





T = TypeVar("T", bound="FunctionCallOutput")



@_attrs_define
class FunctionCallOutput:
    """ 
        Attributes:
            call_id (str):
            output (list[InputText] | str):
            type_ (FunctionCallOutputType):
            id (None | str | Unset):
            status (FunctionCallOutputStatusType0 | None | Unset):
     """

    call_id: str
    output: list[InputText] | str
    type_: FunctionCallOutputType
    id: None | str | Unset = UNSET
    status: FunctionCallOutputStatusType0 | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.input_text import InputText # noqa: PLC0415
        call_id = self.call_id

        output: list[dict[str, Any]] | str
        if isinstance(self.output, list):
            output = []
            for output_type_1_item_data in self.output:
                output_type_1_item = output_type_1_item_data.to_dict()
                output.append(output_type_1_item)


        else:
            output = self.output

        type_: str = self.type_

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

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
            "output": output,
            "type": type_,
        })
        if id is not UNSET:
            field_dict["id"] = id
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.input_text import InputText # noqa: PLC0415
        d = dict(src_dict)
        call_id = d.pop("call_id")

        def _parse_output(data: object) -> list[InputText] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                output_type_1 = []
                _output_type_1 = data
                for output_type_1_item_data in (_output_type_1):
                    output_type_1_item = InputText.from_dict(output_type_1_item_data)



                    output_type_1.append(output_type_1_item)

                return output_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[InputText] | str, data)

        output = _parse_output(d.pop("output"))


        type_ = check_function_call_output_type(d.pop("type"))




        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))


        def _parse_status(data: object) -> FunctionCallOutputStatusType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                status_type_0 = check_function_call_output_status_type_0(data)



                return status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FunctionCallOutputStatusType0 | None | Unset, data)

        status = _parse_status(d.pop("status", UNSET))


        function_call_output = cls(
            call_id=call_id,
            output=output,
            type_=type_,
            id=id,
            status=status,
        )

        return function_call_output

