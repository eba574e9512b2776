"""The package's structure, read from its source: every import of every module of ``service/`` (lazy ones
inside functions too), checked against the layers. No import cycle; each layer imports only layers below
it; the engine and the backends import neither BentoML nor anything of the HTTP layer; what the serving
process can reach never includes model import, conversion, evaluation or tuning (the live proof, a real
worker's ``sys.modules``, is tests/integration/test_one_path.py)."""

from __future__ import annotations

import ast
from pathlib import Path

from harness import ROOT

PACKAGE = ROOT / "service"

# Lower numbers are lower layers; a module may import its own layer and the layers below it.
LAYERS = {
    "service.config": 0,
    "service.errors": 0,
    "service.core": 0,
    "service.obs": 0,
    "service.ui": 0,
    "service.api": 1,
    "service.backends": 1,
    "service.admission": 2,
    "service.engine": 2,
    "service.pipeline": 3,
    "service.jobs": 4,
    "service.runtime": 4,
    "service.modelstore": 4,
    "service.quality": 4,
    "service.build": 5,
    "service.http": 6,
    "service.cli": 6,
}
BUILD_TIME = ("service.modelstore", "service.quality", "service.cli")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every module this file imports, anywhere in it, as absolute dotted names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names)  # `from pkg import module`
    return out


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: {m for m in imports_of(path) if m in modules and m != name} for name, path in modules.items()}


def layer(module: str) -> int:
    matches = [key for key in LAYERS if module == key or module.startswith(key + ".")]
    assert matches, f"{module} is in no layer: add its folder to LAYERS"
    return LAYERS[max(matches, key=len)]


def test_every_module_belongs_to_a_layer_and_the_top_level_stays_small():
    g = graph()
    for module in g:
        if module != "service":
            layer(module)
    top = [p.name for p in PACKAGE.glob("*.py")]
    assert len(top) <= 8, top


def test_dependencies_point_down():
    wrong = [
        f"{a} -> {b}"
        for a, targets in graph().items()
        if a != "service"
        for b in targets
        if b != "service" and layer(b) > layer(a)
    ]
    assert not wrong, "imports that point up:\n" + "\n".join(sorted(wrong))


def test_no_import_cycle():
    g = graph()
    # a package's __init__ importing its own submodules is not a cycle through the package
    edges = {a: {b for b in bs if not a.startswith(b + ".")} for a, bs in g.items()}
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt) :] + [nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)


def test_engine_and_backends_know_no_framework_and_no_http():
    for path in [*PACKAGE.joinpath("engine").rglob("*.py"), *PACKAGE.joinpath("backends").rglob("*.py")]:
        bad = {m for m in imports_of(path) if m.split(".")[0] in ("bentoml", "_bentoml_sdk", "_bentoml_impl")}
        bad |= {m for m in imports_of(path) if m.startswith(("service.http", "starlette"))}
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_the_serving_process_cannot_reach_build_time_code():
    g = graph()
    reached, todo = set(), ["service.http.app"]
    while todo:
        module = todo.pop()
        if module in reached:
            continue
        reached.add(module)
        todo.extend(g.get(module, ()))
    assert not [m for m in reached if m.startswith(BUILD_TIME)], sorted(reached)


def test_importing_the_service_module_stays_cheap():
    """The serving CLI, `bentoml build` and the client generator import the service module without running
    it: the model's libraries load in the worker's ``__init__``, not there (each serve pays it otherwise)."""
    import subprocess
    import sys

    heavy = ("transformers", "torch", "onnxruntime", "tokenizers", "redis")
    code = f"import sys, service.http.app; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout


def test_tooling_imports_point_one_way():
    """Tooling beside the product has its own order: harness (starting and measuring processes) <- loadtest
    (load tests, and the models both serve) <- bench (measurement tools) <- bench/studies (one-off studies).
    Nothing imports back up."""
    below = {"harness": ("loadtest", "bench"), "loadtest": ("bench",)}
    wrong = []
    for folder, above in below.items():
        for path in (ROOT / folder).rglob("*.py"):
            ups = sorted(m for m in imports_of(path) if m.split(".")[0] in above)
            wrong += [f"{path.relative_to(ROOT)} -> {m}" for m in ups]
    assert not wrong, "tooling imports that point up:\n" + "\n".join(wrong)


def test_no_tool_imports_a_study():
    """A tool (bench/*.py, rerun whenever the code changes) measures what ships; a study (bench/studies/)
    answered a question once. A tool needs nothing of a study: what both use (the labelled sets, the
    calibration file's writer) lives on the tool side."""
    tools = list((ROOT / "bench").glob("*.py"))
    wrong = [
        f"{path.relative_to(ROOT)} -> {m}"
        for path in tools
        for m in sorted(imports_of(path))
        if m == "bench.studies" or m.startswith("bench.studies.")
    ]
    assert tools and not wrong, "tools that import a study:\n" + "\n".join(wrong)
