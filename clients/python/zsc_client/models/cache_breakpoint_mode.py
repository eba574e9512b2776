from typing import Literal

CacheBreakpointMode = Literal['explicit']

CACHE_BREAKPOINT_MODE_VALUES: set[CacheBreakpointMode] = { 'explicit',  }

def check_cache_breakpoint_mode(value: str) -> CacheBreakpointMode:
    if value in CACHE_BREAKPOINT_MODE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CACHE_BREAKPOINT_MODE_VALUES!r}")
