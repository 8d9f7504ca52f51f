"""The package's layers: each module imports only from its own layer or the
layers below it, and no set of modules imports itself in a circle.

Every module of ``sklearn_rankmetrics`` is parsed with ``ast``; every
import counts, at module level or inside a function, relative or absolute.
``doc/developers.rst`` explains the layers; :data:`LAYERS` is their one
table.  Imports made by name at run time (``importlib.import_module``: the
root's lazy exports, scikit-learn's private scorers, CatBoost's ``Pool``)
are not seen by it; :data:`RUN_TIME_IMPORTS` lists the modules that make
them and ``doc/developers.rst`` says why.
"""

import ast
import textwrap
from pathlib import Path

import pytest

import sklearn_rankmetrics

PACKAGE = Path(sklearn_rankmetrics.__file__).resolve().parent

# The layers, bottom to top: the first path element of a module (a
# subpackage, or a module of the root) -> its layer.  A module may import
# from its own layer and from lower ones.  The public modules sit just above
# what they use: ``datasets`` needs validation only, the engine integrations
# ``dask`` and ``spark`` are evaluation surfaces, ``model_selection``'s
# scorers and estimators use the scoring layer, and the command line (its
# demo uses ``datasets``) is above them all.
LAYERS = {
    "_utils": 1,
    "_io": 2,
    "datasets": 2,
    "_engine": 3,
    "_metrics": 4,
    "_registry": 5,
    "_evaluation": 6,
    "_scoring": 7,
    "dask": 7,
    "spark": 7,
    "_plot": 8,
    "model_selection": 8,
    "_dispatch": 8,
    "_cli": 9,
    "__main__": 10,
}
# The package root (``__init__.py``) is the public face: it imports nothing
# at module level (its names load lazily, PEP 562), so it sits above every
# layer, and a module may read from it only the constants it defines itself
# (``__version__``, which setup.cfg also reads there).
ROOT_CONSTANTS = frozenset({"__version__"})


class Import:
    """One import of a module of the package: ``source`` imports ``target``
    at ``where`` (``path:line``)."""

    def __init__(self, source, target, names, where):
        self.source, self.target, self.names, self.where = source, target, names, where

    def __repr__(self):
        return f"{self.where}: {self.source} imports {self.target}"


