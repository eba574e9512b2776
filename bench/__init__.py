"""Benchmarks and studies, apart from the load tests (``loadtest/``): ``suite`` (``make bench``: the forward
ceiling, the engine, the service and the naive baseline, torch vs ONNX, the cache), ``gpu`` (``make
bench-gpu``), ``int8`` (``make int8-study``), ``calibrate`` (embedding score scale and bias), ``accuracy``
(``make accuracy``), ``capacity`` (replicas from a load-test result), ``redis_memory`` (bytes per cached row),
``cache`` (the Redis cache benchmark, part of ``suite``). Recorded runs go to ``results/``."""
