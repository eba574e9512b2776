from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.assistant_message_phase_type_0 import AssistantMessagePhaseType0
from ..models.assistant_message_phase_type_0 import check_assistant_message_phase_type_0
from ..models.assistant_message_role import AssistantMessageRole
from ..models.assistant_message_role import check_assistant_message_role
from ..models.assistant_message_type import AssistantMessageType
from ..models.assistant_message_type import check_assistant_message_type
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.output_text import OutputText
  from ..models.refusal_part import RefusalPart





T = TypeVar("T", bound="AssistantMessage")



@_attrs_define
class AssistantMessage:
    """ 
        Attributes:
            content (list[OutputText | RefusalPart] | str):
            role (AssistantMessageRole):
            phase (AssistantMessagePhaseType0 | None | Unset):
            type_ (AssistantMessageType | Unset):  Default: 'message'.
     """

    content: list[OutputText | RefusalPart] | str
    role: AssistantMessageRole
    phase: AssistantMessagePhaseType0 | None | Unset = UNSET
    type_: AssistantMessageType | Unset = 'message'





    def to_dict(self) -> dict[str, Any]:
        from ..models.output_text import OutputText # noqa: PLC0415
        from ..models.refusal_part import RefusalPart # noqa: PLC0415
        content: list[dict[str, Any]] | str
        if isinstance(self.content, list):
            content = []
            for content_type_1_item_data in self.content:
                content_type_1_item: dict[str, Any]
                if isinstance(content_type_1_item_data, OutputText):
                    content_type_1_item = content_type_1_item_data.to_dict()
                else:
                    content_type_1_item = content_type_1_item_data.to_dict()

                content.append(content_type_1_item)


        else:
            content = self.content

        role: str = self.role

        phase: None | str | Unset
        if isinstance(self.phase, Unset):
            phase = UNSET
        elif isinstance(self.phase, str):
            phase = self.phase
        else:
            phase = self.phase

        type_: str | Unset = UNSET
        if not isinstance(self.type_, Unset):
            type_ = self.type_



        field_dict: dict[str, Any] = {}

        field_dict.update({
            "content": content,
            "role": role,
        })
        if phase is not UNSET:
            field_dict["phase"] = phase
        if type_ is not UNSET:
            field_dict["type"] = type_

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.output_text import OutputText # noqa: PLC0415
        from ..models.refusal_part import RefusalPart # noqa: PLC0415
        d = dict(src_dict)
        def _parse_content(data: object) -> list[OutputText | RefusalPart] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                content_type_1 = []
                _content_type_1 = data
                for content_type_1_item_data in (_content_type_1):
                    def _parse_content_type_1_item(data: object) -> OutputText | RefusalPart:
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            content_type_1_item_type_0 = OutputText.from_dict(data)



                            return content_type_1_item_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        content_type_1_item_type_1 = RefusalPart.from_dict(data)



                        return content_type_1_item_type_1

                    content_type_1_item = _parse_content_type_1_item(content_type_1_item_data)

                    content_type_1.append(content_type_1_item)

                return content_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[OutputText | RefusalPart] | str, data)

        content = _parse_content(d.pop("content"))


        role = check_assistant_message_role(d.pop("role"))




        def _parse_phase(data: object) -> AssistantMessagePhaseType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                phase_type_0 = check_assistant_message_phase_type_0(data)



                return phase_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AssistantMessagePhaseType0 | None | Unset, data)

        phase = _parse_phase(d.pop("phase", UNSET))


        _type_ = d.pop("type", UNSET)
        type_: AssistantMessageType | Unset
        if isinstance(_type_,  Unset):
            type_ = UNSET
        else:
            type_ = check_assistant_message_type(_type_)




        assistant_message = cls(
            content=content,
            role=role,
            phase=phase,
            type_=type_,
        )

        return assistant_message

