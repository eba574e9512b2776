from typing import Literal

PredicateAnswerType = Literal['predicate']

PREDICATE_ANSWER_TYPE_VALUES: set[PredicateAnswerType] = { 'predicate',  }

def check_predicate_answer_type(value: str) -> PredicateAnswerType:
    if value in PREDICATE_ANSWER_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PREDICATE_ANSWER_TYPE_VALUES!r}")
