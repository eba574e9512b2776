"""The System One API (TypeSafe's Jev shape): ``POST /v1/systemone``; protocol types and adapters."""
