"""The package's import contracts: the layers of DESIGN.md, and no import cycle among mlcost's
modules, read from the source (nothing is imported).

Every ``import`` statement of every module under ``mlcost/`` is an arrow, of one of three kinds:
``top`` (runs when the module is imported), ``local`` (inside a function: deferred until called)
and ``type-checking`` (inside ``if TYPE_CHECKING:``: seen by mypy only). The three views of the
graph are top-level arrows only; plus function-local ones; plus ``TYPE_CHECKING`` ones. A cycle in
any view is a knot in the design even where Python can still load the modules, so every contract
below counts all three kinds unless it says otherwise.

Why a test over the AST and not ``import-linter``: import-linter's graph (grimp) does include
function-local and ``TYPE_CHECKING`` imports (the latter unless ``exclude_type_checking_imports``
is set), and its ``layers``/``forbidden`` contracts would express most of what is below. It cannot
tell a module-level import from a deferred one inside one contract, and the contract "plot is
imported only inside functions" needs exactly that. It also reports one view, where the cycle
report here names the view and the file and line of every import that closes a cycle. The graph
and the cycle search below are about 150 lines of the standard library. They run in a fraction of
a second in the ordinary test run, and need no new dependency.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mlcost"

#: The kinds of arrow each view counts.
VIEWS: dict[str, frozenset[str]] = {
    "top-level": frozenset({"top"}),
    "+ function-local": frozenset({"top", "local"}),
    "+ TYPE_CHECKING": frozenset({"top", "local", "type-checking"}),
}

#: The layers, lowest first (DESIGN.md, "Layers"; the review's 1.2: errors <- units <- specs <-
#: workload/layout/finetune <- formulas <- plan <- serving <- cli). A module may import modules
#: of its own layer or of a lower one. A name covers its submodules, except ``mlcost`` itself
#: (the package's ``__init__``: the facade the CLI imports). Every module must be in one layer.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("errors and array types", ("mlcost.errors", "mlcost.arrays")),
    ("units", ("mlcost.units", "mlcost.io", "mlcost.records", "mlcost.checks")),
    # plot is a leaf (it imports units only, below); the results reach it inside their plot().
    ("result vocabulary and figures", ("mlcost.results", "mlcost.blocks", "mlcost.plot")),
    ("specs", ("mlcost.specs",)),
    (
        "workload and execution inputs",
        (
            "mlcost.assumptions",
            "mlcost.layout",
            "mlcost.finetune",
            "mlcost.implementation",
            "mlcost.description",
            "mlcost.workload",
        ),
    ),
    (
        "formulas and system",
        (
            "mlcost.flops",
            "mlcost.roofline",
            "mlcost.systems",
            "mlcost.operator_time",
            "mlcost.timing",
            "mlcost.memory",
            "mlcost.comms",
            "mlcost.parallel",
            "mlcost.checkpointing",
            "mlcost.datapipe",
            "mlcost.energy",
            "mlcost.cost",
            "mlcost.scaling",
            "mlcost.uncertainty",
            "mlcost.diagnosis",
            "mlcost.site",
        ),
    ),
    # Benchmarks, calibration and validation against measurements: no formula imports them.
    (
        "measurement",
        (
            "mlcost.bench",
            "mlcost.calibrate",
            "mlcost.validate",
            "mlcost.published",
            "mlcost.trace",
            "mlcost.trace_fit",
        ),
    ),
    ("plan", ("mlcost.plan",)),
    ("serving", ("mlcost.serving",)),
    ("package facade", ("mlcost",)),
    # The local page: above the facade (it uses the public API only), below the CLI (``mlcost
    # ui`` and ``plan --html`` start it).
    ("ui", ("mlcost.ui",)),
    ("cli", ("mlcost.cli",)),
)

#: What mlcost modules ``mlcost.plot`` may import: it is a leaf that any result's ``plot()``
#: calls, so it must not know any result type (it types its arguments with Protocols).
PLOT_MAY_IMPORT = frozenset({"mlcost.units", "mlcost.errors"})
#: What mlcost modules the specs (pydantic schemas, the catalog, the HF import) may import.
SPECS_MAY_IMPORT = frozenset({"mlcost.errors", "mlcost.io", "mlcost.units"})

#: Imports left out of the cycle check, each with why (none: every arrow is checked). Only as
#: ``TYPE_CHECKING`` imports: the same arrow at run time, or deferred, is always checked.
EXCUSED_FROM_CYCLES: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Arrow:
    """One import statement from one mlcost module of another: where it is and its kind."""

    source: str
    target: str
    kind: str
    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.source} -> {self.target} ({self.kind})"


def module_names(package: Path) -> dict[Path, str]:
    """Every ``.py`` file under ``package`` by its dotted module name (a package's
    ``__init__.py`` is the package)."""
    root = package.parent
    names = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        names[path] = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return names


def _kinds(tree: ast.Module) -> dict[int, str]:
    """The kind of every import node that is not ``top``, by ``id``: ``type-checking`` inside the
    body of ``if TYPE_CHECKING:`` (wherever that ``if`` is), else ``local`` inside a function."""
    kinds: dict[int, str] = {}

    def visit(node: ast.AST, kind: str) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)) and kind != "top":
            kinds[id(node)] = kind
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                visit(child, "type-checking")
            for child in node.orelse:
                visit(child, kind)
            return
        inner = "local" if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else kind
        for child in ast.iter_child_nodes(node):
            visit(child, "type-checking" if kind == "type-checking" else inner)

    visit(tree, "top")
    return kinds


def arrows_of(
    source: str, module: str, is_package: bool, modules: set[str], path: str
) -> list[Arrow]:
    """The imports of mlcost modules in ``source`` (the text of ``module``). ``from a import b``
    is an arrow to ``a.b`` where that is a module, else to ``a``; a name is taken to the longest
    module it starts with."""
    tree = ast.parse(source)
    kinds = _kinds(tree)
    here = module.split(".") if is_package else module.split(".")[:-1]

    def owner(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*here[: len(here) - node.level + 1], *([base] if base else [])])
            names = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            target = owner(name) if name.split(".")[0] == "mlcost" else None
            if target is not None and target != module:
                kind = kinds.get(id(node), "top")
                arrow = Arrow(module, target, kind, path, node.lineno)
                if arrow not in found:  # ``from a import b, c``: one arrow
                    found.append(arrow)
    return found


def package_arrows(package: Path = PACKAGE) -> list[Arrow]:
    """Every import of an mlcost module by an mlcost module."""
    names = module_names(package)
    modules = set(names.values())
    arrows = []
    for path, module in names.items():
        where = str(path.relative_to(package.parent))
        is_package = path.name == "__init__.py"
        arrows += arrows_of(path.read_text(), module, is_package, modules, where)
    return arrows


def cycles(nodes: Iterable[str], arrows: Iterable[Arrow]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan 1972), each sorted."""
    graph: dict[str, set[str]] = {node: set() for node in nodes}
    for arrow in arrows:
        graph.setdefault(arrow.source, set()).add(arrow.target)
        graph.setdefault(arrow.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def layer_of(module: str, layers: tuple[tuple[str, tuple[str, ...]], ...] = LAYERS) -> int:
    """The index in ``layers`` of the one layer that holds ``module``."""
    held = [
        number
        for number, (_, names) in enumerate(layers)
        for name in names
        if module == name or (name != "mlcost" and module.startswith(name + "."))
    ]
    if len(held) != 1:
        raise LookupError(f"{module} is in {len(held)} layers of LAYERS; place it in exactly one")
    return held[0]


def _checked(arrows: Iterable[Arrow], excused: Mapping[tuple[str, str], str]) -> list[Arrow]:
    return [
        a for a in arrows if not (a.kind == "type-checking" and (a.source, a.target) in excused)
    ]


ARROWS = package_arrows()
MODULES = sorted(set(module_names(PACKAGE).values()))


@pytest.mark.parametrize("view", VIEWS)
def test_no_import_cycle_in_any_view(view: str) -> None:
    arrows = [a for a in _checked(ARROWS, EXCUSED_FROM_CYCLES) if a.kind in VIEWS[view]]
    knots = cycles(MODULES, arrows)
    lines = []
    for knot in knots:
        inside = [str(a) for a in arrows if a.source in knot and a.target in knot]
        lines.append(" ".join(knot) + ":\n    " + "\n    ".join(inside))
    assert not knots, f"import cycles in the {view} view:\n" + "\n".join(lines)


def test_every_excused_import_is_still_there() -> None:
    # An excuse outlives its import only by mistake: remove it from EXCUSED_FROM_CYCLES.
    present = {(a.source, a.target) for a in ARROWS if a.kind == "type-checking"}
    assert set(EXCUSED_FROM_CYCLES) <= present, set(EXCUSED_FROM_CYCLES) - present


def test_every_module_is_in_one_layer() -> None:
    for module in MODULES:
        layer_of(module)


def test_no_module_imports_a_higher_layer() -> None:
    upward = [
        f"{a}: layer {LAYERS[layer_of(a.source)][0]!r} imports {LAYERS[layer_of(a.target)][0]!r}"
        for a in ARROWS
        if layer_of(a.target) > layer_of(a.source)
    ]
    assert not upward, "\n".join(upward)


def test_plot_is_a_leaf_imported_only_inside_functions() -> None:
    imported = [str(a) for a in ARROWS if a.source == "mlcost.plot"]
    assert {a.target for a in ARROWS if a.source == "mlcost.plot"} <= PLOT_MAY_IMPORT, imported
    # Deferred everywhere: matplotlib stays off the import path of every formula and command.
    eager = [str(a) for a in ARROWS if a.target == "mlcost.plot" and a.kind != "local"]
    assert not eager, "\n".join(eager)


def test_specs_import_only_errors_io_and_units() -> None:
    outside = [
        str(a)
        for a in ARROWS
        if layer_of(a.source) == layer_of("mlcost.specs")
        and layer_of(a.target) != layer_of("mlcost.specs")
        and a.target not in SPECS_MAY_IMPORT
    ]
    assert not outside, "\n".join(outside)


def test_the_checker_sees_every_kind_of_import_and_every_cycle() -> None:
    # The check itself on a made-up package: a module-level, a deferred and a TYPE_CHECKING import
    # are told apart, relative imports resolve, and each view finds exactly the cycles it should.
    modules = {"mlcost", "mlcost.a", "mlcost.b", "mlcost.c", "mlcost.d"}
    sources = {
        "mlcost.a": "from mlcost import b\n",
        "mlcost.b": "def f():\n    from . import c\n",
        "mlcost.c": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import mlcost.a\n"
        "else:\n    from mlcost.d import x\n",
        "mlcost.d": "class K:\n    import mlcost.c\n",
    }
    arrows = [
        arrow
        for module, text in sources.items()
        for arrow in arrows_of(text, module, False, modules, module)
    ]
    assert {(a.source, a.target, a.kind) for a in arrows} == {
        ("mlcost.a", "mlcost.b", "top"),
        ("mlcost.b", "mlcost.c", "local"),
        ("mlcost.c", "mlcost.a", "type-checking"),
        ("mlcost.c", "mlcost.d", "top"),
        ("mlcost.d", "mlcost.c", "top"),
    }
    found = {
        view: cycles(modules, [a for a in arrows if a.kind in kinds])
        for view, kinds in VIEWS.items()
    }
    assert found == {
        "top-level": [["mlcost.c", "mlcost.d"]],
        "+ function-local": [["mlcost.c", "mlcost.d"]],
        "+ TYPE_CHECKING": [["mlcost.a", "mlcost.b", "mlcost.c", "mlcost.d"]],
    }


#: The ``ui`` extra's packages (pyproject.toml): only mlcost.ui.app imports them, and only the
#: browser-driving helpers import selenium (the dev extra).
UI_ONLY = {
    "starlette": {"mlcost.ui.app"},
    "uvicorn": {"mlcost.ui.app"},
    "selenium": {"mlcost.ui.testing"},
}


def _third_party_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found


def test_only_the_ui_app_imports_the_ui_extra() -> None:
    # The core (and the CLI, ``plan --html`` included) never imports the ui extra: a plain
    # ``pip install mlcost`` runs every command but ``mlcost ui``.
    names = module_names(PACKAGE)
    wrong = [
        f"{module} imports {package}"
        for path, module in names.items()
        for package in _third_party_imports(path) & set(UI_ONLY)
        if module not in UI_ONLY[package]
    ]
    assert not wrong, "\n".join(wrong)
    # and the app itself is imported by nothing in the package but the ``ui`` command, lazily
    importers = {a.source for a in ARROWS if a.target == "mlcost.ui.app"}
    assert importers <= {"mlcost.cli.ui"}, importers
    assert all(a.kind == "local" for a in ARROWS if a.target == "mlcost.ui.app")
