from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="RuntimeCandidate")



@_attrs_define
class RuntimeCandidate:
    """ 
        Attributes:
            chosen (bool):
            max_score_diff (float): The largest score difference from fp32 on the sample.
            mean_score_diff (float): The mean absolute score difference from fp32 (refused over 0.01).
            precision (str): fp32, bf16, fp16 or int8.
            refused (None | str): Why it may not serve (answers unlike fp32's, failed, not measured).
            runtime (str): onnx, openvino or torch.
            texts_per_s (float): Sample texts (with their labels) per second on this machine.
            top1_agreement (float): Share of the sample whose top label is fp32's.
     """

    chosen: bool
    max_score_diff: float
    mean_score_diff: float
    precision: str
    refused: None | str
    runtime: str
    texts_per_s: float
    top1_agreement: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        chosen = self.chosen

        max_score_diff = self.max_score_diff

        mean_score_diff = self.mean_score_diff

        precision = self.precision

        refused: None | str
        refused = self.refused

        runtime = self.runtime

        texts_per_s = self.texts_per_s

        top1_agreement = self.top1_agreement


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "chosen": chosen,
            "max_score_diff": max_score_diff,
            "mean_score_diff": mean_score_diff,
            "precision": precision,
            "refused": refused,
            "runtime": runtime,
            "texts_per_s": texts_per_s,
            "top1_agreement": top1_agreement,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        chosen = d.pop("chosen")

        max_score_diff = d.pop("max_score_diff")

        mean_score_diff = d.pop("mean_score_diff")

        precision = d.pop("precision")

        def _parse_refused(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        refused = _parse_refused(d.pop("refused"))


        runtime = d.pop("runtime")

        texts_per_s = d.pop("texts_per_s")

        top1_agreement = d.pop("top1_agreement")

        runtime_candidate = cls(
            chosen=chosen,
            max_score_diff=max_score_diff,
            mean_score_diff=mean_score_diff,
            precision=precision,
            refused=refused,
            runtime=runtime,
            texts_per_s=texts_per_s,
            top1_agreement=top1_agreement,
        )


        runtime_candidate.additional_properties = d
        return runtime_candidate

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
