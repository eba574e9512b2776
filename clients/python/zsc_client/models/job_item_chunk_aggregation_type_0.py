from typing import Literal

JobItemChunkAggregationType0 = Literal['max', 'mean']

JOB_ITEM_CHUNK_AGGREGATION_TYPE_0_VALUES: set[JobItemChunkAggregationType0] = { 'max', 'mean',  }

def check_job_item_chunk_aggregation_type_0(value: str) -> JobItemChunkAggregationType0:
    if value in JOB_ITEM_CHUNK_AGGREGATION_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {JOB_ITEM_CHUNK_AGGREGATION_TYPE_0_VALUES!r}")
