"""Generic code never names a game: what a game is lives in its package, and generic code asks it.

The import contracts in pyproject.toml (run by ``lint-imports`` in scripts/test) keep generic
modules from importing a game's package; this test keeps them from naming one at all — a game's
name, title or own words (the ``vocabulary`` its kit declares: its pieces, its options, its theme)
anywhere in a generic module or page (code, strings, docstrings, comments: examples with a
particular game live with that game), and a game's class by name in code.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from collections.abc import Callable
from functools import cache
from pathlib import Path

import grimp
import pytest

import spheria
from spheria.kernel.game import Game
from spheria.kernel.registry import game_class, game_classes

SOURCE = Path(spheria.__file__).parent
GAMES = SOURCE / "games"


def game_words() -> set[str]:
    """Every game's registry name, its name as a module, its title and its kit's vocabulary, lower case."""
    words = set()
    for cls in game_classes():
        words |= {cls.name, cls.name.replace("-", "_"), cls.title.lower()} | vocabulary(cls)
    return words


def vocabulary(cls: type[Game]) -> set[str]:
    """The words a game's kit declares its own."""
    return {word.lower() for word in cls.kit().vocabulary}


def package_of(cls: type[Game]) -> Path:
    return Path(sys.modules[cls.__module__].__file__ or "").parent


def test_each_games_vocabulary_is_its_own_words() -> None:
    """A word a kit declares is the game's: its package uses it, and no other game claims it."""
    claimed: dict[str, str] = {}
    for cls in game_classes():
        text = " ".join(path.read_text(encoding="utf-8").lower() for path in package_of(cls).rglob("*.py"))
        for word in vocabulary(cls):
            assert naming({word}).search(text), f"{cls.name} declares {word!r} but never uses it"
            assert claimed.setdefault(word, cls.name) == cls.name, f"{word!r} is claimed by {claimed[word]} too"
    assert {"cake", "variant", "line_rule"} <= vocabulary(game_class("special-cake"))
    assert "temple" in vocabulary(game_class("spinca"))


def defined_names(paths: list[Path], classes_only: bool) -> set[str]:
    """The public names that the modules ``paths`` define at their top level (classes only, or any)."""
    names = set()
    for path in paths:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                names.add(node.name)
            elif not classes_only and isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names |= {target.id for target in targets if isinstance(target, ast.Name)}
    return {name for name in names if not name.startswith("_")}


def game_class_names() -> set[str]:
    """The classes only the game packages define (``CakeState``, ``SplineSearch``, ...); a name that
    generic code defines too (a game's own ``Layout`` beside the codec's) is generic code's."""
    generic = defined_names([p for p in generic_files() if p.suffix == ".py"], classes_only=False)
    return defined_names(sorted(GAMES.rglob("*.py")), classes_only=True) - generic


def docstring_lines(text: str) -> set[int]:
    """The line numbers of every docstring of a module, class or function."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) or not node.body:
            continue
        first = node.body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            lines |= set(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def naming(words: set[str]) -> re.Pattern[str]:
    """A pattern finding any of ``words`` as a whole word (``spline`` in ``"spline"``, not in ``splines``)."""
    return re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, sorted(words, key=len, reverse=True))) + r")(?![\w])")


def python_mentions(text: str, words: set[str], classes: set[str]) -> list[tuple[int, str]]:
    """``(line, token)`` for each string (not a docstring) naming a game and each name of a game's class."""
    pattern, docs = naming(words), docstring_lines(text)
    found = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        in_code = token.type == tokenize.STRING and token.start[0] not in docs
        names_game = bool(words) and in_code and pattern.search(token.string.lower())
        if names_game or (token.type == tokenize.NAME and token.string in classes):
            found.append((token.start[0], token.string))
    return found


def script_mentions(text: str, words: set[str]) -> list[tuple[int, str]]:
    """``(line, text)`` for each quoted string in a script or page (comments left out) naming a game."""
    text = re.sub(r"/\*.*?\*/|<!--.*?-->", lambda m: "\n" * m.group().count("\n"), text, flags=re.S)
    pattern = naming(words)
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        code = re.sub(r"(^|\s)//.*$", "", line)
        for quoted in re.findall(r"\"[^\"]*\"|'[^']*'|`[^`]*`|>[^<]+<", code):
            if pattern.search(quoted.lower()):
                found.append((number, quoted))
    return found


