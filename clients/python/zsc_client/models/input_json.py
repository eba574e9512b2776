from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.input_json_type import check_input_json_type
from ..models.input_json_type import InputJsonType
from typing import cast

if TYPE_CHECKING:
  from ..models.input_json_data_type_0 import InputJsonDataType0
  from ..models.input_json_data_type_1_item import InputJsonDataType1Item





T = TypeVar("T", bound="InputJson")



@_attrs_define
class InputJson:
    """ A JSON object or a list of objects, read as text.

        Attributes:
            data (InputJsonDataType0 | list[InputJsonDataType1Item]):
            type_ (InputJsonType):
     """

    data: InputJsonDataType0 | list[InputJsonDataType1Item]
    type_: InputJsonType





    def to_dict(self) -> dict[str, Any]:
        from ..models.input_json_data_type_0 import InputJsonDataType0 # noqa: PLC0415
        from ..models.input_json_data_type_1_item import InputJsonDataType1Item # noqa: PLC0415
        data: dict[str, Any] | list[dict[str, Any]]
        if isinstance(self.data, InputJsonDataType0):
            data = self.data.to_dict()
        else:
            data = []
            for data_type_1_item_data in self.data:
                data_type_1_item = data_type_1_item_data.to_dict()
                data.append(data_type_1_item)




        type_: str = self.type_


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "data": data,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.input_json_data_type_0 import InputJsonDataType0 # noqa: PLC0415
        from ..models.input_json_data_type_1_item import InputJsonDataType1Item # noqa: PLC0415
        d = dict(src_dict)
        def _parse_data(data: object) -> InputJsonDataType0 | list[InputJsonDataType1Item]:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                data_type_0 = InputJsonDataType0.from_dict(data)



                return data_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, list):
                raise TypeError()
            data_type_1 = []
            _data_type_1 = data
            for data_type_1_item_data in (_data_type_1):
                data_type_1_item = InputJsonDataType1Item.from_dict(data_type_1_item_data)



                data_type_1.append(data_type_1_item)

            return data_type_1

        data = _parse_data(d.pop("data"))


        type_ = check_input_json_type(d.pop("type"))




        input_json = cls(
            data=data,
            type_=type_,
        )

        return input_json

