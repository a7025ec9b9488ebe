"""The ``fembody`` command: ``fembody demo [NAME]``, ``fembody demo --list``, ``fembody info``."""
from __future__ import annotations

import argparse
import platform
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fembody", description="Finite-element flexible "
                                     "multibody dynamics (planar).")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="run a showcase model")
    demo.add_argument("name", nargs="?", default="cantilever")
    demo.add_argument("--list", action="store_true", help="list the demos")
    sub.add_parser("info", help="versions and the active linear solver")
    args = parser.parse_args(argv)

    from . import examples
    if args.command == "demo":
        if args.list:
            for name, mod in examples.EXAMPLES.items():
                doc = (examples.load(name).__doc__ or "").strip().splitlines()[0]
                print(f"{name:14s} {doc}")
            return 0
        try:
            module = examples.load(args.name)
        except KeyError as exc:
            print(f"fembody demo: {exc.args[0]}", file=sys.stderr)
            return 2
        module.run()
        return 0
    if args.command == "info":
        import numpy
        import scipy

        from . import __version__
        from .solvers.linalg import backend_name
        print(f"fembody {__version__}  python {platform.python_version()}  numpy "
              f"{numpy.__version__}  scipy {scipy.__version__}")
        print(f"sparse SPD solver: {backend_name()}")
        return 0
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
