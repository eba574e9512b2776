from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.classify_request import ClassifyRequest





T = TypeVar("T", bound="ClassifyBatchRequestIODescriptor")



@_attrs_define
class ClassifyBatchRequestIODescriptor:
    """ 
        Example:
            {'items': [{'labels': ['sports', 'business'], 'text': 'The striker scored twice in the final'}, {'labels':
                '体育，财经，科技', 'text': '央行宣布下调存款准备金率，股市应声大涨'}]}

        Attributes:
            items (list[ClassifyRequest]): The classifications to run, answered in this order.
     """

    items: list[ClassifyRequest]





    def to_dict(self) -> dict[str, Any]:
        from ..models.classify_request import ClassifyRequest # noqa: PLC0415
        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "items": items,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.classify_request import ClassifyRequest # noqa: PLC0415
        d = dict(src_dict)
        items = []
        _items = d.pop("items")
        for items_item_data in (_items):
            items_item = ClassifyRequest.from_dict(items_item_data)



            items.append(items_item)


        classify_batch_request_io_descriptor = cls(
            items=items,
        )

        return classify_batch_request_io_descriptor

