"""The first run of an installed fembody (tools/check_wheel.sh runs it in a fresh venv): the
README's planar quick start and ``fembody demo`` in one process, twice (two processes). Checks
that the kernels came from the wheel's extensions (numba never imported, pythran absent) and
that the first process took at most 1.5 times the second's CPU time."""
from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import tempfile
import time


def first_run() -> dict:
    c0 = time.process_time()
    import fembody as fb
    from fembody.cli import main as cli
    from fembody.elements import kernels
    alu = fb.Material(E=70e9, rho=2700.0, nu=0.33)
    sec = fb.Section.rectangle(b=0.02, h=0.005)
    model = fb.Model(gravity=(0.0, -9.81))
    beam = model.add_beam((0.0, 0.0), (1.0, 0.0), n=16, material=alu, section=sec)
    model.add_joint(fb.Pin(model.ground, beam.first))
    fb.simulate(model, t_end=0.2, dt=1e-3, method="generalized-alpha", rho_inf=0.9)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            cli(["demo", "--t-end", "0.2", "--out", str(pathlib.Path(tmp) / "demo")])
        except SystemExit as exc:
            if exc.code:
                raise
    return {"cpu_s": time.process_time() - c0, "built": kernels.built(),
            "numba_imported": "numba" in sys.modules,
            "fembody": str(pathlib.Path(fb.__file__).parent)}


def main() -> int:
    if "--child" in sys.argv:
        print(json.dumps(first_run()))
        return 0
    runs = []
    for _ in range(2):
        p = subprocess.run([sys.executable, __file__, "--child"], capture_output=True,
                           text=True)
        if p.returncode:
            print(p.stdout, p.stderr, file=sys.stderr)
            return 1
        runs.append(json.loads(p.stdout.strip().splitlines()[-1]))
    first, second = runs
    print(f"wheel-check: fembody imported from {first['fembody']}")
    print(f"wheel-check: quick start and demo, first process {first['cpu_s']:.2f} s CPU, "
          f"second {second['cpu_s']:.2f} s CPU")
    ok = first["built"] and not first["numba_imported"] \
        and first["cpu_s"] <= 1.5 * second["cpu_s"]
    if not ok:
        print(f"wheel-check: FAILED: {first}", file=sys.stderr)
        return 1
    print("wheel-check: passed (the first run compiled nothing)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
