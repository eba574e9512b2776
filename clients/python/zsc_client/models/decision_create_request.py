from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.assistant_message import AssistantMessage
  from ..models.choice_question import ChoiceQuestion
  from ..models.custom_tool_call import CustomToolCall
  from ..models.custom_tool_call_output import CustomToolCallOutput
  from ..models.developer_message import DeveloperMessage
  from ..models.function_call import FunctionCall
  from ..models.function_call_output import FunctionCallOutput
  from ..models.predicate_question import PredicateQuestion
  from ..models.prompt_cache_options import PromptCacheOptions
  from ..models.score_question import ScoreQuestion
  from ..models.system_message import SystemMessage
  from ..models.user_message import UserMessage





T = TypeVar("T", bound="DecisionCreateRequest")



@_attrs_define
class DecisionCreateRequest:
    """ ``client.decisions.create(...)``'s body.

        Example:
            {'input': 'My card was charged twice for one order', 'model': 'multilingual-e5-small', 'questions': [{'choices':
                [{'description': 'payments, refunds and invoices', 'value': 'billing'}, {'description': 'delivery and parcels',
                'value': 'shipping'}], 'instructions': 'Which team should handle this message?', 'name': 'team', 'type':
                'choice'}, {'instructions': 'The customer was charged twice.', 'name': 'double', 'type': 'predicate'},
                {'instructions': 'How upset is the customer?', 'levels': [{'label': 'calm'}, {'label': 'annoyed'}, {'label':
                'angry'}], 'name': 'anger', 'type': 'score'}]}

        Attributes:
            input_ (list[AssistantMessage | CustomToolCall | CustomToolCallOutput | DeveloperMessage | FunctionCall |
                FunctionCallOutput | SystemMessage | UserMessage] | str):
            model (str):
            questions (list[ChoiceQuestion | PredicateQuestion | ScoreQuestion]):
            prompt_cache_key (None | str | Unset):
            prompt_cache_options (None | PromptCacheOptions | Unset):
            safety_identifier (None | str | Unset):
     """

    input_: list[AssistantMessage | CustomToolCall | CustomToolCallOutput | DeveloperMessage | FunctionCall | FunctionCallOutput | SystemMessage | UserMessage] | str
    model: str
    questions: list[ChoiceQuestion | PredicateQuestion | ScoreQuestion]
    prompt_cache_key: None | str | Unset = UNSET
    prompt_cache_options: None | PromptCacheOptions | Unset = UNSET
    safety_identifier: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.assistant_message import AssistantMessage # noqa: PLC0415
        from ..models.choice_question import ChoiceQuestion # noqa: PLC0415
        from ..models.custom_tool_call import CustomToolCall # noqa: PLC0415
        from ..models.custom_tool_call_output import CustomToolCallOutput # noqa: PLC0415
        from ..models.developer_message import DeveloperMessage # noqa: PLC0415
        from ..models.function_call import FunctionCall # noqa: PLC0415
        from ..models.function_call_output import FunctionCallOutput # noqa: PLC0415
        from ..models.predicate_question import PredicateQuestion # noqa: PLC0415
        from ..models.prompt_cache_options import PromptCacheOptions # noqa: PLC0415
        from ..models.score_question import ScoreQuestion # noqa: PLC0415
        from ..models.system_message import SystemMessage # noqa: PLC0415
        from ..models.user_message import UserMessage # noqa: PLC0415
        input_: list[dict[str, Any]] | str
        if isinstance(self.input_, list):
            input_ = []
            for input_type_1_item_data in self.input_:
                input_type_1_item: dict[str, Any]
                if isinstance(input_type_1_item_data, UserMessage):
                    input_type_1_item = input_type_1_item_data.to_dict()
                elif isinstance(input_type_1_item_data, DeveloperMessage):
                    input_type_1_item = input_type_1_item_data.to_dict()
                elif isinstance(input_type_1_item_data, SystemMessage):
                    input_type_1_item = input_type_1_item_data.to_dict()
                elif isinstance(input_type_1_item_data, AssistantMessage):
                    input_type_1_item = input_type_1_item_data.to_dict()
                elif isinstance(input_type_1_item_data, FunctionCall):
                    input_type_1_item = input_type_1_item_data.to_dict()
                elif isinstance(input_type_1_item_data, FunctionCallOutput):
                    input_type_1_item = input_type_1_item_data.to_dict()
                elif isinstance(input_type_1_item_data, CustomToolCall):
                    input_type_1_item = input_type_1_item_data.to_dict()
                else:
                    input_type_1_item = input_type_1_item_data.to_dict()

                input_.append(input_type_1_item)


        else:
            input_ = self.input_

        model = self.model

        questions = []
        for questions_item_data in self.questions:
            questions_item: dict[str, Any]
            if isinstance(questions_item_data, PredicateQuestion):
                questions_item = questions_item_data.to_dict()
            elif isinstance(questions_item_data, ChoiceQuestion):
                questions_item = questions_item_data.to_dict()
            else:
                questions_item = questions_item_data.to_dict()

            questions.append(questions_item)



        prompt_cache_key: None | str | Unset
        if isinstance(self.prompt_cache_key, Unset):
            prompt_cache_key = UNSET
        else:
            prompt_cache_key = self.prompt_cache_key

        prompt_cache_options: dict[str, Any] | None | Unset
        if isinstance(self.prompt_cache_options, Unset):
            prompt_cache_options = UNSET
        elif isinstance(self.prompt_cache_options, PromptCacheOptions):
            prompt_cache_options = self.prompt_cache_options.to_dict()
        else:
            prompt_cache_options = self.prompt_cache_options

        safety_identifier: None | str | Unset
        if isinstance(self.safety_identifier, Unset):
            safety_identifier = UNSET
        else:
            safety_identifier = self.safety_identifier


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "input": input_,
            "model": model,
            "questions": questions,
        })
        if prompt_cache_key is not UNSET:
            field_dict["prompt_cache_key"] = prompt_cache_key
        if prompt_cache_options is not UNSET:
            field_dict["prompt_cache_options"] = prompt_cache_options
        if safety_identifier is not UNSET:
            field_dict["safety_identifier"] = safety_identifier

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.assistant_message import AssistantMessage # noqa: PLC0415
        from ..models.choice_question import ChoiceQuestion # noqa: PLC0415
        from ..models.custom_tool_call import CustomToolCall # noqa: PLC0415
        from ..models.custom_tool_call_output import CustomToolCallOutput # noqa: PLC0415
        from ..models.developer_message import DeveloperMessage # noqa: PLC0415
        from ..models.function_call import FunctionCall # noqa: PLC0415
        from ..models.function_call_output import FunctionCallOutput # noqa: PLC0415
        from ..models.predicate_question import PredicateQuestion # noqa: PLC0415
        from ..models.prompt_cache_options import PromptCacheOptions # noqa: PLC0415
        from ..models.score_question import ScoreQuestion # noqa: PLC0415
        from ..models.system_message import SystemMessage # noqa: PLC0415
        from ..models.user_message import UserMessage # noqa: PLC0415
        d = dict(src_dict)
        def _parse_input_(data: object) -> list[AssistantMessage | CustomToolCall | CustomToolCallOutput | DeveloperMessage | FunctionCall | FunctionCallOutput | SystemMessage | UserMessage] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                input_type_1 = []
                _input_type_1 = data
                for input_type_1_item_data in (_input_type_1):
                    def _parse_input_type_1_item(data: object) -> AssistantMessage | CustomToolCall | CustomToolCallOutput | DeveloperMessage | FunctionCall | FunctionCallOutput | SystemMessage | UserMessage:
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            input_type_1_item_type_0 = UserMessage.from_dict(data)



                            return input_type_1_item_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            input_type_1_item_type_1 = DeveloperMessage.from_dict(data)



                            return input_type_1_item_type_1
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            input_type_1_item_type_2 = SystemMessage.from_dict(data)



                            return input_type_1_item_type_2
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            input_type_1_item_type_3 = AssistantMessage.from_dict(data)



                            return input_type_1_item_type_3
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            input_type_1_item_type_4 = FunctionCall.from_dict(data)



                            return input_type_1_item_type_4
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            input_type_1_item_type_5 = FunctionCallOutput.from_dict(data)



                            return input_type_1_item_type_5
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            input_type_1_item_type_6 = CustomToolCall.from_dict(data)



                            return input_type_1_item_type_6
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        input_type_1_item_type_7 = CustomToolCallOutput.from_dict(data)



                        return input_type_1_item_type_7

                    input_type_1_item = _parse_input_type_1_item(input_type_1_item_data)

                    input_type_1.append(input_type_1_item)

                return input_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[AssistantMessage | CustomToolCall | CustomToolCallOutput | DeveloperMessage | FunctionCall | FunctionCallOutput | SystemMessage | UserMessage] | str, data)

        input_ = _parse_input_(d.pop("input"))


        model = d.pop("model")

        questions = []
        _questions = d.pop("questions")
        for questions_item_data in (_questions):
            def _parse_questions_item(data: object) -> ChoiceQuestion | PredicateQuestion | ScoreQuestion:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    questions_item_type_0 = PredicateQuestion.from_dict(data)



                    return questions_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    questions_item_type_1 = ChoiceQuestion.from_dict(data)



                    return questions_item_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                questions_item_type_2 = ScoreQuestion.from_dict(data)



                return questions_item_type_2

            questions_item = _parse_questions_item(questions_item_data)

            questions.append(questions_item)


        def _parse_prompt_cache_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        prompt_cache_key = _parse_prompt_cache_key(d.pop("prompt_cache_key", UNSET))


        def _parse_prompt_cache_options(data: object) -> None | PromptCacheOptions | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                prompt_cache_options_type_0 = PromptCacheOptions.from_dict(data)



                return prompt_cache_options_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PromptCacheOptions | Unset, data)

        prompt_cache_options = _parse_prompt_cache_options(d.pop("prompt_cache_options", UNSET))


        def _parse_safety_identifier(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        safety_identifier = _parse_safety_identifier(d.pop("safety_identifier", UNSET))


        decision_create_request = cls(
            input_=input_,
            model=model,
            questions=questions,
            prompt_cache_key=prompt_cache_key,
            prompt_cache_options=prompt_cache_options,
            safety_identifier=safety_identifier,
        )

        return decision_create_request

