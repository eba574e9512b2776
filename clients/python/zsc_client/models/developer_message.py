from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.developer_message_role import check_developer_message_role
from ..models.developer_message_role import DeveloperMessageRole
from ..models.developer_message_type import check_developer_message_type
from ..models.developer_message_type import DeveloperMessageType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.input_text import InputText





T = TypeVar("T", bound="DeveloperMessage")



@_attrs_define
class DeveloperMessage:
    """ 
        Attributes:
            content (list[InputText] | str):
            role (DeveloperMessageRole):
            type_ (DeveloperMessageType | Unset):  Default: 'message'.
     """

    content: list[InputText] | str
    role: DeveloperMessageRole
    type_: DeveloperMessageType | Unset = 'message'





    def to_dict(self) -> dict[str, Any]:
        from ..models.input_text import InputText # noqa: PLC0415
        content: list[dict[str, Any]] | str
        if isinstance(self.content, list):
            content = []
            for content_type_1_item_data in self.content:
                content_type_1_item = content_type_1_item_data.to_dict()
                content.append(content_type_1_item)


        else:
            content = self.content

        role: str = self.role

        type_: str | Unset = UNSET
        if not isinstance(self.type_, Unset):
            type_ = self.type_



        field_dict: dict[str, Any] = {}

        field_dict.update({
            "content": content,
            "role": role,
        })
        if type_ is not UNSET:
            field_dict["type"] = type_

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.input_text import InputText # noqa: PLC0415
        d = dict(src_dict)
        def _parse_content(data: object) -> list[InputText] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                content_type_1 = []
                _content_type_1 = data
                for content_type_1_item_data in (_content_type_1):
                    content_type_1_item = InputText.from_dict(content_type_1_item_data)



                    content_type_1.append(content_type_1_item)

                return content_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[InputText] | str, data)

        content = _parse_content(d.pop("content"))


        role = check_developer_message_role(d.pop("role"))




        _type_ = d.pop("type", UNSET)
        type_: DeveloperMessageType | Unset
        if isinstance(_type_,  Unset):
            type_ = UNSET
        else:
            type_ = check_developer_message_type(_type_)




        developer_message = cls(
            content=content,
            role=role,
            type_=type_,
        )

        return developer_message

