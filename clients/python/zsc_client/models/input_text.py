from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.input_text_type import check_input_text_type
from ..models.input_text_type import InputTextType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.cache_breakpoint import CacheBreakpoint





T = TypeVar("T", bound="InputText")



@_attrs_define
class InputText:
    """ 
        Attributes:
            text (str):
            type_ (InputTextType):
            prompt_cache_breakpoint (CacheBreakpoint | None | Unset):
     """

    text: str
    type_: InputTextType
    prompt_cache_breakpoint: CacheBreakpoint | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.cache_breakpoint import CacheBreakpoint # noqa: PLC0415
        text = self.text

        type_: str = self.type_

        prompt_cache_breakpoint: dict[str, Any] | None | Unset
        if isinstance(self.prompt_cache_breakpoint, Unset):
            prompt_cache_breakpoint = UNSET
        elif isinstance(self.prompt_cache_breakpoint, CacheBreakpoint):
            prompt_cache_breakpoint = self.prompt_cache_breakpoint.to_dict()
        else:
            prompt_cache_breakpoint = self.prompt_cache_breakpoint


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "text": text,
            "type": type_,
        })
        if prompt_cache_breakpoint is not UNSET:
            field_dict["prompt_cache_breakpoint"] = prompt_cache_breakpoint

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cache_breakpoint import CacheBreakpoint # noqa: PLC0415
        d = dict(src_dict)
        text = d.pop("text")

        type_ = check_input_text_type(d.pop("type"))




        def _parse_prompt_cache_breakpoint(data: object) -> CacheBreakpoint | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                prompt_cache_breakpoint_type_0 = CacheBreakpoint.from_dict(data)



                return prompt_cache_breakpoint_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CacheBreakpoint | None | Unset, data)

        prompt_cache_breakpoint = _parse_prompt_cache_breakpoint(d.pop("prompt_cache_breakpoint", UNSET))


        input_text = cls(
            text=text,
            type_=type_,
            prompt_cache_breakpoint=prompt_cache_breakpoint,
        )

        return input_text

