from typing import Literal

JobSubmissionChunkAggregationType0 = Literal['max', 'mean']

JOB_SUBMISSION_CHUNK_AGGREGATION_TYPE_0_VALUES: set[JobSubmissionChunkAggregationType0] = { 'max', 'mean',  }

def check_job_submission_chunk_aggregation_type_0(value: str) -> JobSubmissionChunkAggregationType0:
    if value in JOB_SUBMISSION_CHUNK_AGGREGATION_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {JOB_SUBMISSION_CHUNK_AGGREGATION_TYPE_0_VALUES!r}")
