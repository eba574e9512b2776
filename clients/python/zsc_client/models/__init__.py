""" Contains all the data models used in inputs/outputs """

from .answer_warning import AnswerWarning
from .assistant_message import AssistantMessage
from .assistant_message_phase_type_0 import AssistantMessagePhaseType0
from .assistant_message_role import AssistantMessageRole
from .assistant_message_type import AssistantMessageType
from .cache_breakpoint import CacheBreakpoint
from .cache_breakpoint_mode import CacheBreakpointMode
from .calibration_applied import CalibrationApplied
from .calibration_applied_mode import CalibrationAppliedMode
from .calibration_scope import CalibrationScope
from .choice import Choice
from .choice_answer import ChoiceAnswer
from .choice_answer_type import ChoiceAnswerType
from .choice_probability import ChoiceProbability
from .choice_question import ChoiceQuestion
from .choice_question_type import ChoiceQuestionType
from .classify_batch_body import ClassifyBatchBody
from .classify_batch_result import ClassifyBatchResult
from .classify_body import ClassifyBody
from .classify_body_calibration_type_0 import ClassifyBodyCalibrationType0
from .classify_body_chunk_aggregation import ClassifyBodyChunkAggregation
from .classify_body_example_rule_type_0 import ClassifyBodyExampleRuleType0
from .classify_body_truncation import ClassifyBodyTruncation
from .classify_request import ClassifyRequest
from .classify_request_calibration_type_0 import ClassifyRequestCalibrationType0
from .classify_request_chunk_aggregation import ClassifyRequestChunkAggregation
from .classify_request_example_rule_type_0 import ClassifyRequestExampleRuleType0
from .classify_request_truncation import ClassifyRequestTruncation
from .classify_response import ClassifyResponse
from .classify_result import ClassifyResult
from .custom_tool_call import CustomToolCall
from .custom_tool_call_output import CustomToolCallOutput
from .custom_tool_call_output_status_type_0 import CustomToolCallOutputStatusType0
from .custom_tool_call_output_type import CustomToolCallOutputType
from .custom_tool_call_status_type_0 import CustomToolCallStatusType0
from .custom_tool_call_type import CustomToolCallType
from .decision import Decision
from .decision_create_request import DecisionCreateRequest
from .developer_message import DeveloperMessage
from .developer_message_role import DeveloperMessageRole
from .developer_message_type import DeveloperMessageType
from .error_body import ErrorBody
from .function_call import FunctionCall
from .function_call_output import FunctionCallOutput
from .function_call_output_status_type_0 import FunctionCallOutputStatusType0
from .function_call_output_type import FunctionCallOutputType
from .function_call_status_type_0 import FunctionCallStatusType0
from .function_call_type import FunctionCallType
from .hf_parameters import HfParameters
from .hf_zero_shot_output_io_descriptor_type_0 import HfZeroShotOutputIODescriptorType0
from .hf_zero_shot_output_io_descriptor_type_1_item import HfZeroShotOutputIODescriptorType1Item
from .hf_zero_shot_request_io_descriptor import HfZeroShotRequestIODescriptor
from .hf_zero_shot_response_200_type_0 import HfZeroShotResponse200Type0
from .hf_zero_shot_response_200_type_1_item import HfZeroShotResponse200Type1Item
from .input_json import InputJson
from .input_json_data_type_0 import InputJsonDataType0
from .input_json_data_type_1_item import InputJsonDataType1Item
from .input_json_type import InputJsonType
from .input_text import InputText
from .input_text_type import InputTextType
from .input_tokens_details import InputTokensDetails
from .internal_server_error import InternalServerError
from .invalid_argument import InvalidArgument
from .invalid_argument_detail_type_0_item import InvalidArgumentDetailType0Item
from .job_answer import JobAnswer
from .job_item import JobItem
from .job_item_calibration_type_0 import JobItemCalibrationType0
from .job_item_chunk_aggregation_type_0 import JobItemChunkAggregationType0
from .job_item_error import JobItemError
from .job_item_example_rule_type_0 import JobItemExampleRuleType0
from .job_item_truncation_type_0 import JobItemTruncationType0
from .job_links import JobLinks
from .job_results_format import JobResultsFormat
from .job_results_page import JobResultsPage
from .job_results_page_state import JobResultsPageState
from .job_status import JobStatus
from .job_status_backend import JobStatusBackend
from .job_status_state import JobStatusState
from .job_submission import JobSubmission
from .job_submission_calibration_type_0 import JobSubmissionCalibrationType0
from .job_submission_chunk_aggregation_type_0 import JobSubmissionChunkAggregationType0
from .job_submission_example_rule_type_0 import JobSubmissionExampleRuleType0
from .job_submission_truncation_type_0 import JobSubmissionTruncationType0
from .label_object import LabelObject
from .label_set_calibration import LabelSetCalibration
from .label_set_summary import LabelSetSummary
from .label_set_summary_thresholds import LabelSetSummaryThresholds
from .label_sets import LabelSets
from .level import Level
from .model_calibration_scope import ModelCalibrationScope
from .model_directory import ModelDirectory
from .model_directory_object import ModelDirectoryObject
from .model_metadata import ModelMetadata
from .model_object import ModelObject
from .model_object_object import ModelObjectObject
from .model_summary import ModelSummary
from .not_found import NotFound
from .noul_answer import NoulAnswer
from .noul_answer_type import NoulAnswerType
from .noul_criteria import NoulCriteria
from .noul_criteria_false_type_1 import NoulCriteriaFalseType1
from .noul_criteria_true_type_1 import NoulCriteriaTrueType1
from .noul_labels import NoulLabels
from .noul_question import NoulQuestion
from .noul_question_instructions_type_1 import NoulQuestionInstructionsType1
from .noul_question_type import NoulQuestionType
from .open_ai_error import OpenAIError
from .open_ai_error_body import OpenAIErrorBody
from .output_text import OutputText
from .output_text_type import OutputTextType
from .output_tokens_details import OutputTokensDetails
from .predicate_answer import PredicateAnswer
from .predicate_answer_type import PredicateAnswerType
from .predicate_question import PredicateQuestion
from .predicate_question_type import PredicateQuestionType
from .prompt_cache_options import PromptCacheOptions
from .prompt_cache_options_mode_type_0 import PromptCacheOptionsModeType0
from .prompt_cache_options_ttl import PromptCacheOptionsTtl
from .question_image import QuestionImage
from .question_image_detail_type_0 import QuestionImageDetailType0
from .question_image_type import QuestionImageType
from .question_text import QuestionText
from .question_text_type import QuestionTextType
from .refusal_answer import RefusalAnswer
from .refusal_answer_type import RefusalAnswerType
from .refusal_part import RefusalPart
from .refusal_part_type import RefusalPartType
from .runtime_candidate import RuntimeCandidate
from .runtime_choice import RuntimeChoice
from .score_answer import ScoreAnswer
from .score_answer_type import ScoreAnswerType
from .score_probability import ScoreProbability
from .score_question import ScoreQuestion
from .score_question_type import ScoreQuestionType
from .served_models import ServedModels
from .system_message import SystemMessage
from .system_message_role import SystemMessageRole
from .system_message_type import SystemMessageType
from .system_one_choice_answer import SystemOneChoiceAnswer
from .system_one_choice_answer_probabilities import SystemOneChoiceAnswerProbabilities
from .system_one_choice_answer_type import SystemOneChoiceAnswerType
from .system_one_choice_question import SystemOneChoiceQuestion
from .system_one_choice_question_criteria import SystemOneChoiceQuestionCriteria
from .system_one_choice_question_criteria_additional_property_type_1 import SystemOneChoiceQuestionCriteriaAdditionalPropertyType1
from .system_one_choice_question_instructions_type_1 import SystemOneChoiceQuestionInstructionsType1
from .system_one_choice_question_type import SystemOneChoiceQuestionType
from .system_one_request import SystemOneRequest
from .system_one_request_questions import SystemOneRequestQuestions
from .system_one_request_state_type_1 import SystemOneRequestStateType1
from .system_one_response import SystemOneResponse
from .system_one_response_answers import SystemOneResponseAnswers
from .system_one_score_answer import SystemOneScoreAnswer
from .system_one_score_answer_legend import SystemOneScoreAnswerLegend
from .system_one_score_answer_probabilities import SystemOneScoreAnswerProbabilities
from .system_one_score_answer_type import SystemOneScoreAnswerType
from .system_one_score_question import SystemOneScoreQuestion
from .system_one_score_question_criteria_item_type_1 import SystemOneScoreQuestionCriteriaItemType1
from .system_one_score_question_instructions_type_1 import SystemOneScoreQuestionInstructionsType1
from .system_one_score_question_type import SystemOneScoreQuestionType
from .system_one_usage import SystemOneUsage
from .task_status_response import TaskStatusResponse
from .task_status_response_status import TaskStatusResponseStatus
from .usage import Usage
from .user_message import UserMessage
from .user_message_role import UserMessageRole
from .user_message_type import UserMessageType

