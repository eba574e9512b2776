from typing import Literal

ClassifyBodyExampleRuleType0 = Literal['blend', 'nearest', 'prototype']

CLASSIFY_BODY_EXAMPLE_RULE_TYPE_0_VALUES: set[ClassifyBodyExampleRuleType0] = { 'blend', 'nearest', 'prototype',  }

def check_classify_body_example_rule_type_0(value: str) -> ClassifyBodyExampleRuleType0:
    if value in CLASSIFY_BODY_EXAMPLE_RULE_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CLASSIFY_BODY_EXAMPLE_RULE_TYPE_0_VALUES!r}")
