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
            candidate_labels (list[str] | None | str | Unset): Candidate labels, as in /classify; required unless label_set
                is given.
            hypothesis_template (None | str | Unset): As in /classify.
            label_set (None | str | Unset): A label set the service holds (an extension).
            model (None | str | Unset): As in /classify: a model from GET /models (an extension).
            multi_label (bool | None | Unset): As in /classify (default false).
     """

    candidate_labels: list[str] | None | str | Unset = UNSET
    hypothesis_template: None | str | Unset = UNSET
    label_set: None | str | Unset = UNSET
    model: None | str | Unset = UNSET
    multi_label: bool | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        candidate_labels: list[str] | None | str | Unset
        if isinstance(self.candidate_labels, Unset):
            candidate_labels = UNSET
        elif isinstance(self.candidate_labels, list):
            candidate_labels = self.candidate_labels


        else:
            candidate_labels = self.candidate_labels

        hypothesis_template: None | str | Unset
        if isinstance(self.hypothesis_template, Unset):
            hypothesis_template = UNSET
        else:
            hypothesis_template = self.hypothesis_template

        label_set: None | str | Unset
        if isinstance(self.label_set, Unset):
            label_set = UNSET
        else:
            label_set = self.label_set

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        multi_label: bool | None | Unset
        if isinstance(self.multi_label, Unset):
            multi_label = UNSET
        else:
            multi_label = self.multi_label


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if candidate_labels is not UNSET:
            field_dict["candidate_labels"] = candidate_labels
        if hypothesis_template is not UNSET:
            field_dict["hypothesis_template"] = hypothesis_template
        if label_set is not UNSET:
            field_dict["label_set"] = label_set
        if model is not UNSET:
            field_dict["model"] = model
        if multi_label is not UNSET:
            field_dict["multi_label"] = multi_label

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_candidate_labels(data: object) -> list[str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                candidate_labels_type_1 = cast(list[str], data)

                return candidate_labels_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | str | Unset, data)

        candidate_labels = _parse_candidate_labels(d.pop("candidate_labels", UNSET))


        def _parse_hypothesis_template(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        hypothesis_template = _parse_hypothesis_template(d.pop("hypothesis_template", UNSET))


        def _parse_label_set(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        label_set = _parse_label_set(d.pop("label_set", UNSET))


        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))


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
            label_set=label_set,
            model=model,
            multi_label=multi_label,
        )

        return hf_parameters

