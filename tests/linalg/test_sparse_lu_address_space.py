"""SuperLU under an address-space limit (issue 29, :mod:`fembody.linalg.sparse_lu`, "Address
space"): SciPy's driver reserves a multiple of nnz(A) before it fills the factor, and under
``ulimit -v`` / ``prlimit --as`` that reservation, not the factor, ran out (the 1e6-DOF grid's
Newton iteration: MemoryError near the last column). The factor is then made by SuperLU's
incomplete-LU driver with nothing dropped: the same factor, in the address space it needs."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp

from fembody.linalg import sparse_lu

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytest.importorskip("resource")
if not os.path.exists("/proc/self/statm"):
    pytest.skip("the address space is read from /proc (Linux)", allow_module_level=True)

CHILD = textwrap.dedent('''
    import json, resource, sys
    import numpy as np
    import scipy.sparse as sp
    import scipy.sparse.linalg  # noqa: F401  (mapped before the limit is measured)
    sys.path.insert(0, sys.argv[3])
    from test_sparse_lu_address_space import grid
    from fembody.linalg import sparse_lu
    A = grid(int(sys.argv[1]))
    b = np.ones(A.shape[0])
    sparse_lu.OrderedSuperLU().factorize(grid(23)).solve(np.ones(6 * 23 * 23))  # code, BLAS
    with open("/proc/self/statm") as fh:
        vm = int(fh.read().split()[0]) * resource.getpagesize()
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    resource.setrlimit(resource.RLIMIT_AS, (int(vm + float(sys.argv[2])), hard))
    try:
        f = sparse_lu.OrderedSuperLU().factorize(A)
        x = f.solve(b)
        out = {"lu": int(f.nnz), "x": x.tolist(),
               "diagonal": bool(np.array_equal(f.lu.perm_r, f.lu.perm_c))}
    except MemoryError as e:
        out = {"error": "MemoryError " + str(e)}
    print(json.dumps(out))
''')


def grid(k: int) -> sp.csc_matrix:
    """6 x 6 blocks on a k x k node grid, neighbours coupled (a 3D beam grid's pattern),
    random values made diagonally dominant (a definite-like, non-symmetric matrix)."""
    lap = sp.diags([1.0, 1.0, 1.0], [-1, 0, 1], shape=(k, k))
    eye = sp.eye(k)
    P = sp.csc_matrix(sp.kron(sp.kron(lap, eye) + sp.kron(eye, lap), np.ones((6, 6))))
    P.data[:] = np.random.default_rng(0).uniform(-1.0, 1.0, P.nnz)
    A = sp.csc_matrix(P + sp.eye(P.shape[0]) * (abs(P).sum(axis=1).max() + 1.0))
    A.sort_indices()
    return A


# slow: two factorisations of 60 000 unknowns in child processes, about 9 s with the
# configuration-space fixture, and its 200 MB limit sits about 50 MB from either driver's
# edge on this machine: too close for `make test` on another; `make test-all` runs it
@pytest.mark.slow
def test_a_factor_that_fits_the_address_space_is_made_under_the_limit():
    """60 000 unknowns, 1.8e6 entries: SuperLU's reservation (about 1.4 GB) far exceeds the
    200 MB of address space left, the factor (1.3e7 entries, about 160 MB) does not. Before:
    MemoryError ("Can't expand MemType 0" near the last column). After: the factor, with its
    pivots on the diagonal, the unlimited factor's size within 1 %, and the unlimited
    factor's solution to round-off."""
    k = 100
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, "-c", CHILD, str(k), "200e6",
                          os.path.dirname(os.path.abspath(__file__))],
                         capture_output=True, text=True, env=env, timeout=300)
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert "error" not in out, out
    A = grid(k)
    free = sparse_lu.OrderedSuperLU().factorize(A)        # no limit here: SuperLU's driver
    b = np.ones(A.shape[0])
    x_ref, x = free.solve(b), np.array(out["x"])
    assert out["diagonal"]
    assert abs(out["lu"] - free.nnz) <= 0.01 * free.nnz
    assert np.abs(A @ x - b).max() <= 1e-12 * abs(A).max() * np.abs(x).max()
    assert np.abs(x - x_ref).max() <= 1e-12 * np.abs(x_ref).max()
