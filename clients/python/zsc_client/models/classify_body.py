from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ClassifyBody")



@_attrs_define
class ClassifyBody:
    """ 
        Example:
            {'labels': ['billing', 'shipping', 'praise'], 'text': 'My card was charged twice for one order'}

        Attributes:
            labels (list[str]): Candidate labels: a list, or one string separated by ',' or '，'.
            text (str): The text to classify, in any language the model covers.
            hypothesis_template (str | Unset): How a label becomes a hypothesis; must contain '{}'. Default: the model's.
            multi_label (bool | Unset): Score each label on its own (labels may all be true) instead of one softmax.
                Default: False.
     """

    labels: list[str]
    text: str
    hypothesis_template: str | Unset = UNSET
    multi_label: bool | Unset = False





    def to_dict(self) -> dict[str, Any]:
        labels = self.labels



        text = self.text

        hypothesis_template = self.hypothesis_template

        multi_label = self.multi_label


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "labels": labels,
            "text": text,
        })
        if hypothesis_template is not UNSET:
            field_dict["hypothesis_template"] = hypothesis_template
        if multi_label is not UNSET:
            field_dict["multi_label"] = multi_label

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        labels = cast(list[str], d.pop("labels"))


        text = d.pop("text")

        hypothesis_template = d.pop("hypothesis_template", UNSET)

        multi_label = d.pop("multi_label", UNSET)

        classify_body = cls(
            labels=labels,
            text=text,
            hypothesis_template=hypothesis_template,
            multi_label=multi_label,
        )

        return classify_body

