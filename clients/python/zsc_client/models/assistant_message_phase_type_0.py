from typing import Literal

AssistantMessagePhaseType0 = Literal['commentary', 'final_answer']

ASSISTANT_MESSAGE_PHASE_TYPE_0_VALUES: set[AssistantMessagePhaseType0] = { 'commentary', 'final_answer',  }

def check_assistant_message_phase_type_0(value: str) -> AssistantMessagePhaseType0:
    if value in ASSISTANT_MESSAGE_PHASE_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ASSISTANT_MESSAGE_PHASE_TYPE_0_VALUES!r}")
