""" Contains all the data models used in inputs/outputs """

from .classify_batch_body import ClassifyBatchBody
from .classify_batch_request_io_descriptor import ClassifyBatchRequestIODescriptor
from .classify_batch_response_io_descriptor import ClassifyBatchResponseIODescriptor
from .classify_batch_result import ClassifyBatchResult
from .classify_body import ClassifyBody
from .classify_request import ClassifyRequest
from .classify_request_io_descriptor import ClassifyRequestIODescriptor
from .classify_response import ClassifyResponse
from .classify_response_io_descriptor import ClassifyResponseIODescriptor
from .classify_result import ClassifyResult
from .internal_server_error import InternalServerError
from .invalid_argument import InvalidArgument
from .not_found import NotFound
from .task_status_response import TaskStatusResponse
from .task_status_response_status import TaskStatusResponseStatus

__all__ = (
    "ClassifyBatchBody",
    "ClassifyBatchRequestIODescriptor",
    "ClassifyBatchResponseIODescriptor",
    "ClassifyBatchResult",
    "ClassifyBody",
    "ClassifyRequest",
    "ClassifyRequestIODescriptor",
    "ClassifyResponse",
    "ClassifyResponseIODescriptor",
    "ClassifyResult",
    "InternalServerError",
    "InvalidArgument",
    "NotFound",
    "TaskStatusResponse",
    "TaskStatusResponseStatus",
)
