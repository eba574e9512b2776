from typing import Literal

ModelObjectObject = Literal['model']

MODEL_OBJECT_OBJECT_VALUES: set[ModelObjectObject] = { 'model',  }

def check_model_object_object(value: str) -> ModelObjectObject:
    if value in MODEL_OBJECT_OBJECT_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {MODEL_OBJECT_OBJECT_VALUES!r}")
