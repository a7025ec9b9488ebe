"""Central differences shared by the contact tests: a block's force against the gradient of
its penalty energy and its tangent against the difference of its forces."""
import numpy as np


def assert_force_and_tangent(blk, x, f, K, h, tol=1e-6):
    """``f`` and ``K`` of ``blk`` at the gathered displacements ``x (n, k)`` against central
    differences of step ``h`` (every item moved at once along coordinate j): the energy's
    gradient and the forces' derivative, each within ``tol`` of its largest entry."""
    k = x.shape[1]
    ffd, Kfd = np.zeros_like(f), np.zeros_like(K)
    for j in range(k):
        e = np.zeros(k)
        e[j] = h
        ffd[:, j] = (blk.strain_energy(x + e) - blk.strain_energy(x - e)) / (2 * h)
        Kfd[:, :, j] = (blk.forces(x + e, None, False)[0]
                        - blk.forces(x - e, None, False)[0]) / (2 * h)
    assert np.abs(f - ffd).max() / np.abs(f).max() < tol
    assert np.abs(K - Kfd).max() / np.abs(K).max() < tol
