"""Craig-Bampton reduction of imported FE matrices (fembody.reduced.craig_bampton,
fembody.reduced.read_matrices), checked against the full model it was written from."""
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sps

import fembody as fb
from fembody.reduced import craig_bampton, read_matrices

STEEL = fb.Material(E=210e9, rho=7850.0, nu=0.3)
SEC = fb.Section.rectangle(b=0.02, h=0.01)


def cantilever(dim: int, n: int):
    """A clamped steel cantilever of 1 m and its FE matrices on the free DOFs in node-major
    order (node 1 .. n, x y rz / x y z rx ry rz), as an external code writes them."""
    if dim == 2:
        m = fb.Model()
        b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=STEEL, section=SEC)
    else:
        m = fb.Model(dim=3)
        b = m.add_beam((0, 0, 0), (1, 0, 0), n=n, material=STEEL, section=SEC,
                       orientation=(0, 0, 1))
    m.fix(b.first)
    sys = m.compile()
    where = np.full(sys.n_dof, -1)
    where[sys.free] = np.arange(sys.n_free)
    nodes = [x for x in b.nodes if x is not b.first]
    order = np.concatenate([where[sys.node_dofs[x.id]] for x in nodes])
    assert np.all(order >= 0) and len(order) == sys.n_free
    M = sys.mass_matrix().toarray()[np.ix_(order, order)]
    K = sys.stiffness_matrix().toarray()[np.ix_(order, order)]
    X = np.array([x.position for x in nodes])
    return m, b, M, K, X


def write(tmp_path, M, K, X):
    scipy.io.mmwrite(str(tmp_path / "M.mtx"), sps.coo_matrix(M), precision=17)
    scipy.io.mmwrite(str(tmp_path / "K.mtx"), sps.coo_matrix(K), precision=17)
    np.save(tmp_path / "nodes.npy", X)
    return tmp_path / "M.mtx", tmp_path / "K.mtx", tmp_path / "nodes.npy"


@pytest.mark.parametrize("dim", [2, 3])
def test_reduced_cantilever_converges_to_the_full_model(tmp_path, dim):
    """The cantilever's matrices through Matrix Market files, reduced with the tip as the
    interface: the reduced frequencies bound the full model's (fb.modes) from above, their
    error falls as fixed-interface modes are added, and with every inner mode kept they agree
    to 1e-8 (the same eigenproblem in another basis)."""
    m, b, M, K, X = cantilever(dim, 12)
    fe = read_matrices(*write(tmp_path, M, K, X)[:2], nodes=tmp_path / "nodes.npy",
                       interface=np.arange(len(M) - 3 * (dim - 1), len(M)))
    assert fe.dofs_per_node == 3 * (dim - 1) and np.array_equal(fe.M.toarray(), M)
    n_ref = 4 if dim == 2 else 6
    ref = fb.modes(m, n=n_ref).frequencies
    errors = []
    for k in (2, 4, 8, 16):
        cb = craig_bampton(fe.M, fe.K, fe.interface, k)
        f = cb.frequencies(n_ref)
        # Rayleigh-Ritz: upper bounds, up to the round-off of the eigenvalues themselves
        # (~5e-9 relative: the axial stiffness is ~1e7 times the bending one)
        assert np.all(f >= ref * (1.0 - 1e-8))
        errors.append(f / ref - 1.0)
    errors = np.array(errors)
    assert np.all(np.diff(errors, axis=0) <= 1e-12)         # falls as modes are added
    assert errors[-1].max() < 1e-4 and errors[0].max() > 0.1     # 7e-5 (3D), 7e-7 (plane)
    every = craig_bampton(fe.M, fe.K, fe.interface, len(M) - len(fe.interface))
    assert every.frequencies(n_ref) == pytest.approx(ref, rel=1e-8)


@pytest.mark.parametrize("dim", [2, 3])
def test_static_condensation_is_exact_for_interface_loads(tmp_path, dim):
    """A load on the interface DOFs only: the reduced static solution, expanded, equals the
    full one to round-off with any number of modes (0: Guyan), as the constraint modes are
    the exact static response."""
    m, b, M, K, X = cantilever(dim, 10)
    nb = 3 * (dim - 1)
    iface = np.arange(len(M) - nb, len(M))
    F = np.zeros(len(M))
    F[iface] = np.linspace(-10.0, 7.0, nb)                   # forces [N] and moments [N m]
    u = np.linalg.solve(K, F)
    for k in (0, 3):
        cb = craig_bampton(sps.csc_matrix(M), sps.csc_matrix(K), iface, k)
        x = np.linalg.solve(cb.K, cb.T.T @ F)
        np.testing.assert_allclose(cb.expand(x), u, rtol=0, atol=1e-9 * np.abs(u).max())
        np.testing.assert_allclose(x[:nb], u[iface], rtol=1e-9)
    assert cb.n_modes == 3 and cb.n_interface == nb
    assert np.all(np.diff(cb.omega) > 0)


