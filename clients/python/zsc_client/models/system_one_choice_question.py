from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.system_one_choice_question_type import check_system_one_choice_question_type
from ..models.system_one_choice_question_type import SystemOneChoiceQuestionType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.system_one_choice_question_criteria import SystemOneChoiceQuestionCriteria
  from ..models.system_one_choice_question_instructions_type_1 import SystemOneChoiceQuestionInstructionsType1





T = TypeVar("T", bound="SystemOneChoiceQuestion")



@_attrs_define
class SystemOneChoiceQuestion:
    """ Pick one of the options named in ``criteria`` (each with a description, or null; left out of the
    answers when an option has neither a name nor a description to read).

        Attributes:
            criteria (SystemOneChoiceQuestionCriteria):
            type_ (SystemOneChoiceQuestionType):
            instructions (list[Any] | None | str | SystemOneChoiceQuestionInstructionsType1 | Unset):
            labels (Any | Unset): Not taken by a `choice` question
     """

    criteria: SystemOneChoiceQuestionCriteria
    type_: SystemOneChoiceQuestionType
    instructions: list[Any] | None | str | SystemOneChoiceQuestionInstructionsType1 | Unset = UNSET
    labels: Any | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.system_one_choice_question_criteria import SystemOneChoiceQuestionCriteria # noqa: PLC0415
        from ..models.system_one_choice_question_instructions_type_1 import SystemOneChoiceQuestionInstructionsType1 # noqa: PLC0415
        criteria = self.criteria.to_dict()

        type_: str = self.type_

        instructions: dict[str, Any] | list[Any] | None | str | Unset
        if isinstance(self.instructions, Unset):
            instructions = UNSET
        elif isinstance(self.instructions, SystemOneChoiceQuestionInstructionsType1):
            instructions = self.instructions.to_dict()
        elif isinstance(self.instructions, list):
            instructions = self.instructions


        else:
            instructions = self.instructions

        labels = self.labels


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "criteria": criteria,
            "type": type_,
        })
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if labels is not UNSET:
            field_dict["labels"] = labels

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.system_one_choice_question_criteria import SystemOneChoiceQuestionCriteria # noqa: PLC0415
        from ..models.system_one_choice_question_instructions_type_1 import SystemOneChoiceQuestionInstructionsType1 # noqa: PLC0415
        d = dict(src_dict)
        criteria = SystemOneChoiceQuestionCriteria.from_dict(d.pop("criteria"))




        type_ = check_system_one_choice_question_type(d.pop("type"))




        def _parse_instructions(data: object) -> list[Any] | None | str | SystemOneChoiceQuestionInstructionsType1 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                instructions_type_1 = SystemOneChoiceQuestionInstructionsType1.from_dict(data)



                return instructions_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, list):
                    raise TypeError()
                instructions_type_2 = cast(list[Any], data)

                return instructions_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Any] | None | str | SystemOneChoiceQuestionInstructionsType1 | Unset, data)

        instructions = _parse_instructions(d.pop("instructions", UNSET))


        labels = d.pop("labels", UNSET)

        system_one_choice_question = cls(
            criteria=criteria,
            type_=type_,
            instructions=instructions,
            labels=labels,
        )

        return system_one_choice_question

