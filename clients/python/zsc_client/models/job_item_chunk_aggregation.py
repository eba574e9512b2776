from typing import Literal

JobItemChunkAggregation = Literal['max', 'mean']

JOB_ITEM_CHUNK_AGGREGATION_VALUES: set[JobItemChunkAggregation] = { 'max', 'mean',  }

def check_job_item_chunk_aggregation(value: str) -> JobItemChunkAggregation:
    if value in JOB_ITEM_CHUNK_AGGREGATION_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {JOB_ITEM_CHUNK_AGGREGATION_VALUES!r}")
