from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.noul_criteria_false_type_1 import NoulCriteriaFalseType1
  from ..models.noul_criteria_true_type_1 import NoulCriteriaTrueType1





T = TypeVar("T", bound="NoulCriteria")



@_attrs_define
class NoulCriteria:
    """ What counts as a yes (``true``) and as a no (``false``); either may be left out or null.

        Attributes:
            false_ (list[Any] | None | NoulCriteriaFalseType1 | str | Unset):
            true_ (list[Any] | None | NoulCriteriaTrueType1 | str | Unset):
     """

    false_: list[Any] | None | NoulCriteriaFalseType1 | str | Unset = UNSET
    true_: list[Any] | None | NoulCriteriaTrueType1 | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.noul_criteria_false_type_1 import NoulCriteriaFalseType1 # noqa: PLC0415
        from ..models.noul_criteria_true_type_1 import NoulCriteriaTrueType1 # noqa: PLC0415
        false_: dict[str, Any] | list[Any] | None | str | Unset
        if isinstance(self.false_, Unset):
            false_ = UNSET
        elif isinstance(self.false_, NoulCriteriaFalseType1):
            false_ = self.false_.to_dict()
        elif isinstance(self.false_, list):
            false_ = self.false_


        else:
            false_ = self.false_

        true_: dict[str, Any] | list[Any] | None | str | Unset
        if isinstance(self.true_, Unset):
            true_ = UNSET
        elif isinstance(self.true_, NoulCriteriaTrueType1):
            true_ = self.true_.to_dict()
        elif isinstance(self.true_, list):
            true_ = self.true_


        else:
            true_ = self.true_


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if false_ is not UNSET:
            field_dict["false"] = false_
        if true_ is not UNSET:
            field_dict["true"] = true_

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.noul_criteria_false_type_1 import NoulCriteriaFalseType1 # noqa: PLC0415
        from ..models.noul_criteria_true_type_1 import NoulCriteriaTrueType1 # noqa: PLC0415
        d = dict(src_dict)
        def _parse_false_(data: object) -> list[Any] | None | NoulCriteriaFalseType1 | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                false_type_1 = NoulCriteriaFalseType1.from_dict(data)



                return false_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, list):
                    raise TypeError()
                false_type_2 = cast(list[Any], data)

                return false_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Any] | None | NoulCriteriaFalseType1 | str | Unset, data)

        false_ = _parse_false_(d.pop("false", UNSET))


        def _parse_true_(data: object) -> list[Any] | None | NoulCriteriaTrueType1 | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                true_type_1 = NoulCriteriaTrueType1.from_dict(data)



                return true_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, list):
                    raise TypeError()
                true_type_2 = cast(list[Any], data)

                return true_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Any] | None | NoulCriteriaTrueType1 | str | Unset, data)

        true_ = _parse_true_(d.pop("true", UNSET))


        noul_criteria = cls(
            false_=false_,
            true_=true_,
        )

        return noul_criteria

