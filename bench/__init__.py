"""Measurement tools, apart from the load tests (``loadtest/``): each measures the product as shipped and is
rerun whenever the code changes. Recorded runs go to ``results/``. The one-off studies that chose between
candidate designs are in ``bench/studies/`` (a study compares candidates and picks one; a tool measures what
ships).

- ``suite`` (``make bench``: the forward ceiling, the engine, the service and the naive baseline, torch vs
  ONNX, the cache), ``gpu`` (``make bench-gpu``), ``cache`` (the Redis cache benchmark, part of ``suite``),
  ``echo_service`` (a service that does no work: the HTTP layer's ceiling).
- ``ab`` (two checkouts or settings side by side, alternated), ``forward`` (the forward pass alone per
  runtime and precision), ``startup`` (seconds to ready), ``runtime_agreement`` (the chosen runtime's answers
  against ONNX Runtime fp32).
- ``capacity`` (replicas from a load-test result), ``redis_memory`` (bytes per cached row).
- Accuracy through a served model: ``accuracy`` (``make accuracy``), ``calibration_eval`` (label
  calibration), ``decisions_eval`` (OpenAI's Decisions API), ``systemone_eval`` (the System One API),
  ``examples`` (label examples).
- Shared by tools and studies: ``decision_sets`` and ``calibration_sets`` (the labelled sets and splits),
  ``predicate_calibration`` (the writer of the decision calibration file the server ships).
"""
