from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.choice_answer import ChoiceAnswer
  from ..models.predicate_answer import PredicateAnswer
  from ..models.refusal_answer import RefusalAnswer
  from ..models.score_answer import ScoreAnswer
  from ..models.usage import Usage





T = TypeVar("T", bound="Decision")



@_attrs_define
class Decision:
    """ 
        Attributes:
            answers (list[ChoiceAnswer | PredicateAnswer | RefusalAnswer | ScoreAnswer]):
            model (str):
            usage (Usage):
     """

    answers: list[ChoiceAnswer | PredicateAnswer | RefusalAnswer | ScoreAnswer]
    model: str
    usage: Usage
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.choice_answer import ChoiceAnswer # noqa: PLC0415
        from ..models.predicate_answer import PredicateAnswer # noqa: PLC0415
        from ..models.refusal_answer import RefusalAnswer # noqa: PLC0415
        from ..models.score_answer import ScoreAnswer # noqa: PLC0415
        from ..models.usage import Usage # noqa: PLC0415
        answers = []
        for answers_item_data in self.answers:
            answers_item: dict[str, Any]
            if isinstance(answers_item_data, PredicateAnswer):
                answers_item = answers_item_data.to_dict()
            elif isinstance(answers_item_data, ChoiceAnswer):
                answers_item = answers_item_data.to_dict()
            elif isinstance(answers_item_data, ScoreAnswer):
                answers_item = answers_item_data.to_dict()
            else:
                answers_item = answers_item_data.to_dict()

            answers.append(answers_item)



        model = self.model

        usage = self.usage.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "answers": answers,
            "model": model,
            "usage": usage,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.choice_answer import ChoiceAnswer # noqa: PLC0415
        from ..models.predicate_answer import PredicateAnswer # noqa: PLC0415
        from ..models.refusal_answer import RefusalAnswer # noqa: PLC0415
        from ..models.score_answer import ScoreAnswer # noqa: PLC0415
        from ..models.usage import Usage # noqa: PLC0415
        d = dict(src_dict)
        answers = []
        _answers = d.pop("answers")
        for answers_item_data in (_answers):
            def _parse_answers_item(data: object) -> ChoiceAnswer | PredicateAnswer | RefusalAnswer | ScoreAnswer:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    answers_item_type_0 = PredicateAnswer.from_dict(data)



                    return answers_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    answers_item_type_1 = ChoiceAnswer.from_dict(data)



                    return answers_item_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    answers_item_type_2 = ScoreAnswer.from_dict(data)



                    return answers_item_type_2
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                answers_item_type_3 = RefusalAnswer.from_dict(data)



                return answers_item_type_3

            answers_item = _parse_answers_item(answers_item_data)

            answers.append(answers_item)


        model = d.pop("model")

        usage = Usage.from_dict(d.pop("usage"))




        decision = cls(
            answers=answers,
            model=model,
            usage=usage,
        )


        decision.additional_properties = d
        return decision

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
