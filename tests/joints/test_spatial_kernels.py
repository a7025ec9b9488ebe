"""The compiled spatial joint kernel (fembody.joints.kernels.spatial.rows, one pass over the instances of
a kind) against its numpy reference (tests/joints/spatial_reference.py, the vectorised formulas
it replaced) on random poses, offsets and axes, every kind, a on a node or on the ground, with
and without the Hessian; and through a SpatialBlock as the System calls it.

Tolerance 1e-12 relative to the largest entry: the same formulas evaluated in another order of
summation differ by a few units in the last place of entries of order 1-10 (1e-15); the
tests/joints/test_spatial.py finite-difference checks cover the mathematics itself."""
import numpy as np
import pytest

from fembody import rotations as rot
from fembody.joints.kernels import spatial as sj
from fembody.joints.kernels.block import SpatialBlock

from ..conftest import rel_err
from . import spatial_reference as ref


def unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def data(rng, n):
    """Random per-instance data of every kind (unit axes, a reference rotation, lengths)."""
    d = {k: rng.uniform(-1, 1, (n, 3)) for k in ("da", "db", "X")}
    axis = unit(rng.normal(size=(n, 3)))
    t = unit(np.cross(axis, rng.normal(size=(n, 3))))
    d.update(ua1=t, ua2=np.cross(axis, t), wb=axis, ua=t, ub=unit(rng.normal(size=(n, 3))),
             n1=t, n2=np.cross(axis, t), vb1=unit(rng.normal(size=(n, 3))),
             C0=rot.exp(rng.uniform(-1.5, 1.5, (n, 3))), length=rng.uniform(0.5, 2, n),
             e=unit(rng.normal(size=(n, 3))), u1=t, w1=unit(rng.normal(size=(n, 3))),
             u2=np.cross(axis, t), w2=unit(rng.normal(size=(n, 3))), c2=rng.normal(size=n),
             f=rng.uniform(-20, 20, n))
    return d


def reference(kind, xa, Ra, xb, Rb, d, hessian):
    """The numpy reference of ``kind`` on the same data."""
    if kind == "support":
        return ref.support_translation(xb, d["X"], d["e"], d["f"])
    if kind == "support_rotation":
        return ref.support_rotation(Rb, d["u1"], d["w1"], d["c2"], d["u2"], d["w2"], hessian)
    args = {"spherical": ("da", "db"), "weld": ("da", "db", "C0"),
            "revolute": ("da", "db", "ua1", "ua2", "wb"), "universal": ("da", "db", "ua", "ub"),
            "prismatic": ("da", "db", "C0", "n1", "n2"),
            "cylindrical": ("da", "db", "ua1", "ua2", "wb"), "distance": ("da", "db", "length"),
            "slide_driver": ("da", "db", "ua", "f"),
            "rotation_driver": ("ua1", "ua2", "vb1", "f")}[kind]
    return getattr(ref, kind)(xa, Ra, xb, Rb, *(d[a] for a in args), hessian=hessian)


def poses(rng, n, ground):
    """``(x (n, 2, 3), R (n, 2, 3, 3))`` as the space gathers them; a on the ground (x = 0,
    R = I) for ``ground``."""
    x = rng.uniform(-2, 2, (n, 2, 3))
    R = rot.exp(rng.uniform(-2.5, 2.5, (n * 2, 3))).reshape(n, 2, 3, 3)
    if ground:
        x[:, 0], R[:, 0] = 0.0, np.eye(3)
    return np.ascontiguousarray(x), np.ascontiguousarray(R)


class Motion:
    def __init__(self, f):
        self.f = f

    def derivatives(self, t):
        return (self.f, 0.0, 0.0)


def block(kind, d, n):
    """A SpatialBlock of ``n`` instances of ``kind`` on ``d`` (a driven kind: motions giving
    ``d['f']``; a support: its ``f`` by a motion too)."""
    names = set(sj.KINDS[kind][2]) | ({"C0"} if kind in sj.USES_C0 else set())
    names |= {sj.SCALAR[kind]} if kind in sj.SCALAR else set()
    driven = kind in ("slide_driver", "rotation_driver", "support")
    dofs = np.arange(12 * n).reshape(n, 12)
    return SpatialBlock(kind, dofs, np.arange(n), np.arange(2 * n).reshape(n, 2),
                        {k: d[k] for k in names},
                        [Motion(v) for v in d["f"]] if driven else None)


