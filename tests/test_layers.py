"""The house's layers: every import of the app's code runs down the order below, and no two modules import each
other, directly or round a longer circle. Read from the source (ast), imports inside functions included."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The rule, written once: a module may import its own layer and the layers after it, never one before it.
# app.py is the entry point and sits with the pages. bench/, deploy/, devtools/ and tests/ stand beside the house: they
# may import any of it, and nothing in it imports them.
LAYERS = ("app_pages", "ui", "serving", "lessons", "attention")
BESIDE = ("bench", "deploy", "devtools", "tests")


def layer_of(module: str) -> str:
    return "app_pages" if module == "app" else module.split(".")[0]


def module_files() -> dict[str, Path]:
    files = {"app": ROOT / "app.py"}
    for package in LAYERS:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return files


def imports_of(module: str, source: str, known: set[str], is_package: bool = False) -> set[str]:
    """The first-party modules `module` imports (`from x import y` counts as x.y when that is a module)."""
    package = module if is_package or module in LAYERS else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top in LAYERS or top in BESIDE:
                found.add(name if name in known or top in BESIDE else top)
    found.discard(module)
    return found


def import_graph(sources: dict[str, str], packages: frozenset[str] = frozenset()) -> dict[str, set[str]]:
    known = set(sources)
    return {module: imports_of(module, source, known, module in packages) for module, source in sources.items()}


def arrows_against_the_order(graph: dict[str, set[str]]) -> list[str]:
    wrong = []
    for module, imported in graph.items():
        for other in sorted(imported):
            if other.split(".")[0] in BESIDE:
                wrong.append(f"{module} -> {other} (beside the house)")
            elif LAYERS.index(layer_of(other)) < LAYERS.index(layer_of(module)):
                wrong.append(f"{module} -> {other} (back up: {layer_of(module)} -> {layer_of(other)})")
    return wrong


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(module):
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in graph.get(module, ()):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                group.append(other)
                if other == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def the_house() -> dict[str, set[str]]:
    files = module_files()
    packages = frozenset(module for module, path in files.items() if path.name == "__init__.py")
    return import_graph({module: path.read_text() for module, path in files.items()}, packages)


def test_every_import_runs_down_the_layers():
    graph = the_house()
    assert {"app", "app_pages.home", "ui.view", "serving.models", "lessons.explain", "attention.core"} <= set(graph)
    assert "serving.models" in graph["ui.model"] and "attention.model" in graph["serving.models"]
    assert "attention" in graph["lessons.explain"] or "attention.core" in graph["lessons.explain"]
    assert not arrows_against_the_order(graph)


def test_no_two_modules_import_each_other():
    assert not circles(the_house())


def test_the_checks_see_a_circle_and_an_arrow_back_up():
    """The two checks above, on a made-up house with one of each: they must find them."""
    graph = import_graph({
        "ui.view": "from . import sidebar\n",
        "ui.sidebar": "def f():\n    from .view import View\n",   # a circle through an import inside a function
        "serving.models": "from ui.text import md\n",            # serving reaching back up into ui
        "ui.text": "import re\n",
        "attention.core": "import numpy\n",
        "attention.model": "from lessons import heads\n",          # the mechanism reaching up into a lesson
        "lessons.heads": "from attention import core\n",
    })
    assert circles(graph) == [["ui.sidebar", "ui.view"]]
    assert arrows_against_the_order(graph) == ["serving.models -> ui.text (back up: serving -> ui)",
                                               "attention.model -> lessons.heads (back up: attention -> lessons)"]


def test_the_mechanism_reads_in_a_minute():
    """attention/ holds self-attention and model access only; what the lessons measure lives in lessons/."""
    lines = sum(len(path.read_text().splitlines()) for path in (ROOT / "attention").glob("*.py"))
    assert lines <= 1000, f"attention/ has {lines} lines: move what a lesson measures to lessons/"


def test_serving_draws_nothing():
    """serving/ uses Streamlit only for its cache decorators: no element, widget or session state."""
    allowed = {"cache_resource", "cache_data"}
    used = set()
    for path in (ROOT / "serving").glob("*.py"):
        tree = ast.parse(path.read_text())
        used |= {f"{path.name}: st.{node.attr}" for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                 and isinstance(node.value, ast.Name) and node.value.id == "st" and node.attr not in allowed}
    assert not used
