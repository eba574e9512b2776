from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.system_one_score_question_type import check_system_one_score_question_type
from ..models.system_one_score_question_type import SystemOneScoreQuestionType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.system_one_score_question_criteria_item_type_1 import SystemOneScoreQuestionCriteriaItemType1
  from ..models.system_one_score_question_instructions_type_1 import SystemOneScoreQuestionInstructionsType1





T = TypeVar("T", bound="SystemOneScoreQuestion")



@_attrs_define
class SystemOneScoreQuestion:
    """ Rate against ``criteria``: the levels' descriptions, lowest first (answered with their positions).

        Attributes:
            criteria (list[list[Any] | str | SystemOneScoreQuestionCriteriaItemType1]):
            type_ (SystemOneScoreQuestionType):
            instructions (list[Any] | None | str | SystemOneScoreQuestionInstructionsType1 | Unset):
            labels (Any | Unset): Not taken by a `score` question
     """

    criteria: list[list[Any] | str | SystemOneScoreQuestionCriteriaItemType1]
    type_: SystemOneScoreQuestionType
    instructions: list[Any] | None | str | SystemOneScoreQuestionInstructionsType1 | Unset = UNSET
    labels: Any | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.system_one_score_question_criteria_item_type_1 import SystemOneScoreQuestionCriteriaItemType1 # noqa: PLC0415
        from ..models.system_one_score_question_instructions_type_1 import SystemOneScoreQuestionInstructionsType1 # noqa: PLC0415
        criteria = []
        for criteria_item_data in self.criteria:
            criteria_item: dict[str, Any] | list[Any] | str
            if isinstance(criteria_item_data, SystemOneScoreQuestionCriteriaItemType1):
                criteria_item = criteria_item_data.to_dict()
            elif isinstance(criteria_item_data, list):
                criteria_item = criteria_item_data


            else:
                criteria_item = criteria_item_data
            criteria.append(criteria_item)



        type_: str = self.type_

        instructions: dict[str, Any] | list[Any] | None | str | Unset
        if isinstance(self.instructions, Unset):
            instructions = UNSET
        elif isinstance(self.instructions, SystemOneScoreQuestionInstructionsType1):
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
        from ..models.system_one_score_question_criteria_item_type_1 import SystemOneScoreQuestionCriteriaItemType1 # noqa: PLC0415
        from ..models.system_one_score_question_instructions_type_1 import SystemOneScoreQuestionInstructionsType1 # noqa: PLC0415
        d = dict(src_dict)
        criteria = []
        _criteria = d.pop("criteria")
        for criteria_item_data in (_criteria):
            def _parse_criteria_item(data: object) -> list[Any] | str | SystemOneScoreQuestionCriteriaItemType1:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    criteria_item_type_1 = SystemOneScoreQuestionCriteriaItemType1.from_dict(data)



                    return criteria_item_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, list):
                        raise TypeError()
                    criteria_item_type_2 = cast(list[Any], data)

                    return criteria_item_type_2
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                return cast(list[Any] | str | SystemOneScoreQuestionCriteriaItemType1, data)

            criteria_item = _parse_criteria_item(criteria_item_data)

            criteria.append(criteria_item)


        type_ = check_system_one_score_question_type(d.pop("type"))




        def _parse_instructions(data: object) -> list[Any] | None | str | SystemOneScoreQuestionInstructionsType1 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                instructions_type_1 = SystemOneScoreQuestionInstructionsType1.from_dict(data)



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
            return cast(list[Any] | None | str | SystemOneScoreQuestionInstructionsType1 | Unset, data)

        instructions = _parse_instructions(d.pop("instructions", UNSET))


        labels = d.pop("labels", UNSET)

        system_one_score_question = cls(
            criteria=criteria,
            type_=type_,
            instructions=instructions,
            labels=labels,
        )

        return system_one_score_question