__all__ = (
    "AnswerWarning",
    "AssistantMessage",
    "AssistantMessagePhaseType0",
    "AssistantMessageRole",
    "AssistantMessageType",
    "CacheBreakpoint",
    "CacheBreakpointMode",
    "CalibrationApplied",
    "CalibrationAppliedMode",
    "CalibrationScope",
    "Choice",
    "ChoiceAnswer",
    "ChoiceAnswerType",
    "ChoiceProbability",
    "ChoiceQuestion",
    "ChoiceQuestionType",
    "ClassifyBatchBody",
    "ClassifyBatchResult",
    "ClassifyBody",
    "ClassifyBodyCalibrationType0",
    "ClassifyBodyChunkAggregation",
    "ClassifyBodyExampleRuleType0",
    "ClassifyBodyTruncation",
    "ClassifyRequest",
    "ClassifyRequestCalibrationType0",
    "ClassifyRequestChunkAggregation",
    "ClassifyRequestExampleRuleType0",
    "ClassifyRequestTruncation",
    "ClassifyResponse",
    "ClassifyResult",
    "CustomToolCall",
    "CustomToolCallOutput",
    "CustomToolCallOutputStatusType0",
    "CustomToolCallOutputType",
    "CustomToolCallStatusType0",
    "CustomToolCallType",
    "Decision",
    "DecisionCreateRequest",
    "DeveloperMessage",
    "DeveloperMessageRole",
    "DeveloperMessageType",
    "ErrorBody",
    "FunctionCall",
    "FunctionCallOutput",
    "FunctionCallOutputStatusType0",
    "FunctionCallOutputType",
    "FunctionCallStatusType0",
    "FunctionCallType",
    "HfParameters",
    "HfZeroShotOutputIODescriptorType0",
    "HfZeroShotOutputIODescriptorType1Item",
    "HfZeroShotRequestIODescriptor",
    "HfZeroShotResponse200Type0",
    "HfZeroShotResponse200Type1Item",
    "InputJson",
    "InputJsonDataType0",
    "InputJsonDataType1Item",
    "InputJsonType",
    "InputText",
    "InputTextType",
    "InputTokensDetails",
    "InternalServerError",
    "InvalidArgument",
    "InvalidArgumentDetailType0Item",
    "JobAnswer",
    "JobItem",
    "JobItemCalibrationType0",
    "JobItemChunkAggregationType0",
    "JobItemError",
    "JobItemExampleRuleType0",
    "JobItemTruncationType0",
    "JobLinks",
    "JobResultsFormat",
    "JobResultsPage",
    "JobResultsPageState",
    "JobStatus",
    "JobStatusBackend",
    "JobStatusState",
    "JobSubmission",
    "JobSubmissionCalibrationType0",
    "JobSubmissionChunkAggregationType0",
    "JobSubmissionExampleRuleType0",
    "JobSubmissionTruncationType0",
    "LabelObject",
    "LabelSetCalibration",
    "LabelSets",
    "LabelSetSummary",
    "LabelSetSummaryThresholds",
    "Level",
    "ModelCalibrationScope",
    "ModelDirectory",
    "ModelDirectoryObject",
    "ModelMetadata",
    "ModelObject",
    "ModelObjectObject",
    "ModelSummary",
    "NotFound",
    "NoulAnswer",
    "NoulAnswerType",
    "NoulCriteria",
    "NoulCriteriaFalseType1",
    "NoulCriteriaTrueType1",
    "NoulLabels",
    "NoulQuestion",
    "NoulQuestionInstructionsType1",
    "NoulQuestionType",
    "OpenAIError",
    "OpenAIErrorBody",
    "OutputText",
    "OutputTextType",
    "OutputTokensDetails",
    "PredicateAnswer",
    "PredicateAnswerType",
    "PredicateQuestion",
    "PredicateQuestionType",
    "PromptCacheOptions",
    "PromptCacheOptionsModeType0",
    "PromptCacheOptionsTtl",
    "QuestionImage",
    "QuestionImageDetailType0",
    "QuestionImageType",
    "QuestionText",
    "QuestionTextType",
    "RefusalAnswer",
    "RefusalAnswerType",
    "RefusalPart",
    "RefusalPartType",
    "RuntimeCandidate",
    "RuntimeChoice",
    "ScoreAnswer",
    "ScoreAnswerType",
    "ScoreProbability",
    "ScoreQuestion",
    "ScoreQuestionType",
    "ServedModels",
    "SystemMessage",
    "SystemMessageRole",
    "SystemMessageType",
    "SystemOneChoiceAnswer",
    "SystemOneChoiceAnswerProbabilities",
    "SystemOneChoiceAnswerType",
    "SystemOneChoiceQuestion",
    "SystemOneChoiceQuestionCriteria",
    "SystemOneChoiceQuestionCriteriaAdditionalPropertyType1",
    "SystemOneChoiceQuestionInstructionsType1",
    "SystemOneChoiceQuestionType",
    "SystemOneRequest",
    "SystemOneRequestQuestions",
    "SystemOneRequestStateType1",
    "SystemOneResponse",
    "SystemOneResponseAnswers",
    "SystemOneScoreAnswer",
    "SystemOneScoreAnswerLegend",
    "SystemOneScoreAnswerProbabilities",
    "SystemOneScoreAnswerType",
    "SystemOneScoreQuestion",
    "SystemOneScoreQuestionCriteriaItemType1",
    "SystemOneScoreQuestionInstructionsType1",
    "SystemOneScoreQuestionType",
    "SystemOneUsage",
    "TaskStatusResponse",
    "TaskStatusResponseStatus",
    "Usage",
    "UserMessage",
    "UserMessageRole",
    "UserMessageType",
)
