from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.question_image_detail_type_0 import check_question_image_detail_type_0
from ..models.question_image_detail_type_0 import QuestionImageDetailType0
from ..models.question_image_type import check_question_image_type
from ..models.question_image_type import QuestionImageType
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="QuestionImage")



@_attrs_define
class QuestionImage:
    """ 
        Attributes:
            image_url (str):
            type_ (QuestionImageType):
            detail (None | QuestionImageDetailType0 | Unset):
     """

    image_url: str
    type_: QuestionImageType
    detail: None | QuestionImageDetailType0 | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        image_url = self.image_url

        type_: str = self.type_

        detail: None | str | Unset
        if isinstance(self.detail, Unset):
            detail = UNSET
        elif isinstance(self.detail, str):
            detail = self.detail
        else:
            detail = self.detail


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "image_url": image_url,
            "type": type_,
        })
        if detail is not UNSET:
            field_dict["detail"] = detail

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        image_url = d.pop("image_url")

        type_ = check_question_image_type(d.pop("type"))




        def _parse_detail(data: object) -> None | QuestionImageDetailType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                detail_type_0 = check_question_image_detail_type_0(data)



                return detail_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | QuestionImageDetailType0 | Unset, data)

        detail = _parse_detail(d.pop("detail", UNSET))


        question_image = cls(
            image_url=image_url,
            type_=type_,
            detail=detail,
        )

        return question_image

