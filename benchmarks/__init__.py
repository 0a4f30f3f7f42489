"""Spheria's benchmarks: run ``python -m benchmarks`` for a JSON table of figures."""
