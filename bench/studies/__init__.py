"""Studies: one-off research that answered a design question by comparing candidates (designs, estimators,
quantizations, fitted values) in process, and chose one. A study is rerun only to revisit its question; its
recorded runs in ``results/`` and the docs that cite them are its answer. A tool (``bench/``) measures the
product as shipped, through what ships, and is rerun whenever the code changes. Studies may import tools and
the shared modules of ``bench/`` (``decision_sets``, ``calibration_sets``, ``predicate_calibration``); no tool
imports a study.

- ``decisions_study``: what OpenAI-shaped decision questions do with an embedding model: predicate features
  and their calibration, choice wordings and sharpening, ordinal scores (docs/decisions.md);
  ``--write-calibration`` rewrites the shipped ``service/core/predicate_calibration.json`` (through
  ``bench.predicate_calibration``).
- ``label_calibration``: label calibration from unlabelled texts: the service's estimator against the
  candidates it was chosen from, protocols, drift, thresholds, label examples (docs/evaluation.md).
- ``calibration_estimators``: which estimator turns unlabelled texts into label offsets, on skewed and
  flooded estimation samples (docs/evaluation.md).
- ``examples_rule``: the service's label-example rules against a plain prototype (docs/evaluation.md).
- ``int8``: int8 quantization candidates (dynamic, static QDQ, sensitive nodes left in fp32) against fp32:
  agreement, accuracy and speed (``make int8-study``, docs/performance.md).
- ``calibrate``: an embedding model's score scale and multi-label bias, fitted on half of the labelled sets
  (the values in ``service/modelstore/known_models.py``; docs/evaluation.md).
"""
