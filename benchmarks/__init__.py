"""fembody's benchmarks: ``python -m benchmarks`` runs the suite (benchmarks/suite.py); the
other scripts here are the studies behind it (see benchmarks/README.md)."""
