from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.runtime_choice import RuntimeChoice





T = TypeVar("T", bound="ModelSummary")



@_attrs_define
class ModelSummary:
    """ 
        Attributes:
            default (bool): Whether requests naming no model (and no label set tuned on another) get it.
            example_rule (None | str): Embedding models: how label examples join the wording by default.
            example_weight (float | None): Embedding models: the wording's share in a blend by default (for a label with 3
                examples).
            kind (str): nli or embedding.
            languages (list[str]): ISO 639-1 codes the model covers; empty when not known.
            max_length (int): Tokens per sequence.
            memory_mb (float): Resident memory its loading added to the replica.
            name (str): The model's name in the store: what a request's `model` names.
            precision (None | str): The arithmetic of its forward pass: fp32, bf16, fp16 or int8.
            revision (str):
            runtime (None | str): The inference runtime it runs on: onnx, openvino or torch.
            runtime_choice (None | RuntimeChoice): How the runtime and precision were chosen.
            state (str): ready
            tag (str): Name and version, as answers report it in `model`.
     """

    default: bool
    example_rule: None | str
    example_weight: float | None
    kind: str
    languages: list[str]
    max_length: int
    memory_mb: float
    name: str
    precision: None | str
    revision: str
    runtime: None | str
    runtime_choice: None | RuntimeChoice
    state: str
    tag: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.runtime_choice import RuntimeChoice # noqa: PLC0415
        default = self.default

        example_rule: None | str
        example_rule = self.example_rule

        example_weight: float | None
        example_weight = self.example_weight

        kind = self.kind

        languages = self.languages



        max_length = self.max_length

        memory_mb = self.memory_mb

        name = self.name

        precision: None | str
        precision = self.precision

        revision = self.revision

        runtime: None | str
        runtime = self.runtime

        runtime_choice: dict[str, Any] | None
        if isinstance(self.runtime_choice, RuntimeChoice):
            runtime_choice = self.runtime_choice.to_dict()
        else:
            runtime_choice = self.runtime_choice

        state = self.state

        tag = self.tag


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "default": default,
            "example_rule": example_rule,
            "example_weight": example_weight,
            "kind": kind,
            "languages": languages,
            "max_length": max_length,
            "memory_mb": memory_mb,
            "name": name,
            "precision": precision,
            "revision": revision,
            "runtime": runtime,
            "runtime_choice": runtime_choice,
            "state": state,
            "tag": tag,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.runtime_choice import RuntimeChoice # noqa: PLC0415
        d = dict(src_dict)
        default = d.pop("default")

        def _parse_example_rule(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        example_rule = _parse_example_rule(d.pop("example_rule"))


        def _parse_example_weight(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        example_weight = _parse_example_weight(d.pop("example_weight"))


        kind = d.pop("kind")

        languages = cast(list[str], d.pop("languages"))


        max_length = d.pop("max_length")

        memory_mb = d.pop("memory_mb")

        name = d.pop("name")

        def _parse_precision(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        precision = _parse_precision(d.pop("precision"))


        revision = d.pop("revision")

        def _parse_runtime(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        runtime = _parse_runtime(d.pop("runtime"))


        def _parse_runtime_choice(data: object) -> None | RuntimeChoice:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                runtime_choice_type_0 = RuntimeChoice.from_dict(data)



                return runtime_choice_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RuntimeChoice, data)

        runtime_choice = _parse_runtime_choice(d.pop("runtime_choice"))


        state = d.pop("state")

        tag = d.pop("tag")

        model_summary = cls(
            default=default,
            example_rule=example_rule,
            example_weight=example_weight,
            kind=kind,
            languages=languages,
            max_length=max_length,
            memory_mb=memory_mb,
            name=name,
            precision=precision,
            revision=revision,
            runtime=runtime,
            runtime_choice=runtime_choice,
            state=state,
            tag=tag,
        )


        model_summary.additional_properties = d
        return model_summary

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