def modules(root, package):
    """Module name (``package._metrics._ranking``) -> path, for every
    ``.py`` file under ``root`` (a package's ``__init__.py`` is the
    package)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = (package, *path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports(root, package):
    """Every import of a module of the package by a module of the package,
    at any depth of the code."""
    table = modules(root, package)
    found = []
    for name, path in table.items():
        is_package = path.name == "__init__.py"
        here = name.split(".") if is_package else name.split(".")[:-1]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            where = f"{path.relative_to(root.parent)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == package:
                        target = _known(alias.name, table)
                        found.append(Import(name, target, (), where))
                continue
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = here[: len(here) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] != package:
                continue
            # ``from .x import y``: the module x, and y if y is a module
            subs = [f"{module}.{a.name}" for a in node.names]
            names = tuple(
                a.name for a, s in zip(node.names, subs, strict=True) if s not in table
            )
            if names or module != package:  # (the root: only for a name)
                found.append(Import(name, _known(module, table), names, where))
            found.extend(Import(name, s, (), where) for s in subs if s in table)
    return [i for i in found if i.target != i.source]


def _known(module, table):
    """The module of the package that ``module`` names (a name imported
    from a module is not a module: its module)."""
    while module not in table and "." in module:
        module = module.rpartition(".")[0]
    return module


def layer_of(module, package, layers):
    """The layer of ``module`` (None for the root, which is above them all);
    KeyError for a module in no layer."""
    parts = module.split(".")
    if len(parts) == 1:
        return None
    return layers[parts[1]]


def violations(root, package, layers=None, root_constants=ROOT_CONSTANTS):
    """The messages of every upward import and every cycle (empty: none)."""
    layers = LAYERS if layers is None else layers
    found = imports(root, package)
    problems = []
    for name in modules(root, package):
        try:
            layer_of(name, package, layers)
        except KeyError:
            problems.append(
                f"{name} is in no layer: add its first path element to LAYERS "
                "(tests/test_layers.py) and to doc/developers.rst."
            )
    if problems:
        return problems
    for imp in found:
        if imp.target == package:
            if imp.names and set(imp.names) <= root_constants:
                continue
            problems.append(
                f"{imp.where}: {imp.source} imports {', '.join(imp.names)} from "
                f"the package root; import {'it' if len(imp.names) == 1 else 'them'}"
                " from the module that defines it (the root only re-exports, "
                "lazily)."
            )
            continue
        if imp.source == package:
            problems.append(
                f"{imp.where}: the package root imports {imp.target} at import "
                "time; list the name in _SUBMODULES (loaded when first used)."
            )
            continue
        src = layer_of(imp.source, package, layers)
        dst = layer_of(imp.target, package, layers)
        if dst > src:
            problems.append(
                f"{imp.where}: {imp.source} (layer {src}) imports {imp.target} "
                f"(layer {dst}), a layer above it. Move the code it needs down, "
                "or have the caller above pass it in (doc/developers.rst)."
            )
    problems.extend(cycles(found))
    return problems


def cycles(found):
    """One message per import that closes a cycle (depth-first search)."""
    edges = {}
    for imp in found:
        edges.setdefault(imp.source, {}).setdefault(imp.target, imp)
    state, out = {}, []

    def visit(node, path):
        state[node] = "open"
        for target, imp in sorted(edges.get(node, {}).items()):
            if state.get(target) == "open":
                ring = path[path.index(target) :] + [target]
                steps = [edges[a][b] for a, b in zip(ring, ring[1:], strict=False)]
                out.append(
                    "import cycle: "
                    + " -> ".join(ring)
                    + "; closed by "
                    + repr(imp)
                    + " (the imports: "
                    + "; ".join(s.where for s in steps)
                    + "). Move the shared code to a module both can import."
                )
            elif target not in state:
                visit(target, path + [target])
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    return out


def test_no_upward_import_and_no_cycle():
    problems = violations(PACKAGE, "sklearn_rankmetrics")
    assert problems == [], "\n".join(problems)


def test_every_module_has_a_layer_and_every_layer_a_module():
    found = modules(PACKAGE, "sklearn_rankmetrics")
    first = {name.split(".")[1] for name in found if "." in name}
    assert first == set(LAYERS)


def test_the_root_imports_nothing_at_import_time():
    # so reading __version__ from it cannot close a cycle
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0 and node.module != "sklearn_rankmetrics"
        if isinstance(node, ast.Import):
            assert all(a.name != "sklearn_rankmetrics" for a in node.names)


# Imports made by name at run time, which the checker above cannot see: the
# modules making them, each listed with its reason in doc/developers.rst.
# None of them names a module of the package from below it.
RUN_TIME_IMPORTS = {
    "sklearn_rankmetrics": "the lazy exports (PEP 562): its own layers, below it",
    "sklearn_rankmetrics._utils._sklearn_compat": "scikit-learn's private scorers",
    "sklearn_rankmetrics._scoring._ltr": "CatBoost's Pool, from the estimator's own",
}


def test_imports_by_name_are_the_listed_ones():
    found = set()
    for name, path in modules(PACKAGE, "sklearn_rankmetrics").items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                called = getattr(func, "attr", getattr(func, "id", None))
                if called in ("import_module", "__import__"):
                    found.add(name)
    assert found == set(RUN_TIME_IMPORTS)


# ---------------------------------------------------------------------------
# The checker on synthetic trees: it finds what it must (no vacuous pass)
# ---------------------------------------------------------------------------
def _tree(tmp_path, files):
    root = tmp_path / "pkg"
    for name, text in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


SMALL = {"_low": 1, "_mid": 2, "_top": 3}


def test_checker_passes_a_clean_tree(tmp_path):
    root = _tree(
        tmp_path,
        {
            "_low/__init__.py": "",
            "_low/a.py": "import numpy\n",
            "_mid/__init__.py": "",
            "_mid/b.py": "from .._low.a import x\nfrom . import c\n",
            "_mid/c.py": "from .._low import a\n",
            "_top.py": "from ._mid.b import y\nfrom . import __version__\n",
        },
    )
    assert violations(root, "pkg", SMALL) == []


def test_checker_finds_an_upward_import_inside_a_function(tmp_path):
    root = _tree(
        tmp_path,
        {
            "_low/__init__.py": "",
            "_low/a.py": "def f():\n    from .._mid.b import g\n    return g\n",
            "_mid/__init__.py": "",
            "_mid/b.py": "def g():\n    pass\n",
        },
    )
    (problem,) = violations(root, "pkg", SMALL)
    assert "pkg/_low/a.py:2: pkg._low.a (layer 1) imports pkg._mid.b (layer 2)" in (
        problem
    )


def test_checker_finds_an_absolute_upward_import(tmp_path):
    root = _tree(
        tmp_path,
        {
            "_low/__init__.py": "",
            "_low/a.py": "import pkg._top\n",
            "_top.py": "",
        },
    )
    (problem,) = violations(root, "pkg", SMALL)
    assert "pkg._low.a (layer 1) imports pkg._top (layer 3)" in problem


def test_checker_finds_a_cycle_within_a_layer(tmp_path):
    root = _tree(
        tmp_path,
        {
            "_mid/__init__.py": "",
            "_mid/b.py": "from . import c\n",
            "_mid/c.py": "def h():\n    from .b import x\n",
        },
    )
    (problem,) = violations(root, "pkg", SMALL)
    assert problem.startswith("import cycle: pkg._mid.b -> pkg._mid.c -> pkg._mid.b")
    assert "pkg/_mid/c.py:2" in problem and "pkg/_mid/b.py:1" in problem


def test_checker_refuses_a_name_from_the_root_and_a_module_in_no_layer(tmp_path):
    root = _tree(
        tmp_path,
        {"_low/__init__.py": "", "_low/a.py": "from .. import ndcg_at_k\n"},
    )
    (problem,) = violations(root, "pkg", SMALL)
    assert "imports ndcg_at_k from the package root" in problem
    root = _tree(tmp_path, {"_elsewhere.py": ""})
    (problem,) = violations(root, "pkg", SMALL)
    assert problem.startswith("pkg._elsewhere is in no layer")


@pytest.mark.parametrize("layer", sorted(set(LAYERS.values())))
def test_every_layer_holds_a_module(layer):
    names = modules(PACKAGE, "sklearn_rankmetrics")
    held = [n for n in names if "." in n and LAYERS[n.split(".")[1]] == layer]
    assert held, layer
