from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.classify_request_calibration_type_0 import check_classify_request_calibration_type_0
from ..models.classify_request_calibration_type_0 import ClassifyRequestCalibrationType0
from ..models.classify_request_chunk_aggregation import check_classify_request_chunk_aggregation
from ..models.classify_request_chunk_aggregation import ClassifyRequestChunkAggregation
from ..models.classify_request_example_rule_type_0 import check_classify_request_example_rule_type_0
from ..models.classify_request_example_rule_type_0 import ClassifyRequestExampleRuleType0
from ..models.classify_request_truncation import check_classify_request_truncation
from ..models.classify_request_truncation import ClassifyRequestTruncation
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.label_object import LabelObject





T = TypeVar("T", bound="ClassifyRequest")



@_attrs_define
class ClassifyRequest:
    """ One text and the labels to rank for it.

        Example:
            {'hypothesis_template': 'This message is about {}.', 'labels': [{'description': 'payments, refunds and
                invoices', 'name': 'billing'}, {'description': ['delivery', 'where a parcel is'], 'name': 'shipping'},
                'praise'], 'text': 'My card was charged twice for one order', 'threshold': 0.6}

        Attributes:
            text (str): The text to classify, in any language the model covers.
            calibration (ClassifyRequestCalibrationType0 | None | Unset): Correct each label's bias (some wordings sit
                closer to every text and win too often): none; traffic (per-label offsets learned from the unlabelled texts this
                service has answered with the same labels, shared by replicas; uncalibrated until it has seen enough of them);
                job (a job's own texts are the sample: jobs only). Default: the label set's (traffic, or its frozen fit from zsc
                calibrate), else none.
            chunk_aggregation (ClassifyRequestChunkAggregation | Unset): With chunk: a label's evidence over the windows,
                the strongest (max) or mean. Default: 'max'.
            example_rule (ClassifyRequestExampleRuleType0 | None | Unset): How a label's examples join its wording
                (embedding models): the text's similarity to their mean (prototype), to the closest one (nearest), or the
                prototype blended with the wording (blend). Default: the label set's, else the model's (GET /models).
            example_weight (float | None | Unset): With blend: the wording's share in [0, 1] for a label with 3 examples
                (one with k gets n0 / (n0 + k), n0 = 3 w / (1 - w): less with more examples; none where the label's wording does
                not point at its examples); 0 = the prototype alone, 1 = the wording alone. Default: the label set's, else the
                model's.
            hypothesis_template (None | str | Unset): How a label (or its description) becomes a hypothesis; must contain
                '{}'. Default: the model's.
            label_set (None | str | Unset): A label set the service holds (GET /label_sets): its labels, template,
                threshold; fields given here override the set's.
            labels (list[LabelObject | str] | None | str | Unset): Candidate labels: a list of names or label objects, or
                one string separated by ',' or '，'. Required unless label_set is given.
            model (None | str | Unset): The model to answer with: a name or tag from GET /models, or `auto` (per text, the
                first model in ZSC_MODELS order whose languages cover its script). Default: the model the label set was tuned on
                when this replica serves it, else the replica's first.
            multi_label (bool | Unset): Score each label on its own (labels may all be true) instead of one softmax.
                Default: False.
            threshold (float | None | Unset): Decision threshold in [0, 1]: single-label, `predicted` is the top label if
                its score reaches it, else null; multi-label, every label at or above it. Default: the top label / 0.5.
            top_k (int | None | Unset): Return only the k best labels.
            truncation (ClassifyRequestTruncation | Unset): A text longer than the model's window: cut its end (end), keep
                its end (start), refuse it with 400 (error), or score it in overlapping windows (chunk). Default: 'end'.
     """

    text: str
    calibration: ClassifyRequestCalibrationType0 | None | Unset = UNSET
    chunk_aggregation: ClassifyRequestChunkAggregation | Unset = 'max'
    example_rule: ClassifyRequestExampleRuleType0 | None | Unset = UNSET
    example_weight: float | None | Unset = UNSET
    hypothesis_template: None | str | Unset = UNSET
    label_set: None | str | Unset = UNSET
    labels: list[LabelObject | str] | None | str | Unset = UNSET
    model: None | str | Unset = UNSET
    multi_label: bool | Unset = False
    threshold: float | None | Unset = UNSET
    top_k: int | None | Unset = UNSET
    truncation: ClassifyRequestTruncation | Unset = 'end'





    def to_dict(self) -> dict[str, Any]:
        from ..models.label_object import LabelObject # noqa: PLC0415
        text = self.text

        calibration: None | str | Unset
        if isinstance(self.calibration, Unset):
            calibration = UNSET
        elif isinstance(self.calibration, str):
            calibration = self.calibration
        else:
            calibration = self.calibration

        chunk_aggregation: str | Unset = UNSET
        if not isinstance(self.chunk_aggregation, Unset):
            chunk_aggregation = self.chunk_aggregation


        example_rule: None | str | Unset
        if isinstance(self.example_rule, Unset):
            example_rule = UNSET
        elif isinstance(self.example_rule, str):
            example_rule = self.example_rule
        else:
            example_rule = self.example_rule

        example_weight: float | None | Unset
        if isinstance(self.example_weight, Unset):
            example_weight = UNSET
        else:
            example_weight = self.example_weight

        hypothesis_template: None | str | Unset
        if isinstance(self.hypothesis_template, Unset):
            hypothesis_template = UNSET
        else:
            hypothesis_template = self.hypothesis_template

        label_set: None | str | Unset
        if isinstance(self.label_set, Unset):
            label_set = UNSET
        else:
            label_set = self.label_set

        labels: list[dict[str, Any] | str] | None | str | Unset
        if isinstance(self.labels, Unset):
            labels = UNSET
        elif isinstance(self.labels, list):
            labels = []
            for labels_type_0_item_data in self.labels:
                labels_type_0_item: dict[str, Any] | str
                if isinstance(labels_type_0_item_data, LabelObject):
                    labels_type_0_item = labels_type_0_item_data.to_dict()
                else:
                    labels_type_0_item = labels_type_0_item_data
                labels.append(labels_type_0_item)


        else:
            labels = self.labels

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        multi_label = self.multi_label

        threshold: float | None | Unset
        if isinstance(self.threshold, Unset):
            threshold = UNSET
        else:
            threshold = self.threshold

        top_k: int | None | Unset
        if isinstance(self.top_k, Unset):
            top_k = UNSET
        else:
            top_k = self.top_k

        truncation: str | Unset = UNSET
        if not isinstance(self.truncation, Unset):
            truncation = self.truncation



        field_dict: dict[str, Any] = {}

        field_dict.update({
            "text": text,
        })
        if calibration is not UNSET:
            field_dict["calibration"] = calibration
        if chunk_aggregation is not UNSET:
            field_dict["chunk_aggregation"] = chunk_aggregation
        if example_rule is not UNSET:
            field_dict["example_rule"] = example_rule
        if example_weight is not UNSET:
            field_dict["example_weight"] = example_weight
        if hypothesis_template is not UNSET:
            field_dict["hypothesis_template"] = hypothesis_template
        if label_set is not UNSET:
            field_dict["label_set"] = label_set
        if labels is not UNSET:
            field_dict["labels"] = labels
        if model is not UNSET:
            field_dict["model"] = model
        if multi_label is not UNSET:
            field_dict["multi_label"] = multi_label
        if threshold is not UNSET:
            field_dict["threshold"] = threshold
        if top_k is not UNSET:
            field_dict["top_k"] = top_k
        if truncation is not UNSET:
            field_dict["truncation"] = truncation

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.label_object import LabelObject # noqa: PLC0415
        d = dict(src_dict)
        text = d.pop("text")

        def _parse_calibration(data: object) -> ClassifyRequestCalibrationType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                calibration_type_0 = check_classify_request_calibration_type_0(data)



                return calibration_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ClassifyRequestCalibrationType0 | None | Unset, data)

        calibration = _parse_calibration(d.pop("calibration", UNSET))


        _chunk_aggregation = d.pop("chunk_aggregation", UNSET)
        chunk_aggregation: ClassifyRequestChunkAggregation | Unset
        if isinstance(_chunk_aggregation,  Unset):
            chunk_aggregation = UNSET
        else:
            chunk_aggregation = check_classify_request_chunk_aggregation(_chunk_aggregation)




        def _parse_example_rule(data: object) -> ClassifyRequestExampleRuleType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                example_rule_type_0 = check_classify_request_example_rule_type_0(data)



                return example_rule_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ClassifyRequestExampleRuleType0 | None | Unset, data)

        example_rule = _parse_example_rule(d.pop("example_rule", UNSET))


        def _parse_example_weight(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        example_weight = _parse_example_weight(d.pop("example_weight", UNSET))


        def _parse_hypothesis_template(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        hypothesis_template = _parse_hypothesis_template(d.pop("hypothesis_template", UNSET))


        def _parse_label_set(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        label_set = _parse_label_set(d.pop("label_set", UNSET))


        def _parse_labels(data: object) -> list[LabelObject | str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                labels_type_0 = []
                _labels_type_0 = data
                for labels_type_0_item_data in (_labels_type_0):
                    def _parse_labels_type_0_item(data: object) -> LabelObject | str:
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            labels_type_0_item_type_1 = LabelObject.from_dict(data)



                            return labels_type_0_item_type_1
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        return cast(LabelObject | str, data)

                    labels_type_0_item = _parse_labels_type_0_item(labels_type_0_item_data)

                    labels_type_0.append(labels_type_0_item)

                return labels_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[LabelObject | str] | None | str | Unset, data)

        labels = _parse_labels(d.pop("labels", UNSET))


        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))


        multi_label = d.pop("multi_label", UNSET)

        def _parse_threshold(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        threshold = _parse_threshold(d.pop("threshold", UNSET))


        def _parse_top_k(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        top_k = _parse_top_k(d.pop("top_k", UNSET))


        _truncation = d.pop("truncation", UNSET)
        truncation: ClassifyRequestTruncation | Unset
        if isinstance(_truncation,  Unset):
            truncation = UNSET
        else:
            truncation = check_classify_request_truncation(_truncation)




        classify_request = cls(
            text=text,
            calibration=calibration,
            chunk_aggregation=chunk_aggregation,
            example_rule=example_rule,
            example_weight=example_weight,
            hypothesis_template=hypothesis_template,
            label_set=label_set,
            labels=labels,
            model=model,
            multi_label=multi_label,
            threshold=threshold,
            top_k=top_k,
            truncation=truncation,
        )

        return classify_request

