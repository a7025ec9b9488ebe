"""``python -m benchmarks [--quick] ...``: the benchmark suite (benchmarks/suite.py)."""
import sys

from benchmarks.suite import main

sys.exit(main())