def test_npz_archive_and_npy_files_read_the_same(tmp_path):
    m, b, M, K, X = cantilever(2, 4)
    iface = [9, 10, 11]
    np.savez(tmp_path / "fe.npz", M=M, K=K, nodes=X, interface=np.array(iface))
    a = read_matrices(tmp_path / "fe.npz")
    np.save(tmp_path / "M.npy", M)
    sps.save_npz(tmp_path / "K.npz", sps.csc_matrix(K))
    c = read_matrices(tmp_path / "M.npy", tmp_path / "K.npz", nodes=X, interface=iface)
    for fe in (a, c):
        assert np.array_equal(fe.M.toarray(), M) and np.array_equal(fe.K.toarray(), K)
        assert list(fe.interface) == iface and fe.dofs_per_node == 3
        assert np.array_equal(fe.node_dofs(3), [9, 10, 11])


def test_bad_files_are_refused_naming_the_file_and_the_entry(tmp_path):
    m, b, M, K, X = cantilever(2, 4)
    Mp, Kp, Xp = write(tmp_path, M, K, X)

    def refused(match, *args, **kw):
        with pytest.raises(fb.ModelError, match=match):
            read_matrices(*args, **kw)

    scipy.io.mmwrite(str(tmp_path / "rect.mtx"), sps.coo_matrix(np.ones((3, 4))))
    refused(r"rect.mtx': the mass matrix is 3 x 4; it must be square", tmp_path / "rect.mtx", Kp)
    scipy.io.mmwrite(str(tmp_path / "small.mtx"), sps.coo_matrix(K[:6, :6]))
    refused(r"small.mtx': K is 6 x 6 but M \('.*M.mtx'\) is 12 x 12", Mp, tmp_path / "small.mtx")
    skew = K.copy()
    skew[2, 5] *= 1.001
    scipy.io.mmwrite(str(tmp_path / "skew.mtx"), sps.coo_matrix(skew), precision=17)
    refused(r"skew.mtx': K is not symmetric: entry \(2, 5\)", Mp, tmp_path / "skew.mtx")
    neg = M.copy()
    neg[4, 4] = -1.0
    np.save(tmp_path / "neg.npy", neg)
    refused(r"neg.npy': M is indefinite: diagonal entry \(4, 4\) = -1", tmp_path / "neg.npy", Kp)
    ind = M.copy()
    ind[0, 3] = ind[3, 0] = 10.0 * M[0, 0]                  # positive diagonal, indefinite
    np.save(tmp_path / "ind.npy", ind)
    refused(r"ind.npy': M is indefinite: it has the eigenvalue -.*DOF (0|3)",
            tmp_path / "ind.npy", Kp)
    nan = M.copy()
    nan[1, 1] = np.nan
    np.save(tmp_path / "nan.npy", nan)
    refused(r"nan.npy': entry \(1, 1\) is nan", tmp_path / "nan.npy", Kp)
    refused(r"interface entry 1 is DOF 12, out of range 0..11", Mp, Kp, interface=[11, 12])
    np.save(tmp_path / "iface.npy", np.array([3, 3]))
    refused(r"iface.npy': interface entry 1 repeats DOF 3", Mp, Kp,
            interface=tmp_path / "iface.npy")
    refused(r"nodes.npy': 4 nodes x 2 DOFs per node = 8, but the matrices .* have 12 rows",
            Mp, Kp, nodes=Xp, dofs_per_node=2)
    refused(r"no file '.*missing.mtx'", tmp_path / "missing.mtx", Kp)
    np.savez(tmp_path / "half.npz", M=M)
    refused(r"half.npz': an archive with arrays 'M' and 'K'", tmp_path / "half.npz")
    with pytest.raises(fb.SingularSystemError, match="interface DOFs do not hold"):
        craig_bampton(np.eye(3), np.array([[1.0, -1.0, 0], [-1.0, 2.0, -1.0], [0, -1.0, 1.0]]),
                      [], 1)
    with pytest.raises(fb.ModelError, match="asked for 20 fixed-interface modes but only 9"):
        craig_bampton(M, K, [9, 10, 11], 20)


