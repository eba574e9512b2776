from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.model_directory_object import check_model_directory_object
from ..models.model_directory_object import ModelDirectoryObject
from typing import cast

if TYPE_CHECKING:
  from ..models.model_metadata import ModelMetadata
  from ..models.model_object import ModelObject





T = TypeVar("T", bound="ModelDirectory")



@_attrs_define
class ModelDirectory:
    """ OpenAI's model page (``object``, ``data``) and TypeSafe's model list (``models``) in one body.

        Attributes:
            data (list[ModelObject]):
            models (list[ModelMetadata]):
            object_ (ModelDirectoryObject):  Default: 'list'.
     """

    data: list[ModelObject]
    models: list[ModelMetadata]
    object_: ModelDirectoryObject = 'list'
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.model_metadata import ModelMetadata # noqa: PLC0415
        from ..models.model_object import ModelObject # noqa: PLC0415
        data = []
        for data_item_data in self.data:
            data_item = data_item_data.to_dict()
            data.append(data_item)



        models = []
        for models_item_data in self.models:
            models_item = models_item_data.to_dict()
            models.append(models_item)



        object_: str = self.object_


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "data": data,
            "models": models,
            "object": object_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.model_metadata import ModelMetadata # noqa: PLC0415
        from ..models.model_object import ModelObject # noqa: PLC0415
        d = dict(src_dict)
        data = []
        _data = d.pop("data")
        for data_item_data in (_data):
            data_item = ModelObject.from_dict(data_item_data)



            data.append(data_item)


        models = []
        _models = d.pop("models")
        for models_item_data in (_models):
            models_item = ModelMetadata.from_dict(models_item_data)



            models.append(models_item)


        object_ = check_model_directory_object(d.pop("object"))




        model_directory = cls(
            data=data,
            models=models,
            object_=object_,
        )


        model_directory.additional_properties = d
        return model_directory

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
