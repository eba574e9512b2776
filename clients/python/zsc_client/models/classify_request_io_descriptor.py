from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ClassifyRequestIODescriptor")



@_attrs_define
class ClassifyRequestIODescriptor:
    """ 
        Example:
            {'labels': ['billing', 'shipping', 'praise'], 'text': 'My card was charged twice for one order'}

        Attributes:
            labels (list[str] | str): Candidate labels: a list, or one string separated by ',' or '，'.
            text (str): The text to classify, in any language the model covers.
            hypothesis_template (None | str | Unset): How a label becomes a hypothesis; must contain '{}'. Default: the
                model's.
            multi_label (bool | Unset): Score each label on its own (labels may all be true) instead of one softmax.
                Default: False.
     """

    labels: list[str] | str
    text: str
    hypothesis_template: None | str | Unset = UNSET
    multi_label: bool | Unset = False





    def to_dict(self) -> dict[str, Any]:
        labels: list[str] | str
        if isinstance(self.labels, list):
            labels = self.labels


        else:
            labels = self.labels

        text = self.text

        hypothesis_template: None | str | Unset
        if isinstance(self.hypothesis_template, Unset):
            hypothesis_template = UNSET
        else:
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
        def _parse_labels(data: object) -> list[str] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                labels_type_0 = cast(list[str], data)

                return labels_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | str, data)

        labels = _parse_labels(d.pop("labels"))


        text = d.pop("text")

        def _parse_hypothesis_template(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        hypothesis_template = _parse_hypothesis_template(d.pop("hypothesis_template", UNSET))


        multi_label = d.pop("multi_label", UNSET)

        classify_request_io_descriptor = cls(
            labels=labels,
            text=text,
            hypothesis_template=hypothesis_template,
            multi_label=multi_label,
        )

        return classify_request_io_descriptor

