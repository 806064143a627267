"""Benchmarks, run by hand with `make bench` (never in the test suite)."""

# Every client of a benchmark comes from 127.0.0.1 or a few addresses: the limits that protect
# a public server by address, and its totals (net/limits.py), are raised so that a benchmark
# measures the server, not its defence. One list for every benchmark: a limit added to the
# server is added here once.
RAISED_LIMITS = ("logins_per_address_minute", "connects_per_address_minute",
                 "unauth_per_address", "unauth_start", "unauth_full", "tables_per_address_hour",
                 "tables_total", "sessions_total", "sessions_per_address",
                 "connections_per_address", "guests_per_address")


def raised_limit_args(value: int = 1_000_000) -> list[str]:
    """``RAISED_LIMITS`` as ``serve``'s ``--limit NAME=VALUE`` arguments."""
    return [arg for name in RAISED_LIMITS for arg in ("--limit", f"{name}={value}")]
