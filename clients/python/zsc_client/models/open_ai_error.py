from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="OpenAIError")



@_attrs_define
class OpenAIError:
    """ 
        Attributes:
            code (None | str): The service's error type (e.g. model_not_found, invalid_api_key).
            message (str): What went wrong and what to change.
            param (None | str): The request field at fault (e.g. questions[0].choices), when one is.
            type_ (str): invalid_request_error (400, 404, 405, 408, 413, 415, 431), authentication_error (401),
                permission_error (403), rate_limit_error (429), server_error (5xx).
     """

    code: None | str
    message: str
    param: None | str
    type_: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        code: None | str
        code = self.code

        message = self.message

        param: None | str
        param = self.param

        type_ = self.type_


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "code": code,
            "message": message,
            "param": param,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_code(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        code = _parse_code(d.pop("code"))


        message = d.pop("message")

        def _parse_param(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        param = _parse_param(d.pop("param"))


        type_ = d.pop("type")

        open_ai_error = cls(
            code=code,
            message=message,
            param=param,
            type_=type_,
        )


        open_ai_error.additional_properties = d
        return open_ai_error

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
