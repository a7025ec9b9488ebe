"""The package's architecture: data flows one way, Model -> compile -> System -> solvers ->
Result -> io/viz. Checked on the source: every import among fembody's modules (imports inside
functions count; only `if TYPE_CHECKING:` blocks, which never run, are skipped)."""
import ast
import functools
import importlib
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "fembody"
LOWER = ("fembody.errors", "fembody.model", "fembody.space", "fembody.elements",
         "fembody.joints", "fembody.contact", "fembody.system", "fembody.rotations")
# the solver packages by job, each below the next where a line is drawn here:
# - the linear algebra (factorisations, orderings, inertia, null spaces: fembody.linalg) knows
#   none of the other three;
# - the integrators (dynamics) and the statics, modes and buckling (statics): two jobs, neither
#   built on the other nor on the driver (what both need lives below them: the linear algebra,
#   fembody.system.constraint_rank, fembody.system.contact_rows, fembody.system.as_system);
# - the driver and its services (run) steps the integrators and may use the statics.
LINALG = ("fembody.linalg",)
DYNAMICS = ("fembody.dynamics",)
STATICS = ("fembody.statics",)
RUN = ("fembody.run",)
SOLVERS = LINALG + DYNAMICS + STATICS + RUN
UPPER = SOLVERS + ("fembody.io", "fembody.viz", "fembody.cli", "fembody.results",
                   "fembody.reduced", "fembody.examples")
# what records and stores results; viz reads them, never the other way round
RESULTS = ("fembody.results", "fembody.io")
VIZ = ("fembody.viz",)


