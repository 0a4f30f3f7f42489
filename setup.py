"""Build the compiled accelerators (the solver, Special Cake's move generator) when a C compiler is at hand.

The extensions only speed things up: Special Cake's solver and its rules fall back to pure
Python without them. So a failed compile prints a warning and the install goes on. Everything
else is in pyproject.toml.
"""

import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

flags = [] if sys.platform == "win32" else ["-O2", "-Wall"]
# Special Cake's eating steps, shared by the extensions and the table builder (cake_steps.h).
steps = {"include_dirs": ["src/spheria/games/special_cake"], "depends": ["src/spheria/games/special_cake/cake_steps.h"]}

WARNING = """
WARNING: the compiled solver (spheria.games.special_cake.solver._cakesolver) was not built: {error}
spheria installs without it and solves Special Cake with its pure-Python search, which is
much slower. Install a C compiler (and the Python headers) and reinstall for the fast one.
"""


class OptionalBuildExt(build_ext):
    """build_ext that warns instead of failing when the extension cannot be compiled."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # the compiler itself is missing or unusable
            self._warn(error)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:  # a compile or link error
            self._warn(error)

    @staticmethod
    def _warn(error: Exception) -> None:
        print(WARNING.format(error=error), file=sys.stderr)


setup(
    ext_modules=[
        Extension(
            "spheria.games.special_cake.solver._cakesolver",
            sources=["src/spheria/games/special_cake/solver/_cakesolver.c"],
            extra_compile_args=flags,
            **steps,
            optional=True,
        ),
        # Special Cake's eating moves, compiled; the games fall back to Python without it.
        Extension(
            "spheria.games.special_cake._cakemoves",
            sources=["src/spheria/games/special_cake/_cakemoves.c"],
            extra_compile_args=flags,
            **steps,
            optional=True,
        ),
    ],
    cmdclass={"build_ext": OptionalBuildExt},
)
