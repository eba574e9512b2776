from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.cache_breakpoint_mode import CacheBreakpointMode
from ..models.cache_breakpoint_mode import check_cache_breakpoint_mode
from typing import cast






T = TypeVar("T", bound="CacheBreakpoint")



@_attrs_define
class CacheBreakpoint:
    """ Marks the end of a reusable prompt prefix (accepted; this service caches every model row anyway).

        Attributes:
            mode (CacheBreakpointMode):
     """

    mode: CacheBreakpointMode





    def to_dict(self) -> dict[str, Any]:
        mode: str = self.mode


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "mode": mode,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        mode = check_cache_breakpoint_mode(d.pop("mode"))




        cache_breakpoint = cls(
            mode=mode,
        )

        return cache_breakpoint

