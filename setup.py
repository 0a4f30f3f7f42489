"""Build the compiled accelerators (Special Cake's solver and its move generator) when a C compiler is at hand.

The extensions only speed things up: Special Cake's solver and its rules fall back to pure
Python without them. So a failed compile prints a warning naming each extension not built and
what runs instead, and the install goes on. Everything else is in pyproject.toml.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

flags = [] if sys.platform == "win32" else ["-O2", "-Wall"]
# Special Cake's eating steps, shared by the extensions and the table builder (cake_steps.h).
steps = {"include_dirs": ["src/spheria/games/special_cake"], "depends": ["src/spheria/games/special_cake/cake_steps.h"]}

SOLVER = "spheria.games.special_cake.solver._cakesolver"
MOVES = "spheria.games.special_cake._cakemoves"

#: Each optional extension: what it is, and what runs without it.
LOSSES = {
    SOLVER: (
        "the compiled solver",
        "Special Cake is solved by the pure-Python search, about a hundred times slower "
        "(`spheria solve --verbose` says which one runs)",
    ),
    MOVES: (
        "the compiled move generator",
        "Special Cake's eating moves come from the pure-Python generator, several times slower in "
        "play and in every search (`python -m benchmarks` says which one ran)",
    ),
}


def build_warning(failures: Sequence[tuple[str, str]]) -> str:
    """The warning for the extensions that were not built: ``(extension name, error)`` each."""
    lines = ["", "WARNING: spheria's optional compiled parts were not all built; it installs and plays without them:"]
    for name, error in failures:
        what, instead = LOSSES.get(name, ("an optional extension", "a pure-Python fallback runs instead"))
        lines += [f"  - {name} ({what}) was not built: {error}", f"    without it, {instead}."]
    lines += ["Install a C compiler (and the Python headers) and reinstall for the fast ones.", ""]
    return "\n".join(lines)


class OptionalBuildExt(build_ext):
    """build_ext that warns, naming each extension it could not compile, instead of failing."""

    def run(self) -> None:
        self.built: list[str] = []
        self.failures: list[tuple[str, str]] = []
        try:
            super().run()
        except Exception as error:  # the compiler itself is missing or unusable: nothing left is built
            done = set(self.built) | {name for name, _ in self.failures}
            self.failures += [(ext.name, str(error)) for ext in self.extensions if ext.name not in done]
        if self.failures:
            print(build_warning(self.failures), file=sys.stderr)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:  # a compile or link error
            self.failures.append((ext.name, str(error)))
        else:
            self.built.append(ext.name)


#: The optional extensions: Special Cake's solver, and its eating moves (the games fall back to Python without them).
EXTENSIONS = [
    Extension(
        SOLVER,
        sources=["src/spheria/games/special_cake/solver/_cakesolver.c"],
        extra_compile_args=flags,
        **steps,
        optional=True,
    ),
    Extension(
        MOVES,
        sources=["src/spheria/games/special_cake/_cakemoves.c"],
        extra_compile_args=flags,
        **steps,
        optional=True,
    ),
]

if __name__ == "__main__":  # as setuptools runs it (a test imports it to check the warning)
    setup(ext_modules=EXTENSIONS, cmdclass={"build_ext": OptionalBuildExt})
