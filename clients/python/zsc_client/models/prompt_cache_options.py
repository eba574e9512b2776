from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.prompt_cache_options_mode_type_0 import check_prompt_cache_options_mode_type_0
from ..models.prompt_cache_options_mode_type_0 import PromptCacheOptionsModeType0
from ..models.prompt_cache_options_ttl import check_prompt_cache_options_ttl
from ..models.prompt_cache_options_ttl import PromptCacheOptionsTtl
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="PromptCacheOptions")



@_attrs_define
class PromptCacheOptions:
    """ 
        Attributes:
            mode (None | PromptCacheOptionsModeType0 | Unset):
            ttl (PromptCacheOptionsTtl | Unset):  Default: '30m'.
     """

    mode: None | PromptCacheOptionsModeType0 | Unset = UNSET
    ttl: PromptCacheOptionsTtl | Unset = '30m'





    def to_dict(self) -> dict[str, Any]:
        mode: None | str | Unset
        if isinstance(self.mode, Unset):
            mode = UNSET
        elif isinstance(self.mode, str):
            mode = self.mode
        else:
            mode = self.mode

        ttl: str | Unset = UNSET
        if not isinstance(self.ttl, Unset):
            ttl = self.ttl



        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if mode is not UNSET:
            field_dict["mode"] = mode
        if ttl is not UNSET:
            field_dict["ttl"] = ttl

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_mode(data: object) -> None | PromptCacheOptionsModeType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                mode_type_0 = check_prompt_cache_options_mode_type_0(data)



                return mode_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PromptCacheOptionsModeType0 | Unset, data)

        mode = _parse_mode(d.pop("mode", UNSET))


        _ttl = d.pop("ttl", UNSET)
        ttl: PromptCacheOptionsTtl | Unset
        if isinstance(_ttl,  Unset):
            ttl = UNSET
        else:
            ttl = check_prompt_cache_options_ttl(_ttl)




        prompt_cache_options = cls(
            mode=mode,
            ttl=ttl,
        )

        return prompt_cache_options

