from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.system_one_response_answers import SystemOneResponseAnswers
  from ..models.system_one_usage import SystemOneUsage





T = TypeVar("T", bound="SystemOneResponse")



@_attrs_define
class SystemOneResponse:
    """ 
        Attributes:
            answers (SystemOneResponseAnswers):
            model (str):
            usage (SystemOneUsage):
     """

    answers: SystemOneResponseAnswers
    model: str
    usage: SystemOneUsage
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.system_one_response_answers import SystemOneResponseAnswers # noqa: PLC0415
        from ..models.system_one_usage import SystemOneUsage # noqa: PLC0415
        answers = self.answers.to_dict()

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
        from ..models.system_one_response_answers import SystemOneResponseAnswers # noqa: PLC0415
        from ..models.system_one_usage import SystemOneUsage # noqa: PLC0415
        d = dict(src_dict)
        answers = SystemOneResponseAnswers.from_dict(d.pop("answers"))




        model = d.pop("model")

        usage = SystemOneUsage.from_dict(d.pop("usage"))




        system_one_response = cls(
            answers=answers,
            model=model,
            usage=usage,
        )


        system_one_response.additional_properties = d
        return system_one_response

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
