from typing import Literal

ClassifyBodyChunkAggregation = Literal['max', 'mean']

CLASSIFY_BODY_CHUNK_AGGREGATION_VALUES: set[ClassifyBodyChunkAggregation] = { 'max', 'mean',  }

def check_classify_body_chunk_aggregation(value: str) -> ClassifyBodyChunkAggregation:
    if value in CLASSIFY_BODY_CHUNK_AGGREGATION_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CLASSIFY_BODY_CHUNK_AGGREGATION_VALUES!r}")
