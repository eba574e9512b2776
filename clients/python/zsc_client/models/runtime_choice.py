from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.runtime_candidate import RuntimeCandidate





T = TypeVar("T", bound="RuntimeChoice")



@_attrs_define
class RuntimeChoice:
    """ 
        Attributes:
            candidates (list[RuntimeCandidate]): Every candidate measured; empty unless measured.
            how (str): measured (ZSC_RUNTIME and ZSC_PRECISION auto: the fastest candidate that agrees with fp32),
                remembered (measured at an earlier start on this CPU), pinned (set by the operator: not verified), only
                candidate, or device (a GPU).
            precision (str):
            runtime (str):
            verified (bool): Whether its answers were compared with fp32's.
            close_call_margin (float | None | Unset): An answer whose two best labels are within this is computed again in
                fp32.
            reference (None | str | Unset): Below fp32 on a CPU: the model's fp32 copy (e.g. openvino fp32) that computes
                its label rows, and again the texts of close calls (ZSC_CLOSE_CALL_MARGIN); null when it serves in fp32.
     """

    candidates: list[RuntimeCandidate]
    how: str
    precision: str
    runtime: str
    verified: bool
    close_call_margin: float | None | Unset = UNSET
    reference: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.runtime_candidate import RuntimeCandidate # noqa: PLC0415
        candidates = []
        for candidates_item_data in self.candidates:
            candidates_item = candidates_item_data.to_dict()
            candidates.append(candidates_item)



        how = self.how

        precision = self.precision

        runtime = self.runtime

        verified = self.verified

        close_call_margin: float | None | Unset
        if isinstance(self.close_call_margin, Unset):
            close_call_margin = UNSET
        else:
            close_call_margin = self.close_call_margin

        reference: None | str | Unset
        if isinstance(self.reference, Unset):
            reference = UNSET
        else:
            reference = self.reference


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "candidates": candidates,
            "how": how,
            "precision": precision,
            "runtime": runtime,
            "verified": verified,
        })
        if close_call_margin is not UNSET:
            field_dict["close_call_margin"] = close_call_margin
        if reference is not UNSET:
            field_dict["reference"] = reference

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.runtime_candidate import RuntimeCandidate # noqa: PLC0415
        d = dict(src_dict)
        candidates = []
        _candidates = d.pop("candidates")
        for candidates_item_data in (_candidates):
            candidates_item = RuntimeCandidate.from_dict(candidates_item_data)



            candidates.append(candidates_item)


        how = d.pop("how")

        precision = d.pop("precision")

        runtime = d.pop("runtime")

        verified = d.pop("verified")

        def _parse_close_call_margin(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        close_call_margin = _parse_close_call_margin(d.pop("close_call_margin", UNSET))


        def _parse_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reference = _parse_reference(d.pop("reference", UNSET))


        runtime_choice = cls(
            candidates=candidates,
            how=how,
            precision=precision,
            runtime=runtime,
            verified=verified,
            close_call_margin=close_call_margin,
            reference=reference,
        )


        runtime_choice.additional_properties = d
        return runtime_choice

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
