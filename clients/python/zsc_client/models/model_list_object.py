from typing import Literal

ModelListObject = Literal['list']

MODEL_LIST_OBJECT_VALUES: set[ModelListObject] = { 'list',  }

def check_model_list_object(value: str) -> ModelListObject:
    if value in MODEL_LIST_OBJECT_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {MODEL_LIST_OBJECT_VALUES!r}")
