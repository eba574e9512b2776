""" Contains all the data models used in inputs/outputs """

from .answer_warning import AnswerWarning
from .calibration_applied import CalibrationApplied
from .calibration_applied_mode import CalibrationAppliedMode
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
from .error_body import ErrorBody
from .hf_parameters import HfParameters
from .hf_zero_shot_output_io_descriptor_type_0 import HfZeroShotOutputIODescriptorType0
from .hf_zero_shot_output_io_descriptor_type_1_item import HfZeroShotOutputIODescriptorType1Item
from .hf_zero_shot_request_io_descriptor import HfZeroShotRequestIODescriptor
from .hf_zero_shot_response_200_type_0 import HfZeroShotResponse200Type0
from .hf_zero_shot_response_200_type_1_item import HfZeroShotResponse200Type1Item
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
from .model_summary import ModelSummary
from .not_found import NotFound
from .served_models import ServedModels
from .task_status_response import TaskStatusResponse
from .task_status_response_status import TaskStatusResponseStatus

__all__ = (
    "AnswerWarning",
    "CalibrationApplied",
    "CalibrationAppliedMode",
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
    "ErrorBody",
    "HfParameters",
    "HfZeroShotOutputIODescriptorType0",
    "HfZeroShotOutputIODescriptorType1Item",
    "HfZeroShotRequestIODescriptor",
    "HfZeroShotResponse200Type0",
    "HfZeroShotResponse200Type1Item",
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
    "ModelSummary",
    "NotFound",
    "ServedModels",
    "TaskStatusResponse",
    "TaskStatusResponseStatus",
)
