from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="JobLinks")



@_attrs_define
class JobLinks:
    """ 
        Attributes:
            cancel (str): POST here to cancel it (DELETE on self deletes it and its results).
            results (str): Its results.
            self_ (str): This job's status.
     """

    cancel: str
    results: str
    self_: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        cancel = self.cancel

        results = self.results

        self_ = self.self_


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "cancel": cancel,
            "results": results,
            "self": self_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cancel = d.pop("cancel")

        results = d.pop("results")

        self_ = d.pop("self")

        job_links = cls(
            cancel=cancel,
            results=results,
            self_=self_,
        )


        job_links.additional_properties = d
        return job_links

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
