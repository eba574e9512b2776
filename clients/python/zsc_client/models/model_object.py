from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.model_object_object import check_model_object_object
from ..models.model_object_object import ModelObjectObject
from typing import cast






T = TypeVar("T", bound="ModelObject")



@_attrs_define
class ModelObject:
    """ 
        Attributes:
            created (int):
            id (str):
            object_ (ModelObjectObject):  Default: 'model'.
            owned_by (str):
     """

    created: int
    id: str
    owned_by: str
    object_: ModelObjectObject = 'model'
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created = self.created

        id = self.id

        object_: str = self.object_

        owned_by = self.owned_by


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created": created,
            "id": id,
            "object": object_,
            "owned_by": owned_by,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created = d.pop("created")

        id = d.pop("id")

        object_ = check_model_object_object(d.pop("object"))




        owned_by = d.pop("owned_by")

        model_object = cls(
            created=created,
            id=id,
            object_=object_,
            owned_by=owned_by,
        )


        model_object.additional_properties = d
        return model_object

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
