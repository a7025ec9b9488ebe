"""Whether two near-parallel planar free ends sliding into overlap are pulled in (issue 33):
the axial force on A along the slide (+x pushes A out of the overlap) over overlaps 0 to 40
mm and angles 0 to 10 degrees, with :mod:`tests.contact.test_planar_entry`'s geometry (B
rigid along x, elements of 100 mm, free end q at x = 1; A's free tip p 8 mm above B's axis,
2 mm into it, elements of 50 mm, rising at ``deg`` from p).

In space the hand-over from the rounded ends' point contact to line contact must pull
(fembody.contact.line, "Where free ends meet"; tests/contact/test_ends_meet.py: 98-115 N on
2000 N). The planar rows are a nodal quadrature with no such hand-over: up to 40 mm (before
the overlap share's fade where B's end nears A's first inner node at 50 mm, and before any
inner node enters) the only rows are p's on B's last element and q's on A's, weighted by the
share of :mod:`fembody.contact.meet`, ``E = S W_p + (1 - S) W_q``. p's row holds the true
contact (for ``deg >= 0`` p is A's lowest point over B: ``W_p = k (2 R - h)^2 / 2``,
constant along the slide); q's row measures q's distance to A's line, ``h cos a + ov sin
a``, which grows with the overlap ``ov`` for ``a > 0``. Off parallel the share's lean term
gives p's row all the weight (``S = 1`` once ``sin a >= SINE_BAND = 1e-3``: no pull, the
true contact's ``F_x = 0``); below it q's row keeps a share and its falling energy pulls A
in. Measured (0.25-0.05 mm steps, 2.5e-5 m near the start): 0.139 N of pull at most, at
0.015 degrees and ov = 0.5 mm, on a normal force of 2000.0 N (7e-5 of it); none at 0 degrees
(both rows equal), none at 0.06 degrees and above (0.5, 1, 2, 3, 5 and 10 degrees) and none
with A tilted down (-0.01 to -0.5 degrees, where q is the lowest point and both rows push).
The same with either beam's node order reversed.

Past 40 mm (not tested here, the limit stated in fembody.contact.meet: an inner node's row
measuring the one contact a second time) the rows do pull: first at 49.5 mm at 0.5 degrees
(the share's fade and A's first inner node entering), and as B's node w enters under A's
tip (ov about 110 mm) 1.0 N on 9929 N at 0.015 degrees, 25.7 N on 7636 N at 0.5, 76.5 N on
3460 N at 3 and 70.3 N on 2496 N at 10 degrees (0.5 mm steps to 200 mm).
"""
import math

import numpy as np
import pytest

from fembody.contact.meet import SINE_BAND

from .test_ends3d import K, R
from .test_planar_entry import DZ, _at, _on, _pair

OVS = np.arange(0.0, 40e-3 + 1e-9, 2.5e-4)   # the overlaps of the sweep [m]
NEAR = [0.005, 0.015, 0.03]                    # the angles [deg] below SINE_BAND that pull
PEAK = 0.1391                                  # the largest pull measured [N] (0.015 deg)


def _axial(deg, ovs=OVS):
    """The contact force on A ``(len(ovs), 2)`` [N] at each overlap of ``ovs`` [m], A moved
    rigidly along x (:func:`tests.contact.test_planar_entry._pair`)."""
    sys, A, _ = _pair(deg)
    return np.array([_on(sys, A, _at(A, deg, ov)) for ov in ovs])


def _closed_form(deg, ovs):
    """The force on A ``(len(ovs), 2)`` [N], ``F_x = dE/d ov`` and ``F_y = -dE/dh`` (``h``
    the tip's height), of ``E = S W_p + (1 - S) W_q`` (module docstring) with the share's
    ``eta = sin a / SINE_BAND + (s_p - s_q) / (s_p + s_q) / BAND``, ``BAND = 1/2``, ``s_p =
    ov``, ``s_q = ov cos a - h sin a`` (fembody.contact.meet's docstring) and ``S`` its
    quintic step; for ``a >= 0`` and overlaps where q projects inside A's last element and
    B's end lies farther than ``l_r`` from A's first inner node (no fade: ``ov`` <= 40
    mm)."""
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    D = ovs * (1.0 - c) + DZ * s                      # s_p - s_q
    Sm = ovs * (1.0 + c) - DZ * s                     # s_p + s_q
    eta = s / SINE_BAND + 2.0 * D / Sm
    e = np.clip(eta, -1.0, 1.0)
    S = 0.5 + (15.0 * e - 10.0 * e ** 3 + 3.0 * e ** 5) / 16.0
    dS = np.where(np.abs(eta) < 1.0, 15.0 * (1.0 - e * e) ** 2 / 16.0, 0.0)
    deta = 2.0 * ((1.0 - c) * Sm - D * (1.0 + c)) / Sm ** 2
    gp, gq = 2 * R - DZ, 2 * R - DZ * c - ovs * s     # the two rows' penetrations [m]
    dW = K * (gp ** 2 - gq ** 2) / 2                  # W_p - W_q [J]
    Fx = dS * deta * dW - (1.0 - S) * K * gq * s
    Fy = S * K * gp + (1.0 - S) * K * gq * c - dS * 2.0 * s * (Sm + D) / Sm ** 2 * dW
    return np.stack([Fx, Fy], axis=1)


