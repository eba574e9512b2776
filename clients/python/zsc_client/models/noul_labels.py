from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="NoulLabels")



@_attrs_define
class NoulLabels:
    """ pydecide's names for the two outcomes (``{"true": "positive", "false": "negative"}``).

        Attributes:
            false_ (str):
            true_ (str):
     """

    false_: str
    true_: str





    def to_dict(self) -> dict[str, Any]:
        false_ = self.false_

        true_ = self.true_


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "false": false_,
            "true": true_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        false_ = d.pop("false")

        true_ = d.pop("true")

        noul_labels = cls(
            false_=false_,
            true_=true_,
        )

        return noul_labels