def _modules() -> dict[str, pathlib.Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        name = ".".join(rel.parts)
        out[name[:-9] if name.endswith(".__init__") else name] = path
    return out


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


@functools.cache         # GRAPH and test_no_private_name_crosses_a_package read them both
def _imports(name: str) -> list[tuple[str, list[str]]]:
    """(target module, imported names) of every runtime import in ``name``."""
    tree = ast.parse(MODULES[name].read_text())
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
            skip.update(id(n) for n in ast.walk(node))
    out = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if _is_package(name) else name.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for a in node.names:
                sub = f"{target}.{a.name}"
                out.append((sub, []) if sub in MODULES else (target, [a.name]))
    return [(t, n) for t, n in out if t == "fembody" or t.startswith("fembody.")]


def _graph() -> dict[str, set[str]]:
    graph = {}
    for name in MODULES:
        deps = set()
        for target, _ in _imports(name):
            while target not in MODULES and "." in target:
                target = target.rsplit(".", 1)[0]
            # importing a.b.c runs the __init__ of a.b (and a) too, except the packages the
            # importing module lives in (they are already being imported)
            parts = target.split(".")
            deps.update(p for p in (".".join(parts[:k]) for k in range(1, len(parts)))
                        if not name.startswith(p + "."))
            deps.add(target)                # (a name taken from a package: its __init__)
        deps.discard(name)
        graph[name] = {d for d in deps if d in MODULES}
    return graph


GRAPH = _graph()


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def _in(name: str, layer: tuple) -> bool:
    return any(name == p or name.startswith(p + ".") for p in layer)


def _reaches(graph: dict[str, set[str]], sources: tuple, targets: tuple) -> list[list[str]]:
    """Import chains (breadth first, the shortest) from a module in ``sources`` to one in
    ``targets``: importing a module runs what it imports, so a chain through a third module
    breaks the layer as a direct import does."""
    out = []
    for start in sorted(m for m in graph if _in(m, sources)):
        parent, todo = {start: None}, [start]
        while todo:
            v = todo.pop(0)
            for w in sorted(graph.get(v, ())):
                if w in parent:
                    continue
                parent[w] = v
                if _in(w, targets):
                    chain, x = [], w
                    while x is not None:
                        chain.append(x)
                        x = parent[x]
                    out.append(chain[::-1])
                else:
                    todo.append(w)
    return out


def _mixin_bases(cls: type) -> list[str]:
    """The base classes of ``cls`` other than ``object``: a public class shows its whole API
    in one place, its jobs composed (objects it holds, functions it calls), not inherited."""
    return [f"{b.__module__}.{b.__qualname__}" for b in cls.__bases__ if b is not object]


def test_no_import_cycle():
    assert _cycles(GRAPH) == []


def test_the_graph_sees_function_level_imports():
    """The checker itself: a cycle made only of function-level imports is found."""
    graph = {"a": {"b"}, "b": {"a"}, "c": set()}
    assert _cycles(graph) == [["a", "b"]]
    assert "fembody.system.dofs" in GRAPH["fembody.system.system"]      # module level
    assert "fembody.model.meshes" in GRAPH["fembody.model.model"]       # inside add_body


def test_lower_layers_import_no_solver_io_viz_or_result():
    bad = [(m, d) for m, deps in GRAPH.items() if _in(m, LOWER)
           for d in deps if _in(d, UPPER)]
    assert bad == []


def test_solvers_import_neither_io_nor_viz_nor_the_model():
    """The Model is ``fembody.model.model``; the objects of its package a run reads (sensors,
    time functions) are no door to it (the package's ``__init__`` imports nothing)."""
    bad = [(m, d) for m, deps in GRAPH.items() if _in(m, SOLVERS)
           for d in deps if _in(d, ("fembody.io", "fembody.viz", "fembody.cli",
                                    "fembody.model.model"))]
    assert not any(GRAPH["fembody.model"])
    assert bad == []


def test_linear_algebra_imports_no_solver_model_or_result():
    """fembody.linalg sits below the solvers: it factorises matrices and knows neither the
    statics, the integrators and the driver that call it nor the Model, Results, io or viz."""
    above = tuple(p for p in UPPER if p not in LINALG) + ("fembody.model",)
    bad = [(m, d) for m, deps in GRAPH.items() if _in(m, LINALG)
           for d in deps if _in(d, above)]
    assert bad == []


def test_no_library_module_imports_the_package_root():
    """The package root imports everything, so only its users may import it: the command line
    and the examples (user scripts shipped with fembody)."""
    users = ("fembody", "fembody.cli", "fembody.examples")
    assert [m for m, deps in GRAPH.items() if "fembody" in deps and not _in(m, users)] == []


def test_no_private_name_crosses_a_package():
    """Names (and modules) with a leading underscore stay inside their own package."""
    bad = []
    for name in MODULES:
        own = name if _is_package(name) else name.rsplit(".", 1)[0]
        for target, names in _imports(name):
            pkg = target if target in MODULES and _is_package(target) else \
                target.rsplit(".", 1)[0]
            # a dunder (__version__) is public
            private = [n for n in names if n.startswith("_") and not n.endswith("__")]
            if target.rsplit(".", 1)[-1].startswith("_") and pkg != own:
                bad.append((name, target))
            if private and target != name and pkg != own:
                bad.append((name, target, private))
    assert bad == []


def test_the_layer_checker_follows_chains():
    """The checker itself: a direct import and one through a third module are found, the
    shortest chain reported; a module outside ``sources`` is not a source."""
    graph = {"p.dyn": {"p.helper"}, "p.helper": {"p.static"}, "p.static": set(),
             "p.step": {"p.static", "p.dyn"}, "p.other": {"p.static"}}
    assert _reaches(graph, ("p.dyn", "p.step"), ("p.static",)) == [
        ["p.dyn", "p.helper", "p.static"], ["p.step", "p.static"]]
    assert _reaches(graph, ("p.helper",), ("p.dyn",)) == []


def _packages(graph: dict[str, set[str]], packages: tuple) -> dict[str, set[str]]:
    """The import graph among ``packages`` (each a dotted prefix): an edge p -> q when a module
    of p imports one of q, directly or through any chain of other modules."""
    out = {}
    for p in packages:
        out[p] = {q for q in packages if q != p and _reaches(graph, (p,), (q,))}
    return out


def test_integrators_import_neither_the_statics_nor_the_driver():
    assert _reaches(GRAPH, DYNAMICS, STATICS + RUN) == []


def test_statics_import_neither_the_integrators_nor_the_driver():
    assert _reaches(GRAPH, STATICS, DYNAMICS + RUN) == []


def test_the_linear_algebra_imports_no_other_solver_package():
    assert _reaches(GRAPH, LINALG, DYNAMICS + STATICS + RUN) == []


def test_no_import_cycle_between_the_solver_packages():
    """Module cycles are caught above; this is the packages' order: linear algebra, then
    dynamics and statics side by side, then the driver (an edge through a module of a third
    package counts, e.g. run -> dynamics -> linear algebra gives run -> linear algebra)."""
    graph = _packages(GRAPH, SOLVERS)
    assert _cycles(graph) == []
    allowed = {"fembody.linalg": set(), "fembody.dynamics": {"fembody.linalg"},
               "fembody.statics": {"fembody.linalg"},
               "fembody.run": {"fembody.linalg", "fembody.dynamics", "fembody.statics"}}
    assert {p: graph[p] - allowed[p] for p in graph} == {p: set() for p in graph}
    assert graph["fembody.run"] >= {"fembody.dynamics"}     # the checker sees the driver's


def test_results_and_files_do_not_import_viz():
    """Imports inside functions count: ``Result`` does not plot itself (``fb.viz.history``
    does)."""
    assert _reaches(GRAPH, RESULTS, VIZ) == []


def test_the_mixin_checker_sees_a_mixin():
    class Job:
        def job(self):
            return 1

    class Mixed(Job):
        pass

    class Composed:
        def __init__(self):
            self.job = Job()

    assert _mixin_bases(Mixed) == [f"{__name__}.{Job.__qualname__}"]
    assert _mixin_bases(Composed) == []


@pytest.mark.parametrize("name", [
    "fembody.model.model.Model", "fembody.results.Result",
    "fembody.system.System",
    "fembody.linalg.linalg.LinearSolver", "fembody.linalg.linalg.SaddlePointSolver"])
def test_public_classes_have_no_mixin_bases(name):
    module, cls = name.rsplit(".", 1)
    assert _mixin_bases(getattr(importlib.import_module(module), cls)) == []


# ----------------------------------------------------------- no writes to a compiled System
# the names a compiled System goes by outside its construction (``self.sys``, ``integ.sys``,
# ``sys``, ``system``, ``s``, ``base``) and the module that builds it (it writes to the
# half-built System before ``compile`` returns it frozen)
SYSTEM_NAMES = {"sys", "system", "s", "base"}
SYSTEM_ATTRS = {"sys", "system"}
BUILDERS = {"fembody.system.system"}


def _is_system(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id in SYSTEM_NAMES
    return isinstance(node, ast.Attribute) and node.attr in SYSTEM_ATTRS


def _system_writes(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, text) of every assignment, augmented assignment or deletion of an attribute of
    a System name, and every ``setattr``/``delattr``/``object.__setattr__`` on one."""
    out = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")
            if name in ("setattr", "delattr", "__setattr__", "__delattr__") and node.args:
                if _is_system(node.args[0]):
                    out.append((node.lineno, ast.unparse(node)))
            continue
        for t in targets:
            for sub in ast.walk(t):
                if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, (ast.Store, ast.Del)) \
                        and _is_system(sub.value):
                    out.append((node.lineno, ast.unparse(sub)))
    return out


def test_the_system_write_scan_sees_every_form():
    src = ("sys.a = 1\nself.sys.b += 2\nsystem.c: int = 3\ndel s.d\nsetattr(sys, 'e', 1)\n"
           "integ.sys.f, x = 1, 2\nobject.__setattr__(base, 'g', 1)\nsys.h[0] = 1\n"
           "other.i = 1\n")
    found = sorted(text for _, text in _system_writes(ast.parse(src)))
    assert found == sorted(["sys.a", "self.sys.b", "system.c", "s.d", "setattr(sys, 'e', 1)",
                            "integ.sys.f", "object.__setattr__(base, 'g', 1)"])


def test_no_module_writes_to_a_compiled_system():
    """Solvers, results and everything else read the System; only its construction writes
    (per-run state goes to the run's RunState and RedundantRows). The System's own
    ``__setattr__`` guard raises at run time; this finds a write before any test runs it."""
    bad = []
    for name, path in sorted(MODULES.items()):
        if name in BUILDERS:
            continue
        for line, text in _system_writes(ast.parse(path.read_text())):
            bad.append(f"{name}:{line}: {text}")
    assert not bad, "writes to a compiled System:\n" + "\n".join(bad)


# ----------------------------------------------------------- no writes to a compiled block
# a compiled System's blocks (elements, joints, contacts) are parts of it: a solver that wrote
# a run's state onto one (the penalty contacts' approach speeds once were) would share it with
# every other run of the System. The names blocks go by in the solver packages, and any
# attribute reached through a System (``sys.penalty_blocks[0].x``)
BLOCK_NAMES = {"b", "blk", "block", "blocks", "grp", "group", "groups", "jb"}


def _root(node: ast.AST) -> ast.AST:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node


def _through_system(node: ast.AST) -> bool:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if _is_system(node):
            return True
        node = node.value
    return _is_system(node)


def _block_writes(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, text) of every assignment or deletion of an attribute of a block name, or of an
    attribute of something reached through a System name (not the System's own attributes:
    :func:`_system_writes` finds those)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        else:
            continue
        for t in targets:
            for sub in ast.walk(t):
                if not (isinstance(sub, ast.Attribute) and isinstance(sub.ctx, (ast.Store,
                                                                                 ast.Del))):
                    continue
                root = _root(sub.value)
                if (isinstance(root, ast.Name) and root.id in BLOCK_NAMES) or \
                        (not _is_system(sub.value) and _through_system(sub.value)):
                    out.append((node.lineno, ast.unparse(sub)))
    return out


def test_the_block_write_scan_sees_every_form():
    src = ("b.v_minus = 1\nblk.x += 2\nsys.penalty_blocks[0].v = 3\nself.sys.blocks[k].y = 4\n"
           "del grp.z\nintegs.sys.joint_blocks[1].w: int = 5\n"
           "self.b = 1\nrun.penalty = 2\nsys.c = 3\nx.blocks = 4\n")
    found = sorted(text for _, text in _block_writes(ast.parse(src)))
    assert found == sorted(["b.v_minus", "blk.x", "sys.penalty_blocks[0].v",
                            "self.sys.blocks[k].y", "grp.z", "integs.sys.joint_blocks[1].w"])


def test_no_solver_writes_to_a_compiled_block():
    """The integrators, statics, the driver, the linear algebra, results and files read the
    blocks of a System; a run's state lives in the run (e.g. fembody.contact.ContactState)."""
    bad = []
    for name, path in sorted(MODULES.items()):
        if name.startswith(SOLVERS + RESULTS + ("fembody.study",)):
            bad += [f"{name}:{line}: {text}"
                    for line, text in _block_writes(ast.parse(path.read_text()))]
    assert not bad, "writes to a compiled block:\n" + "\n".join(bad)


# ------------------------------------------- no reads of another package's private state
# the classes whose underscored attributes (their private state and helpers) other packages
# must not read: a solver that reached into a linear solver's factor, or a contact update
# into the System's maps, breaks when the owner changes them. Each offers a public method
# for what others need (LinearSolver.hold/take_back, System.gather_index,
# System.turning_values)
GUARDED = {"fembody.linalg.linalg": ("LinearSolver", "SaddlePointSolver"),
           "fembody.linalg.near_symmetric": ("RefinedCholesky",),
           "fembody.system.system": ("System",)}
# reads known and left, by module: (names, why). None now: TurningLoads (fembody/turning.py)
# reads its per-t values through System.turning_values, not the System's memo
PRIVATE_READS_LEFT: dict[str, tuple[set[str], str]] = {}


def _package(name: str) -> str:
    return name if _is_package(name) else name.rsplit(".", 1)[0]


def _top_package(name: str) -> str:
    """fembody's sub-package a module belongs to (``fembody.linalg`` for
    ``fembody.linalg.near_symmetric``)."""
    return ".".join(name.split(".")[:2])


def _private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")


def _own_private_names(tree: ast.AST, classes: tuple | None = None) -> set[str]:
    """The underscored names a module's classes (``classes``; None: all of them) define as
    their own: methods, class attributes, and attributes stored on ``self`` (directly or by
    ``object.__setattr__(self, ...)``/``setattr(self, ...)``)."""
    out = set()
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef) or (classes is not None and cls.name not in
                                                 classes):
            continue
        for node in ast.walk(cls):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    _private(node.name):
                out.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and \
                    isinstance(node.value, ast.Name) and node.value.id == "self" and \
                    _private(node.attr):
                out.add(node.attr)
            elif isinstance(node, ast.Call) and len(node.args) >= 2 and \
                    isinstance(node.args[1], ast.Constant) and \
                    isinstance(node.args[1].value, str) and _private(node.args[1].value):
                f = node.func
                fname = f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")
                if fname in ("setattr", "__setattr__"):
                    out.add(node.args[1].value)
        for node in cls.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    if isinstance(t, ast.Name) and _private(t.id):
                        out.add(t.id)
    return out


def _private_reads(tree: ast.AST, names: set[str]) -> list[tuple[int, str]]:
    """(line, text) of every access ``x._name`` (``x`` not ``self`` or ``cls``) and every
    ``getattr``/``hasattr``/``setattr``/``delattr(x, "_name", ...)`` with ``_name`` in
    ``names``."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in names and not (
                isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
            out.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in ("getattr", "hasattr", "setattr", "delattr") and \
                len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and \
                node.args[1].value in names and not (
                    isinstance(node.args[0], ast.Name) and node.args[0].id in ("self", "cls")):
            out.append((node.lineno, ast.unparse(node)))
    return out


def test_the_private_read_scan_sees_every_form():
    src = ("class A:\n    _k = 1\n    def __init__(self):\n        self._a = 1\n"
           "        object.__setattr__(self, '_b', 2)\n    def _c(self):\n"
           "        return self._a\n    def d(self):\n        self.e = 1\n")
    assert _own_private_names(ast.parse(src)) == {"_k", "_a", "_b", "_c"}
    src = ("x = solver._plain._fac\ny = getattr(system, '_gather_at', {})\n"
           "z = hasattr(s, '_a')\nself._fac = 1\nw = cls._a\nv = other._x\n"
           "u = getattr(self, '_a')\n")
    found = sorted(text for _, text in _private_reads(ast.parse(src),
                                                      {"_plain", "_fac", "_gather_at", "_a"}))
    assert found == sorted(["solver._plain._fac", "solver._plain",
                            "getattr(system, '_gather_at', {})", "hasattr(s, '_a')"])


def test_no_module_reads_another_packages_private_solver_or_system_state():
    """No module outside a guarded class's package reads that class's underscored attributes
    (:data:`GUARDED`: the linear solvers and their near-symmetric factor, the compiled
    System). Matched by name: a read of ``x._name`` counts where ``_name`` is a private
    attribute of a guarded class and not one the reading module's own package defines on
    its own classes (those names are its own, whatever ``x`` is)."""
    guarded: dict[str, set[str]] = {}         # package -> its guarded private names
    for mod, classes in GUARDED.items():
        names = _own_private_names(ast.parse(MODULES[mod].read_text()), classes)
        assert names, f"{mod}: no private names found in {classes}"
        guarded.setdefault(_top_package(mod), set()).update(names)
    own: dict[str, set[str]] = {}             # package -> the private names it defines
    trees = {name: ast.parse(path.read_text()) for name, path in MODULES.items()}
    for name, tree in trees.items():
        own.setdefault(_top_package(name), set()).update(_own_private_names(tree))
    bad = []
    for name, tree in sorted(trees.items()):
        pkg = _top_package(name)
        for owner, names in guarded.items():
            if owner == pkg:
                continue
            left = PRIVATE_READS_LEFT.get(name, (set(), ""))[0]
            for line, text in _private_reads(tree, names - own.get(pkg, set()) - left):
                bad.append(f"{name}:{line}: {text}")
    assert not bad, "reads of another package's private state:\n" + "\n".join(bad)
