from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.noul_question_type import check_noul_question_type
from ..models.noul_question_type import NoulQuestionType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.noul_criteria import NoulCriteria
  from ..models.noul_labels import NoulLabels
  from ..models.noul_question_instructions_type_1 import NoulQuestionInstructionsType1





T = TypeVar("T", bound="NoulQuestion")



@_attrs_define
class NoulQuestion:
    """ A yes/no question or statement; answered with the probability of yes (left out of the answers when it
    has nothing to judge: no instructions and no outcome described or named).

        Attributes:
            type_ (NoulQuestionType):
            criteria (None | NoulCriteria | Unset):
            instructions (list[Any] | None | NoulQuestionInstructionsType1 | str | Unset):
            labels (None | NoulLabels | Unset):
     """

    type_: NoulQuestionType
    criteria: None | NoulCriteria | Unset = UNSET
    instructions: list[Any] | None | NoulQuestionInstructionsType1 | str | Unset = UNSET
    labels: None | NoulLabels | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.noul_criteria import NoulCriteria # noqa: PLC0415
        from ..models.noul_labels import NoulLabels # noqa: PLC0415
        from ..models.noul_question_instructions_type_1 import NoulQuestionInstructionsType1 # noqa: PLC0415
        type_: str = self.type_

        criteria: dict[str, Any] | None | Unset
        if isinstance(self.criteria, Unset):
            criteria = UNSET
        elif isinstance(self.criteria, NoulCriteria):
            criteria = self.criteria.to_dict()
        else:
            criteria = self.criteria

        instructions: dict[str, Any] | list[Any] | None | str | Unset
        if isinstance(self.instructions, Unset):
            instructions = UNSET
        elif isinstance(self.instructions, NoulQuestionInstructionsType1):
            instructions = self.instructions.to_dict()
        elif isinstance(self.instructions, list):
            instructions = self.instructions


        else:
            instructions = self.instructions

        labels: dict[str, Any] | None | Unset
        if isinstance(self.labels, Unset):
            labels = UNSET
        elif isinstance(self.labels, NoulLabels):
            labels = self.labels.to_dict()
        else:
            labels = self.labels


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
        })
        if criteria is not UNSET:
            field_dict["criteria"] = criteria
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if labels is not UNSET:
            field_dict["labels"] = labels

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.noul_criteria import NoulCriteria # noqa: PLC0415
        from ..models.noul_labels import NoulLabels # noqa: PLC0415
        from ..models.noul_question_instructions_type_1 import NoulQuestionInstructionsType1 # noqa: PLC0415
        d = dict(src_dict)
        type_ = check_noul_question_type(d.pop("type"))




        def _parse_criteria(data: object) -> None | NoulCriteria | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                criteria_type_0 = NoulCriteria.from_dict(data)



                return criteria_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | NoulCriteria | Unset, data)

        criteria = _parse_criteria(d.pop("criteria", UNSET))


        def _parse_instructions(data: object) -> list[Any] | None | NoulQuestionInstructionsType1 | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                instructions_type_1 = NoulQuestionInstructionsType1.from_dict(data)



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
            return cast(list[Any] | None | NoulQuestionInstructionsType1 | str | Unset, data)

        instructions = _parse_instructions(d.pop("instructions", UNSET))


        def _parse_labels(data: object) -> None | NoulLabels | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                labels_type_0 = NoulLabels.from_dict(data)



                return labels_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | NoulLabels | Unset, data)

        labels = _parse_labels(d.pop("labels", UNSET))


        noul_question = cls(
            type_=type_,
            criteria=criteria,
            instructions=instructions,
            labels=labels,
        )

        return noul_question

