"""Spatial joint blocks evaluated and scattered in one compiled call (SpatialBlock.evaluate_into,
joints.kernels.spatial.rows_into) against evaluate followed by scatter_rows: phi, B, B^T lam and the
geometric stiffness equal bit for bit on the IFToMM slider-crank (Revolute, Spherical,
Universal, Prismatic) at a moved state."""
from __future__ import annotations

import numpy as np
import pytest

from fembody.examples import spatial_slider_crank as ex
from fembody.joints.kernels.block import SpatialBlock
from fembody.system import as_system


@pytest.mark.parametrize("hessian, with_lam", [(True, True), (False, True), (True, False)])
def test_rows_into_equals_evaluate_and_scatter(monkeypatch, hessian, with_lam):
    model, _ = ex.build_model()
    s = as_system(model)
    rng = np.random.default_rng(3)
    q = s.space.update_free(s.q0, 0.05 * rng.standard_normal(s.n_free), s.free)
    lam = rng.standard_normal(s.n_con) if with_lam else None
    fast = s.constraints(q, 0.1, lam, hessian=hessian)
    monkeypatch.delattr(SpatialBlock, "evaluate_into")
    slow = s.constraints(q, 0.1, lam, hessian=hessian)
    assert np.array_equal(fast.phi, slow.phi) and np.array_equal(fast.Bdata, slow.Bdata)
    assert np.array_equal(fast.force, slow.force)
    assert (fast.G is None) == (slow.G is None)
    if fast.G is not None:
        assert np.array_equal(fast.G, slow.G) and np.abs(fast.G).max() > 0
    assert np.abs(fast.phi).max() > 0 and np.abs(fast.Bdata).max() > 0
