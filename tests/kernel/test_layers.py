"""Generic code never names a game: what a game is lives in its package, and generic code asks it.

The import contracts in pyproject.toml (run by ``lint-imports`` in scripts/test) keep generic
modules from importing a game's package; this test keeps them from naming one at all — a game's
name or title anywhere in a generic module or page (code, strings, docstrings, comments:
examples with a particular game live with that game), and a game's class by name in code.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import spheria
from spheria.kernel.registry import game_classes

SOURCE = Path(spheria.__file__).parent
GAMES = SOURCE / "games"


def game_words() -> set[str]:
    """Every game's registry name, its name as a module and its title, lower case."""
    words = set()
    for cls in game_classes():
        words |= {cls.name, cls.name.replace("-", "_"), cls.title.lower()}
    return words


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
    assert {"spline", "special-cake", "spagyric", "spinca"} <= words and "CakeState" in classes
    offenders = []
    for path in generic_files():
        text = path.read_text(encoding="utf-8")
        found = mentions(text, words)
        if path.suffix == ".py":
            found += [(line, name) for line, name in python_mentions(text, set(), classes)]
        offenders += [f"{path.relative_to(SOURCE)}:{line}: {what}" for line, what in found]
    assert offenders == []
