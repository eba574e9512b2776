from typing import Literal

RefusalPartType = Literal['refusal']

REFUSAL_PART_TYPE_VALUES: set[RefusalPartType] = { 'refusal',  }

def check_refusal_part_type(value: str) -> RefusalPartType:
    if value in REFUSAL_PART_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {REFUSAL_PART_TYPE_VALUES!r}")
