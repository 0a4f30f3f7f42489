"""Build the compiled solver (spheria.solver._cakesolver); everything else is in pyproject.toml."""

import sys

from setuptools import Extension, setup

flags = [] if sys.platform == "win32" else ["-O2", "-Wall"]

setup(
    ext_modules=[
        Extension(
            "spheria.solver._cakesolver",
            sources=["src/spheria/solver/_cakesolver.c"],
            extra_compile_args=flags,
        ),
        # Special Cake's eating moves, compiled; optional: the games fall back to Python without it.
        Extension(
            "spheria.engine._cakemoves",
            sources=["src/spheria/engine/_cakemoves.c"],
            extra_compile_args=flags,
            optional=True,
        ),
    ]
)
