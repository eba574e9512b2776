from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.hf_parameters import HfParameters





T = TypeVar("T", bound="HfZeroShotRequestIODescriptor")



@_attrs_define
class HfZeroShotRequestIODescriptor:
    """ 
        Example:
            {'inputs': 'My card was charged twice for one order', 'parameters': {'candidate_labels': ['billing', 'shipping',
                'praise']}}

        Attributes:
            inputs (list[str] | str): One text, or a list of texts.
            parameters (HfParameters):
     """

    inputs: list[str] | str
    parameters: HfParameters





    def to_dict(self) -> dict[str, Any]:
        from ..models.hf_parameters import HfParameters # noqa: PLC0415
        inputs: list[str] | str
        if isinstance(self.inputs, list):
            inputs = self.inputs


        else:
            inputs = self.inputs

        parameters = self.parameters.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "inputs": inputs,
            "parameters": parameters,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.hf_parameters import HfParameters # noqa: PLC0415
        d = dict(src_dict)
        def _parse_inputs(data: object) -> list[str] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                inputs_type_1 = cast(list[str], data)

                return inputs_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | str, data)

        inputs = _parse_inputs(d.pop("inputs"))


        parameters = HfParameters.from_dict(d.pop("parameters"))




        hf_zero_shot_request_io_descriptor = cls(
            inputs=inputs,
            parameters=parameters,
        )

        return hf_zero_shot_request_io_descriptor

