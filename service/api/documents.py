"""The shapes of the answers that are not classifications: the label sets a replica holds, and every
error body. They describe JSON the HTTP layer writes (tests compare them with live answers) for the
OpenAPI document and the typed client."""

from __future__ import annotations

from pydantic import BaseModel, Field


class CalibrationScope(BaseModel):
    scope: str = Field(description="key:<key id> (an API key's own records) or shared (keys off, or sets opting in).")
    records: int = Field(description="Records this replica holds in it (label wordings learned apart).")
    texts: int = Field(description="Texts its records have seen (every replica's, as this replica last read them).")
    sources: int = Field(description="Sources (API keys, else client addresses) of the record with the most.")
    largest_share: float = Field(description="The largest source's share of a record's weight, before the cap.")
    held_back: int = Field(description="Sources whose texts the burst guard holds back now, on this replica.")


class ModelCalibrationScope(CalibrationScope):
    model: str = Field(description="The model whose records these are.")


class LabelSetCalibration(BaseModel):
    mode: str = Field(description="none, traffic (learned from the texts answered with its labels) or frozen.")
    texts: int | None = Field(
        description="traffic: texts its own wording has seen on the model it runs on (every replica's, with "
        "Redis); frozen: texts zsc calibrate fitted it on; null with none."
    )
    calibrated: bool = Field(
        description="Whether its answers are corrected now (enough texts; a frozen fit for this model)."
    )
    scopes: list[CalibrationScope] | None = Field(
        default=None,
        description="traffic: this replica's records of its own wording per scope the caller may see (its API "
        "key's and the shared one).",
    )


class LabelSetSummary(BaseModel):
    name: str
    description: str | None
    labels: list[str]
    hypothesis_template: str | None
    multi_label: bool | None
    threshold: float | None
    thresholds: dict[str, float]
    examples: int = Field(description="Example texts its labels carry, in all.")
    example_rule: str | None = Field(description="How its labels' examples join their wording (null: the model's).")
    example_weight: float | None
    model: str | None
    revision: str | None
    matches_model: bool = Field(description="False when the set was tuned on another model or revision.")
    calibration: LabelSetCalibration


class LabelSets(BaseModel):
    label_sets: list[LabelSetSummary]
    calibration_scopes: list[ModelCalibrationScope] = Field(
        description="Every traffic record this replica holds, ad hoc label wordings too, per model and per scope "
        "the caller may see: its API key's own and the shared one, never another key's."
    )


class RuntimeCandidate(BaseModel):
    runtime: str = Field(description="onnx, openvino or torch.")
    precision: str = Field(description="fp32, bf16, fp16 or int8.")
    texts_per_s: float = Field(description="Sample texts (with their labels) per second on this machine.")
    top1_agreement: float = Field(description="Share of the sample whose top label is fp32's.")
    max_score_diff: float = Field(description="The largest score difference from fp32 on the sample.")
    mean_score_diff: float = Field(description="The mean absolute score difference from fp32 (refused over 0.01).")
    refused: str | None = Field(description="Why it may not serve (answers unlike fp32's, failed, not measured).")
    chosen: bool


class RuntimeChoice(BaseModel):
    runtime: str
    precision: str
    how: str = Field(
        description="measured (ZSC_RUNTIME and ZSC_PRECISION auto: the fastest candidate that agrees with fp32), "
        "remembered (measured at an earlier start on this CPU), pinned (set by the operator: not verified), only "
        "candidate, or device (a GPU)."
    )
    verified: bool = Field(description="Whether its answers were compared with fp32's.")
    candidates: list[RuntimeCandidate] = Field(description="Every candidate measured; empty unless measured.")
    reference: str | None = Field(
        default=None,
        description="Below fp32 on a CPU: the model's fp32 copy (e.g. openvino fp32) that computes its label rows, "
        "and again the texts of close calls (ZSC_CLOSE_CALL_MARGIN); null when it serves in fp32.",
    )
    close_call_margin: float | None = Field(
        default=None, description="An answer whose two best labels are within this is computed again in fp32."
    )


class ModelSummary(BaseModel):
    name: str = Field(description="The model's name in the store: what a request's `model` names.")
    tag: str = Field(description="Name and version, as answers report it in `model`.")
    default: bool = Field(description="Whether requests naming no model (and no label set tuned on another) get it.")
    kind: str = Field(description="nli or embedding.")
    languages: list[str] = Field(description="ISO 639-1 codes the model covers; empty when not known.")
    max_length: int = Field(description="Tokens per sequence.")
    revision: str
    state: str = Field(description="ready")
    memory_mb: float = Field(description="Resident memory its loading added to the replica.")
    example_rule: str | None = Field(description="Embedding models: how label examples join the wording by default.")
    example_weight: float | None = Field(
        description="Embedding models: the wording's share in a blend by default (for a label with 3 examples)."
    )
    runtime: str | None = Field(description="The inference runtime it runs on: onnx, openvino or torch.")
    precision: str | None = Field(description="The arithmetic of its forward pass: fp32, bf16, fp16 or int8.")
    runtime_choice: RuntimeChoice | None = Field(description="How the runtime and precision were chosen.")


class ServedModels(BaseModel):
    models: list[ModelSummary]


class ErrorBody(BaseModel):
    error: str = Field(description="What went wrong and what to change.")
    error_type: str


class OpenAIError(BaseModel):
    message: str = Field(description="What went wrong and what to change.")
    type: str = Field(
        description="invalid_request_error (400, 404, 405, 408, 413, 415, 431), authentication_error (401), "
        "permission_error (403), rate_limit_error (429), server_error (5xx)."
    )
    param: str | None = Field(description="The request field at fault (e.g. questions[0].choices), when one is.")
    code: str | None = Field(description="The service's error type (e.g. model_not_found, invalid_api_key).")


class OpenAIErrorBody(BaseModel):
    """Every error under /v1, in OpenAI's envelope (what its SDK reads into its exceptions)."""

    error: OpenAIError
