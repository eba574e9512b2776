from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.system_one_request_questions import SystemOneRequestQuestions
  from ..models.system_one_request_state_type_1 import SystemOneRequestStateType1





T = TypeVar("T", bound="SystemOneRequest")



@_attrs_define
class SystemOneRequest:
    """ ``client.system_one(state=..., questions=..., model=...)``'s body.

        Example:
            {'model': 'multilingual-e5-small', 'questions': {'billing': {'instructions': 'The message is about billing.',
                'type': 'noul'}, 'tone': {'criteria': {'angry': 'upset or hostile', 'calm': None}, 'instructions': 'What is the
                tone of this message?', 'type': 'choice'}, 'urgency': {'criteria': ['Can wait', 'Needs attention this week',
                'Urgent'], 'type': 'score'}}, 'state': 'I was charged twice for one order. Please help.'}

        Attributes:
            model (str):
            questions (SystemOneRequestQuestions):
            state (list[Any] | str | SystemOneRequestStateType1):
     """

    model: str
    questions: SystemOneRequestQuestions
    state: list[Any] | str | SystemOneRequestStateType1





    def to_dict(self) -> dict[str, Any]:
        from ..models.system_one_request_questions import SystemOneRequestQuestions # noqa: PLC0415
        from ..models.system_one_request_state_type_1 import SystemOneRequestStateType1 # noqa: PLC0415
        model = self.model

        questions = self.questions.to_dict()

        state: dict[str, Any] | list[Any] | str
        if isinstance(self.state, SystemOneRequestStateType1):
            state = self.state.to_dict()
        elif isinstance(self.state, list):
            state = self.state


        else:
            state = self.state


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "model": model,
            "questions": questions,
            "state": state,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.system_one_request_questions import SystemOneRequestQuestions # noqa: PLC0415
        from ..models.system_one_request_state_type_1 import SystemOneRequestStateType1 # noqa: PLC0415
        d = dict(src_dict)
        model = d.pop("model")

        questions = SystemOneRequestQuestions.from_dict(d.pop("questions"))




        def _parse_state(data: object) -> list[Any] | str | SystemOneRequestStateType1:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                state_type_1 = SystemOneRequestStateType1.from_dict(data)



                return state_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, list):
                    raise TypeError()
                state_type_2 = cast(list[Any], data)

                return state_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Any] | str | SystemOneRequestStateType1, data)

        state = _parse_state(d.pop("state"))


        system_one_request = cls(
            model=model,
            questions=questions,
            state=state,
        )

        return system_one_request