@pytest.mark.parametrize("deg", NEAR + [0.05])
def test_the_near_parallel_pull_is_the_share_of_the_end_rows(deg):
    """Below ``SINE_BAND`` the axial force on A is the derivative of the share's energy
    :func:`_closed_form` over the sweep (from 0.25 mm: q enters A's element ``h tan a`` <= 7
    um into the overlap), along x and y, to 1e-10 of the 2000 N contact (measured within
    1.6e-11 N): a pull, the true contact having none. At 0.05 degrees the lean term all but
    decides (S > 0.99; 4 mN of pull)."""
    ovs = OVS[1:]
    F = _axial(deg, ovs)
    ref = _closed_form(deg, ovs)
    normal = K * (2 * R - DZ)
    assert np.abs(F - ref).max() < 1e-10 * normal, np.abs(F - ref).max(axis=0)
    assert ref[:, 0].min() < 0.0


def test_the_pull_is_bounded_by_what_was_measured():
    """The largest pull over the sweep of angles that pull (and finer near the start of the
    overlap, where it peaks) is 0.1390 N at 0.015 degrees, ov = 0.5 mm: bounded by
    ``PEAK`` (within 1e-4 N: a regression that lets q's row pull harder shows), on a normal
    force of 2000 N within 1e-4 (the pull is along the slide, the normal along y)."""
    ovs = np.concatenate([np.arange(0.0, 2e-3, 2.5e-5), OVS[8:]])
    worst, normal = 0.0, 0.0
    for deg in NEAR:
        F = _axial(deg, ovs)
        i = int(np.argmin(F[:, 0]))
        if -F[i, 0] > worst:
            worst, normal = -F[i, 0], F[i, 1]
    assert 0.138 < worst <= PEAK, worst
    assert abs(normal / (K * (2 * R - DZ)) - 1.0) < 1e-4, normal


@pytest.mark.parametrize("deg", [0.0, 0.06, 0.5, 3.0, 10.0, -0.01, -0.5])
def test_off_the_share_band_the_planar_ends_never_pull(deg):
    """At 0 degrees (both rows' gaps equal), from 0.06 degrees on (``sin a > SINE_BAND``:
    p's row alone, whose gap does not change along the slide) and with A tilted down (q
    the lowest point, the contact deepening as the overlap grows) the axial force on A
    never pulls it into the overlap, to 1e-9 of the force, over the sweep."""
    F = _axial(deg)
    assert np.linalg.norm(F, axis=1).min() > 1000.0
    assert (-F[:, 0]).max() <= 1e-9 * np.linalg.norm(F, axis=1).max(), (-F[:, 0]).max()


@pytest.mark.xfail(strict=True, reason=(
    "below SINE_BAND the overlap share keeps a part of q's row (B's end against A's line), "
    "whose gap grows with the overlap at any angle > 0: the share's energy falls and pulls "
    "A in by up to 0.139 N on 2000 N (fembody.contact.meet, 'Near parallel')"))
@pytest.mark.parametrize("deg", NEAR)
def test_the_planar_contact_never_pulls_the_ends_into_overlap(deg):
    """What a penalty contact should meet (tests/contact/test_ends_meet.py's spatial record):
    the axial force on A pushes it out of the overlap or is zero (to 1e-9 of the force)
    over the sweep. The true contact (p over B) has ``F_x = 0`` here."""
    F = _axial(deg)
    assert (-F[:, 0]).max() <= 1e-9 * np.linalg.norm(F, axis=1).max(), (-F[:, 0]).max()


def test_the_pull_is_the_most_a_continuous_share_allows():
    """A guard (it passes on the base commit: it checks a bound, not a change): why no
    continuous share of the two rows removes the pull (fembody.contact.line, "No continuous
    weight is pull-free": q's weight may not grow while its energy falls and is 0 where its
    row enters, so for ``a > 0`` a pull-free share is 0 all along, a step at parallel).
    With the share's C2 step the pull is at most ``k g sin a (1 - S(s))``, ``s = sin a /
    SINE_BAND`` (the entry term only lowers it), so at most ``max_s s (1 - S(s)) k g
    SINE_BAND = 0.0706 k g SINE_BAND``: over angles of 0.0005 to 0.06 degrees and overlaps
    in 25 um steps the closed form's largest pull is that bound to 1e-3 (measured 0.14108 N
    against 0.14111 N, at 0.0172 degrees, ``s = 0.30``, 0.55 mm: the share is as pull-free
    as a continuous one can be), and the code's force there is the closed form's to 1e-10
    of the 2000 N contact."""
    s = np.linspace(0.0, 1.0, 100001)
    S = 0.5 + (15.0 * s - 10.0 * s ** 3 + 3.0 * s ** 5) / 16.0
    normal = K * (2 * R - DZ)
    bound = (s * (1.0 - S)).max() * normal * SINE_BAND
    ovs = np.arange(2.5e-5, 40e-3, 2.5e-5)
    worst = (0.0, 0.0, 0.0)
    for deg in np.linspace(0.0005, 0.06, 240):
        F = _closed_form(deg, ovs)[:, 0]
        i = int(np.argmin(F))
        if -F[i] > worst[0]:
            worst = (-F[i], deg, ovs[i])
    assert worst[0] <= bound and worst[0] > (1.0 - 1e-3) * bound, (worst, bound)
    pull, deg, ov = worst
    F = _axial(deg, np.array([ov]))
    assert abs(-F[0, 0] - pull) < 1e-10 * normal, (F, pull)
