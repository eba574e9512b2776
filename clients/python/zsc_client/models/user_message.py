from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.user_message_role import check_user_message_role
from ..models.user_message_role import UserMessageRole
from ..models.user_message_type import check_user_message_type
from ..models.user_message_type import UserMessageType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.input_json import InputJson
  from ..models.input_text import InputText





T = TypeVar("T", bound="UserMessage")



@_attrs_define
class UserMessage:
    """ 
        Attributes:
            content (list[InputJson | InputText] | str):
            role (UserMessageRole):
            type_ (UserMessageType | Unset):  Default: 'message'.
     """

    content: list[InputJson | InputText] | str
    role: UserMessageRole
    type_: UserMessageType | Unset = 'message'





    def to_dict(self) -> dict[str, Any]:
        from ..models.input_json import InputJson # noqa: PLC0415
        from ..models.input_text import InputText # noqa: PLC0415
        content: list[dict[str, Any]] | str
        if isinstance(self.content, list):
            content = []
            for content_type_1_item_data in self.content:
                content_type_1_item: dict[str, Any]
                if isinstance(content_type_1_item_data, InputText):
                    content_type_1_item = content_type_1_item_data.to_dict()
                else:
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
        from ..models.input_json import InputJson # noqa: PLC0415
        from ..models.input_text import InputText # noqa: PLC0415
        d = dict(src_dict)
        def _parse_content(data: object) -> list[InputJson | InputText] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                content_type_1 = []
                _content_type_1 = data
                for content_type_1_item_data in (_content_type_1):
                    def _parse_content_type_1_item(data: object) -> InputJson | InputText:
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            content_type_1_item_type_0 = InputText.from_dict(data)



                            return content_type_1_item_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        content_type_1_item_type_1 = InputJson.from_dict(data)



                        return content_type_1_item_type_1

                    content_type_1_item = _parse_content_type_1_item(content_type_1_item_data)

                    content_type_1.append(content_type_1_item)

                return content_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[InputJson | InputText] | str, data)

        content = _parse_content(d.pop("content"))


        role = check_user_message_role(d.pop("role"))




        _type_ = d.pop("type", UNSET)
        type_: UserMessageType | Unset
        if isinstance(_type_,  Unset):
            type_ = UNSET
        else:
            type_ = check_user_message_type(_type_)




        user_message = cls(
            content=content,
            role=role,
            type_=type_,
        )

        return user_message

