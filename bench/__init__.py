"""Benchmarks, run by hand with `make bench` (never in the test suite)."""
