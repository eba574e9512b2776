from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.invalid_argument_detail_type_0_item import InvalidArgumentDetailType0Item





T = TypeVar("T", bound="InvalidArgument")



@_attrs_define
class InvalidArgument:
    """ Bad Request

        Attributes:
            error (str):
            detail (list[InvalidArgumentDetailType0Item] | str | Unset):
            error_type (str | Unset):
     """

    error: str
    detail: list[InvalidArgumentDetailType0Item] | str | Unset = UNSET
    error_type: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.invalid_argument_detail_type_0_item import InvalidArgumentDetailType0Item # noqa: PLC0415
        error = self.error

        detail: list[dict[str, Any]] | str | Unset
        if isinstance(self.detail, Unset):
            detail = UNSET
        elif isinstance(self.detail, list):
            detail = []
            for detail_type_0_item_data in self.detail:
                detail_type_0_item = detail_type_0_item_data.to_dict()
                detail.append(detail_type_0_item)


        else:
            detail = self.detail

        error_type = self.error_type


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "error": error,
        })
        if detail is not UNSET:
            field_dict["detail"] = detail
        if error_type is not UNSET:
            field_dict["error_type"] = error_type

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.invalid_argument_detail_type_0_item import InvalidArgumentDetailType0Item # noqa: PLC0415
        d = dict(src_dict)
        error = d.pop("error")

        def _parse_detail(data: object) -> list[InvalidArgumentDetailType0Item] | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                detail_type_0 = []
                _detail_type_0 = data
                for detail_type_0_item_data in (_detail_type_0):
                    detail_type_0_item = InvalidArgumentDetailType0Item.from_dict(detail_type_0_item_data)



                    detail_type_0.append(detail_type_0_item)

                return detail_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[InvalidArgumentDetailType0Item] | str | Unset, data)

        detail = _parse_detail(d.pop("detail", UNSET))


        error_type = d.pop("error_type", UNSET)

        invalid_argument = cls(
            error=error,
            detail=detail,
            error_type=error_type,
        )


        invalid_argument.additional_properties = d
        return invalid_argument

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
