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
