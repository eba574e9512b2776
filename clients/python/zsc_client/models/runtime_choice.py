from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

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
     """

    candidates: list[RuntimeCandidate]
    how: str
    precision: str
    runtime: str
    verified: bool
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


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "candidates": candidates,
            "how": how,
            "precision": precision,
            "runtime": runtime,
            "verified": verified,
        })

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

        runtime_choice = cls(
            candidates=candidates,
            how=how,
            precision=precision,
            runtime=runtime,
            verified=verified,
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