# ------------------------------------------------------- planar modal bodies from matrices
MAT = fb.Material(E=70e9, rho=2700.0, nu=0.3)


def free_beam_files(tmp_path, n=6):
    """A free 1 m aluminium beam (the template of a modal body) and its matrices written as
    an external code would: node-major, all DOFs, coordinates beside."""
    src = fb.Model()
    b = src.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=MAT, section=SEC)
    sys = src.compile()
    order = np.concatenate([sys.node_dofs[x.id] for x in b.nodes])
    where = np.full(sys.n_dof, -1)
    where[sys.free] = np.arange(sys.n_free)
    order = where[order]
    M = sys.mass_matrix().toarray()[np.ix_(order, order)]
    K = sys.stiffness_matrix().toarray()[np.ix_(order, order)]
    X = np.array([x.position for x in b.nodes])
    write(tmp_path, M, K, X)
    fe = read_matrices(tmp_path / "M.mtx", tmp_path / "K.mtx", nodes=tmp_path / "nodes.npy")
    return src, b, fe


def falling(body, dt=2e-4):
    m = fb.Model(gravity=(0.0, -0.0981))
    ref = m.add_modal_body(body)
    m.fix(ref.node)
    return ref, fb.simulate(m, t_end=0.05, dt=dt, save_every=5)


def test_imported_matrices_give_the_same_body_as_from_body(tmp_path):
    """The template beam's M, K through .mtx files, reduced about node 0 with no further
    interface: the clamped modes of from_body (frequencies to 1e-9, modal stiffness), and the
    same motion clamped under gravity (mesh positions to 1e-9 of the deflection)."""
    from fembody.reduced import ModalBody
    src, b, fe = free_beam_files(tmp_path)
    a = ModalBody.from_body(src, b, 4)
    c = ModalBody.from_matrices(fe, 4)
    assert c.omega == pytest.approx(a.omega, rel=1e-9)
    np.testing.assert_allclose(c.K, np.diag(a.omega**2), rtol=1e-9, atol=1e-9 * a.omega[-1]**2)
    np.testing.assert_allclose(c.s, a.s, atol=1e-15)
    ra, resa = falling(a)
    rc, resc = falling(c)
    pa, pc = ra.positions(resa), rc.positions(resc)
    deflection = np.abs(pa[:, -1, 1]).max()
    assert deflection > 1e-6
    assert np.abs(pc - pa).max() < 1e-9 * deflection


def test_imported_body_with_an_interface_node_and_all_modes_is_the_fe_model(tmp_path):
    """Interface at the tip (3 constraint modes) plus every fixed-interface mode: the full FE
    beam's motion clamped under gravity (to 1e-7 as from_body with all modes); with the tip
    interface and 1 mode the error is already below that of 1 clamped mode."""
    from fembody.reduced import ModalBody
    m1 = fb.Model(gravity=(0.0, -0.0981))
    b1 = m1.add_beam((0.0, 0.0), (1.0, 0.0), n=6, material=MAT, section=SEC)
    m1.fix(b1.first)
    w1 = fb.simulate(m1, t_end=0.05, dt=2e-4, save_every=5).position(b1.last)[:, 1]
    src, b, fe = free_beam_files(tmp_path)
    err = {}
    for key, body in (("all", ModalBody.from_matrices(fe, 15, interface=[6])),
                      ("tip+1", ModalBody.from_matrices(fe, 1, interface=[6])),
                      ("1", ModalBody.from_matrices(fe, 1))):
        ref, res = falling(body)
        err[key] = np.abs(ref.positions(res)[:, -1, 1] - w1).max() / np.abs(w1).max()
    assert err["all"] < 1e-7
    assert err["tip+1"] < err["1"]
    with pytest.raises(fb.ModelError, match="interface entry 0 is node 7, out of range 0..6"):
        ModalBody.from_matrices(fe, 1, interface=[7])
    with pytest.raises(fb.ModelError, match="repeat a node or the reference node 0"):
        ModalBody.from_matrices(fe, 1, interface=[0])
    from fembody.reduced import ModalBody3D
    with pytest.raises(fb.ModelError, match=r"a spatial body needs node coordinates \(n, 3\) "
                       r"and 6 DOFs \(x, y, z, rx, ry, rz\) per node; got \(7, 2\)"):
        ModalBody3D.from_matrices(fe, 1)        # planar matrices given to the spatial body
