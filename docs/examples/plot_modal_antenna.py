"""
Imported matrices: paper 001's antenna with a modal panel
=========================================================

The deployable antenna of paper 001 (a hub, a boom and a panel that unfold on motorised
hinges) with its panel handed over as free mass and stiffness matrices, as another
finite-element code would write them, and reduced inside fembody by Craig-Bampton to a few
modes clamped at the panel's hinge side (``ModalBody3D.from_matrices``). The full
finite-element panel is the reference (``fembody demo modal-antenna``).
"""
import matplotlib.pyplot as plt
import numpy as np

from fembody.examples import modal_antenna as ex

full = ex.deployed_frequencies(0)
counts = (1, 2, 4, 8)
errors = np.array([ex.deployed_frequencies(k) / full - 1.0 for k in counts])
# the check: Rayleigh-Ritz upper bounds (round-off aside), within 1e-3 with 4 modes
assert (errors > -1e-9).all() and errors[counts.index(4)].max() < 1e-3
print("relative frequency errors, 4 modes:", np.array2string(errors[2], precision=2))

# %%
# The latched antenna's first four frequencies (hub clamped, motors holding): the reduced
# panel's are upper bounds that fall towards the full model's as modes are added.
fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
for j in range(errors.shape[1]):
    ax.semilogy(counts, np.maximum(errors[:, j], 1e-12), "o-",
                label=f"mode {j + 1} ({full[j]:.3g} Hz)")
ax.set_xlabel("panel modes kept [-]")
ax.set_ylabel("frequency error, relative [-]")
ax.set_xticks(counts)
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
plt.show()

# %%
# A fast deployment (two 2 s stages, then 2 s latched) on a clamped hub: how far the panel
# tip leaves its rigid kinematic path, full panel against 4 modes.
t, d_full = ex.tip_departure(0)
_, d_modal = ex.tip_departure(4)
peak = np.linalg.norm(d_full, axis=1).max()
gap = np.abs(d_modal - d_full).max() / peak
assert gap < 0.02                   # the modal panel follows the full one within 2 % of peak
print(f"peak departure {1e3 * peak:.1f} mm (full panel); 4 modes differ by {100 * gap:.2f} %")
fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
ax.plot(t, 1e3 * np.linalg.norm(d_full, axis=1), "k-", label="full panel")
ax.plot(t, 1e3 * np.linalg.norm(d_modal, axis=1), "C0--", label="4 modes")
ax.set_xlabel("time [s]")
ax.set_ylabel("tip off the rigid path [mm]")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
plt.show()
