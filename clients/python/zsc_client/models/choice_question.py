from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.choice_question_type import check_choice_question_type
from ..models.choice_question_type import ChoiceQuestionType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.choice import Choice
  from ..models.input_json import InputJson
  from ..models.question_image import QuestionImage
  from ..models.question_text import QuestionText





T = TypeVar("T", bound="ChoiceQuestion")



@_attrs_define
class ChoiceQuestion:
    """ Choose from the supplied options based on the input.

        Attributes:
            choices (list[Choice]): The options, each value once (typed: `true` and `"true"` are two values). Two choices
                with the same value are refused with 400 even when their descriptions differ (no JSON schema can say "unique by
                one field"; `uniqueItems` states the part it can).
            instructions (list[InputJson | QuestionImage | QuestionText] | str):
            type_ (ChoiceQuestionType):
            name (str | Unset):
     """

    choices: list[Choice]
    instructions: list[InputJson | QuestionImage | QuestionText] | str
    type_: ChoiceQuestionType
    name: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.choice import Choice # noqa: PLC0415
        from ..models.input_json import InputJson # noqa: PLC0415
        from ..models.question_image import QuestionImage # noqa: PLC0415
        from ..models.question_text import QuestionText # noqa: PLC0415
        choices = []
        for choices_item_data in self.choices:
            choices_item = choices_item_data.to_dict()
            choices.append(choices_item)



        instructions: list[dict[str, Any]] | str
        if isinstance(self.instructions, list):
            instructions = []
            for instructions_type_1_item_data in self.instructions:
                instructions_type_1_item: dict[str, Any]
                if isinstance(instructions_type_1_item_data, QuestionText):
                    instructions_type_1_item = instructions_type_1_item_data.to_dict()
                elif isinstance(instructions_type_1_item_data, QuestionImage):
                    instructions_type_1_item = instructions_type_1_item_data.to_dict()
                else:
                    instructions_type_1_item = instructions_type_1_item_data.to_dict()

                instructions.append(instructions_type_1_item)


        else:
            instructions = self.instructions

        type_: str = self.type_

        name = self.name


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "choices": choices,
            "instructions": instructions,
            "type": type_,
        })
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.choice import Choice # noqa: PLC0415
        from ..models.input_json import InputJson # noqa: PLC0415
        from ..models.question_image import QuestionImage # noqa: PLC0415
        from ..models.question_text import QuestionText # noqa: PLC0415
        d = dict(src_dict)
        choices = []
        _choices = d.pop("choices")
        for choices_item_data in (_choices):
            choices_item = Choice.from_dict(choices_item_data)



            choices.append(choices_item)


        def _parse_instructions(data: object) -> list[InputJson | QuestionImage | QuestionText] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                instructions_type_1 = []
                _instructions_type_1 = data
                for instructions_type_1_item_data in (_instructions_type_1):
                    def _parse_instructions_type_1_item(data: object) -> InputJson | QuestionImage | QuestionText:
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            instructions_type_1_item_type_0 = QuestionText.from_dict(data)



                            return instructions_type_1_item_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            instructions_type_1_item_type_1 = QuestionImage.from_dict(data)



                            return instructions_type_1_item_type_1
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        instructions_type_1_item_type_2 = InputJson.from_dict(data)



                        return instructions_type_1_item_type_2

                    instructions_type_1_item = _parse_instructions_type_1_item(instructions_type_1_item_data)

                    instructions_type_1.append(instructions_type_1_item)

                return instructions_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[InputJson | QuestionImage | QuestionText] | str, data)

        instructions = _parse_instructions(d.pop("instructions"))


        type_ = check_choice_question_type(d.pop("type"))




        name = d.pop("name", UNSET)

        choice_question = cls(
            choices=choices,
            instructions=instructions,
            type_=type_,
            name=name,
        )

        return choice_question

