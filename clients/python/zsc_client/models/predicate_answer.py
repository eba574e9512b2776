from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.predicate_answer_type import check_predicate_answer_type
from ..models.predicate_answer_type import PredicateAnswerType
from typing import cast






T = TypeVar("T", bound="PredicateAnswer")



@_attrs_define
class PredicateAnswer:
    """ 
        Attributes:
            name (None | str):
            probability (float):
            type_ (PredicateAnswerType):  Default: 'predicate'.
     """

    name: None | str
    probability: float
    type_: PredicateAnswerType = 'predicate'
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        name: None | str
        name = self.name

        probability = self.probability

        type_: str = self.type_


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "name": name,
            "probability": probability,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        name = _parse_name(d.pop("name"))


        probability = d.pop("probability")

        type_ = check_predicate_answer_type(d.pop("type"))




        predicate_answer = cls(
            name=name,
            probability=probability,
            type_=type_,
        )


        predicate_answer.additional_properties = d
        return predicate_answer

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
