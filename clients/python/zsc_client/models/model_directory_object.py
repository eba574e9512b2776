from typing import Literal

ModelDirectoryObject = Literal['list']

MODEL_DIRECTORY_OBJECT_VALUES: set[ModelDirectoryObject] = { 'list',  }

def check_model_directory_object(value: str) -> ModelDirectoryObject:
    if value in MODEL_DIRECTORY_OBJECT_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {MODEL_DIRECTORY_OBJECT_VALUES!r}")
