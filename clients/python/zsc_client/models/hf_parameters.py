from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="HfParameters")



@_attrs_define
class HfParameters:
    """ 
        Attributes:
            candidate_labels (list[str] | str): Candidate labels, as in /classify.
            hypothesis_template (None | str | Unset): As in /classify.
            multi_label (bool | None | Unset): As in /classify (default false).
     """

    candidate_labels: list[str] | str
    hypothesis_template: None | str | Unset = UNSET
    multi_label: bool | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        candidate_labels: list[str] | str
        if isinstance(self.candidate_labels, list):
            candidate_labels = self.candidate_labels


        else:
            candidate_labels = self.candidate_labels

        hypothesis_template: None | str | Unset
        if isinstance(self.hypothesis_template, Unset):
            hypothesis_template = UNSET
        else:
            hypothesis_template = self.hypothesis_template

        multi_label: bool | None | Unset
        if isinstance(self.multi_label, Unset):
            multi_label = UNSET
        else:
            multi_label = self.multi_label


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "candidate_labels": candidate_labels,
        })
        if hypothesis_template is not UNSET:
            field_dict["hypothesis_template"] = hypothesis_template
        if multi_label is not UNSET:
            field_dict["multi_label"] = multi_label

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_candidate_labels(data: object) -> list[str] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                candidate_labels_type_0 = cast(list[str], data)

                return candidate_labels_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | str, data)

        candidate_labels = _parse_candidate_labels(d.pop("candidate_labels"))


        def _parse_hypothesis_template(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        hypothesis_template = _parse_hypothesis_template(d.pop("hypothesis_template", UNSET))


        def _parse_multi_label(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        multi_label = _parse_multi_label(d.pop("multi_label", UNSET))


        hf_parameters = cls(
            candidate_labels=candidate_labels,
            hypothesis_template=hypothesis_template,
            multi_label=multi_label,
        )

        return hf_parameters

