"""Support shared by the tests and the benchmarks (``tests/``, ``bench/``): not part of the
installed packages, so it may use dev-only dependencies such as pyte."""
