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


def assert_tangent_with_rotations(forces, x, K, nt, h=1e-9, tol=1e-6):
    """The stiffness ``K (n, k, k)`` of a block at its gathered coordinates ``x (n, k)`` (``nt``
    displacements, then the nodes' rotation vectors) against central differences of step
    ``h`` of ``forces(x)`` (its forces ``(n, k)``), the rotations perturbed by material
    increments (``R exp(hat(h e))``, the configuration space's update), within ``tol`` of
    its largest entry."""
    from fembody.rotations import exp, log
    k = x.shape[1]
    Kfd = np.zeros_like(K)
    for j in range(k):
        xp, xm = x.copy(), x.copy()
        if j < nt:
            xp[:, j] += h
            xm[:, j] -= h
        else:
            e = np.zeros(3)
            e[(j - nt) % 3] = h
            sl = slice(nt + 3 * ((j - nt) // 3), nt + 3 + 3 * ((j - nt) // 3))
            xp[:, sl] = log(exp(x[:, sl]) @ exp(e))
            xm[:, sl] = log(exp(x[:, sl]) @ exp(-e))
        Kfd[:, :, j] = (forces(xp) - forces(xm)) / (2 * h)
    assert np.abs(K - Kfd).max() / np.abs(K).max() < tol


def pair_tied(pb, x, params):
    """The section vectors ``(n, 6)`` the element pairs' block ``pb`` ties at its pairs'
    point parts with the parameters ``params (n, 2)`` (its line points given the same)."""
    from fembody.contact.line import NG
    return pb._tied(x, np.concatenate([params, np.repeat(params, NG, axis=0)]))[:len(x)]