@pytest.mark.parametrize("kind", list(sj.KINDS))
@pytest.mark.parametrize("ground", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kernel_equals_the_numpy_reference(kind, ground, seed):
    rng = np.random.default_rng(seed)
    n = 5
    d = data(rng, n)
    x, R = poses(rng, n, ground)
    blk = block(kind, d, n)
    for hessian in (True, False):
        phi, B, H = blk.evaluate((x, R), 0.0, hessian)
        pr, Br, Hr = reference(kind, x[:, 0], R[:, 0], x[:, 1], R[:, 1], d, hessian)
        assert phi.shape == pr.shape and B.shape == Br.shape
        assert rel_err(phi, pr, 1.0) < 1e-12 and rel_err(B, Br, 1.0) < 1e-12
        if Hr is None or not hessian or blk.linear:
            assert H is None or not hessian
        else:
            assert H.shape == Hr.shape and rel_err(H, Hr, 1.0) < 1e-12
    # the call by kind (separate pose arrays) is the same kernel
    if kind not in ("support", "support_rotation"):
        args = [d[a] for a in sj.KINDS[kind][2]]
        p2, B2, H2 = sj.evaluate(kind, x[:, 0], R[:, 0], x[:, 1], R[:, 1], args,
                                 C0=d["C0"], s=d.get(sj.SCALAR.get(kind, "length")), f=d["f"])
        p1, B1, H1 = blk.evaluate((x, R), 0.0, True)
        assert np.array_equal(p2, p1) and np.array_equal(B2, B1)
        assert H1 is None or np.array_equal(H2, H1)


def test_the_kernel_is_compiled_ahead_of_time():
    """The block kernel carries an AOT signature and its module is in the build list (a kernel
    left out would be JIT-compiled by numba in every fresh process)."""
    import importlib.util
    import pathlib
    assert sj.rows.aot is not None
    path = pathlib.Path(__file__).resolve().parents[2] / "tools" / "build_kernels.py"
    spec = importlib.util.spec_from_file_location("build_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert "fembody.joints.kernels.spatial" in mod.MODULES


def test_a_whole_run_equals_the_run_on_the_reference(monkeypatch):
    """The IFToMM spatial slider-crank (revolute, spherical, universal, prismatic), 40 steps of
    1 ms with full Newton, once on the kernel and once with every SpatialBlock evaluated by the
    numpy reference: the same Newton iterations, q within 1e-12 relative and v within 1e-12 of
    ``|q| / h`` (v is updated from configuration increments divided by beta h, so a round-off
    ``eps |q|`` in q shows in v as ``eps |q| / (beta h)``). Measured: q 3.2e-16 relative, v
    5.4e-13 relative to its largest entry (3.0e-12 m/s)."""
    import fembody as fb
    from fembody.examples import spatial_slider_crank as ex

    def run():
        model, _ = ex.build_model()
        res = fb.simulate(model, t_end=0.04, dt=1e-3, rho_inf=0.9, tol=1e-10, newton="full")
        return np.asarray(res.q[-1]), np.asarray(res.v[-1]), res.stats["n_newton"]

    q, v, n = run()

    def reference_evaluate(self, poses, t, hessian):
        x, R = poses
        d = dict(self.data, f=self._f(t)[:, 0] if self.rheonomic else np.zeros(len(self)))
        hessian = hessian and not self.at_nodes and not self.linear
        return reference(self.kind, x[:, 0], R[:, 0], x[:, 1], R[:, 1], d, hessian)

    monkeypatch.setattr(SpatialBlock, "evaluate", reference_evaluate)
    qr, vr, nr = run()
    assert n == nr
    assert rel_err(q, qr) < 1e-12
    assert np.abs(v - vr).max() < 1e-12 * np.abs(qr).max() / 1e-3