def generic_files() -> list[Path]:
    return sorted(
        path
        for path in SOURCE.rglob("*")
        if path.suffix in (".py", ".js", ".html", ".css")
        and GAMES not in path.parents
        and "locale" not in path.parts
        and "i18n" not in path.relative_to(SOURCE).parts[1:]  # the pages' catalogues: data, not code
    )


def mentions(text: str, words: set[str]) -> list[tuple[int, str]]:
    """``(line, text)`` for each line naming a game, anywhere in it."""
    pattern = naming(words)
    return [(number, line.strip()) for number, line in enumerate(text.splitlines(), 1) if pattern.search(line.lower())]


def test_the_checks_find_a_game_in_code_and_in_its_documentation() -> None:
    words, classes = {"spline", "special-cake", "special cake"}, {"CakeState"}
    code = '"""Spline\'s lines."""\n# spline\nif name == "spline":\n    x = CakeState\n'
    code += 'y = "a special cake"\nz = "splines"\n'
    assert [line for line, _ in python_mentions(code, words, classes)] == [3, 4, 5]
    assert [line for line, _ in mentions(code, words)] == [1, 2, 3, 5]
    script = '// spline\nconst a = "special-cake";\n/* spline */ const b = 1;\n<p>Special Cake</p>\n'
    assert [line for line, _ in script_mentions(script, words)] == [2, 4]
    assert [line for line, _ in mentions(script, words)] == [1, 2, 3, 4]


def test_no_generic_module_names_a_game() -> None:
    words, classes = game_words(), game_class_names()
    assert {"spline", "special-cake", "spagyric", "spinca", "sugar", "temple"} <= words and "CakeState" in classes
    offenders = []
    for path in generic_files():
        text = path.read_text(encoding="utf-8")
        found = mentions(text, words)
        if path.suffix == ".py":
            found += [(line, name) for line, name in python_mentions(text, set(), classes)]
        offenders += [f"{path.relative_to(SOURCE)}:{line}: {what}" for line, what in found]
    assert offenders == []


# -- no import circles ------------------------------------------------------------------------------

#: The packages that hold no import circle among their own modules: the generic layers (the agents'
#: registry, levels and searches once imported one another through imports inside functions) and
#: the game packages' own sub-packages. Imports under ``TYPE_CHECKING`` run nothing and are left out.
ACYCLIC = (
    "spheria.i18n",
    "spheria.engine",
    "spheria.kernel",
    "spheria.agents",
    "spheria.analysis",
    "spheria.ratings",
    "spheria.cli",
    "spheria.integrations",
    "spheria.server",
    "spheria.puzzles",
    "spheria.games.sandbox",
    "spheria.games.spline",
    "spheria.games.spinca",
    "spheria.games.spagyric",
    "spheria.games.special_cake.solver",
    "spheria.games.special_cake.tablebase",
)


def circles(imports: Callable[[str], set[str]], modules: set[str]) -> list[list[str]]:
    """The import circles among ``modules`` (each a sorted list of two or more modules), where
    ``imports(module)`` gives the modules that ``module`` imports; other modules are passed over."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for imported in sorted(imports(module) & modules):
            if imported not in order:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], order[imported])
        if low[module] == order[module]:
            circle = [stack.pop()]
            while circle[-1] != module:
                circle.append(stack.pop())
            if len(circle) > 1:
                found.append(sorted(circle))

    for module in sorted(modules):
        if module not in order:
            visit(module)
    return found


def test_the_circle_finder_finds_a_circle_through_several_modules() -> None:
    imports = {"p.a": {"p.b"}, "p.b": {"p.c", "q.x"}, "p.c": {"p.a"}, "p.d": {"p.a"}, "q.x": {"p.d"}}
    assert circles(lambda m: imports.get(m, set()), set(imports)) == [["p.a", "p.b", "p.c", "p.d", "q.x"]]
    within_p = {m for m in imports if m.startswith("p.")}
    assert circles(lambda m: imports.get(m, set()), within_p) == [["p.a", "p.b", "p.c"]]
    assert circles(lambda m: imports.get(m, set()), {"p.d", "q.x"}) == []


@pytest.mark.parametrize("package", ACYCLIC)
def test_a_package_has_no_import_circle(package: str) -> None:
    graph = import_graph()
    modules = {package} | graph.find_descendants(package)
    assert len(modules) > 1, f"{package} has no modules"
    assert circles(graph.find_modules_directly_imported_by, modules) == []


@cache
def import_graph() -> grimp.ImportGraph:
    """Every import of spheria's modules, function-level imports too (what import-linter reads)."""
    return grimp.build_graph("spheria", exclude_type_checking_imports=True)
