"""The terminal in Korean: whole games of every game under LANG=ko_KR.UTF-8 leave no English
sentence, ``help rules`` and ``--help`` are Korean, and machine-readable output (``--json``)
is the same byte for byte in every language."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path
from unittest import mock

import pytest

from spheria import server as spheria_server
from spheria.agents.registry import agent_names
from spheria.cli.common import HUMAN
from spheria.cli.main import main
from spheria.engine.board import SITE_NAMES
from spheria.i18n import current_language
from spheria.kernel.registry import describe_games
from spheria.kernel.registry import game_names as spheria_games

KOREAN = {"LANG": "ko_KR.UTF-8", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": ""}
ENGLISH = {"LANG": "C.UTF-8", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": ""}

#: What a person types and the program's own names: commands, ids, agent names, option names and
#: values. Every other ASCII word in Korean output is English left untranslated.
COMMANDS = {
    "help",
    "rules",
    "moves",
    "undo",
    "resign",
    "quit",
    "Enter",
    "Ctrl-C",
    "spheria",
    "Spheria",
    "play",
    "replay",
}
COMMANDS |= {"True", "False"}  # option values as a title shows them
NAMES = {HUMAN, *agent_names()} | {
    str(word)
    for game in describe_games()
    for option in game["options"]
    for word in (option["name"], *option["choices"])
}
SITES = "|".join(SITE_NAMES)
NOTATION = re.compile(rf"^(?:(?:{SITES})(?:[+-](?:{SITES}))*\+?|[wbr]:[wbr]|[wbr]|[a-d]|[0-9x.,:%+\-]+|y/N)$")


def english_words(text: str) -> list[str]:
    """ASCII words of ``text`` that are neither notation, numbers, single letters, nor names."""
    tokens = (token.strip(".,:;()[]'\"") for token in text.split() if "/" not in token)  # "/": a file path
    words = (word for token in tokens for word in re.findall(r"[A-Za-z0-9_:+\-./']+", token))
    return [
        word
        for word in (w.strip(".,:;'") for w in words)
        if re.search("[A-Za-z]{2,}", word) and word not in COMMANDS | NAMES and not NOTATION.match(word)
    ]


def is_board_line(line: str) -> bool:
    """A line of a drawn pyramid (ranks of w/b/r/. or the file letters)."""
    return bool(re.fullmatch(r"[\d .wbr+a-d]*", line))


#: The warnings a process ignores by default (Python's own filters); it prints the others on stderr.
QUIET_WARNINGS = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)


def spheria(argv: list[str], environ: dict[str, str], typed: str = "") -> subprocess.CompletedProcess[str]:
    """``spheria argv`` run here through :func:`main` as a process started with ``environ`` and
    ``typed`` on its stdin would run it: its exit status, stdout and stderr, with what a process
    makes of a ``SystemExit`` and of a warning. (A process for each call took this file a minute
    or more, nearly all of it starting Python; :func:`spheria_process` is the real one.)"""
    stdout, stderr = io.StringIO(), io.StringIO()
    environment = {**environ, "NO_COLOR": "1", "COLUMNS": "80", "LINES": "24"}  # 80 columns: a pipe's width
    with (
        mock.patch.dict(os.environ, environment),
        mock.patch.object(sys, "stdin", io.StringIO(typed)),
        contextlib.redirect_stdout(stdout),
        contextlib.redirect_stderr(stderr),
        warnings.catch_warnings(record=True) as caught,
    ):
        warnings.simplefilter("default")
        for category in QUIET_WARNINGS:
            warnings.filterwarnings("ignore", category=category)
        try:
            status = main(argv)
        except SystemExit as stop:  # as the interpreter ends a process
            status = exit_status(stop)
    for warning in caught:
        stderr.write(warnings.formatwarning(warning.message, warning.category, warning.filename, warning.lineno))
    return subprocess.CompletedProcess(argv, status, stdout.getvalue(), stderr.getvalue())


def exit_status(stop: SystemExit) -> int:
    """The status a process ends with on ``stop``; a message is printed on stderr, status 1."""
    if stop.code is None or isinstance(stop.code, int):
        return stop.code or 0
    print(stop.code, file=sys.stderr)
    return 1


def spheria_process(argv: list[str], environ: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``spheria argv`` in a process of its own with ``environ``: what a person at a shell runs."""
    env = {**os.environ, **environ, "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "spheria.cli.main", *argv],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
        check=False,
    )


#: Typed again and again: every site, then every colour (illegal ones are refused in Korean).
CYCLE = "\n".join(["0z9", *SITE_NAMES, "w", "b", "r"]) + "\n"

GAMES = [
    ("special-cake", ["--option", "variant=mint"], 2),
    ("special-cake", ["--option", "variant=sugar"], 2),
    ("special-cake", ["--option", "variant=poisoned"], 2),
    ("spagyric", [], 2),
    ("spinca", ["--option", "players=2"], 2),
    ("spinca", ["--option", "players=3"], 3),
    ("spinca", ["--option", "players=4"], 4),
    ("spline", [], 2),
]


@pytest.mark.parametrize(("game", "options", "seats"), GAMES, ids=[f"{g}{''.join(o)}" for g, o, _ in GAMES])
def test_a_whole_game_in_korean_leaves_no_english(tmp_path: Path, game: str, options: list[str], seats: int) -> None:
    players = ",".join([HUMAN, *["random"] * (seats - 1)])
    argv = ["play", game, *options, "--players", players, "--save", str(tmp_path / "game.spheria.json")]
    done = spheria(argv, KOREAN, CYCLE * 60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert any("게임이 끝났습니다" in line for line in lines), done.stdout[-2000:]
    assert any(line.startswith("  0층") for line in lines)
    refusals = [line for line in lines if "> " in line and "번째 수" not in line]
    assert refusals, "the cycle of sites and colours is refused somewhere, in Korean"
    prose = [line for line in lines if line.strip() and not is_board_line(line)]
    leftovers = {line: english_words(line) for line in prose if english_words(line)}
    assert leftovers == {}
    assert all(
        re.search("[가-힣]", line) for line in prose if not re.fullmatch(r"[^A-Za-z]*", line) and "> " not in line
    )
    record = json.loads((tmp_path / "game.spheria.json").read_text(encoding="utf-8"))
    assert record["game"] == game  # the record keeps its ids and notation
    replay = spheria(["replay", str(tmp_path / "game.spheria.json")], KOREAN)
    assert replay.returncode == 0 and "결과:" in replay.stdout
    replayed = [line for line in replay.stdout.splitlines() if line.strip() and not is_board_line(line)]
    assert {line: english_words(line) for line in replayed if english_words(line)} == {}


def test_analysing_a_record_in_korean(tmp_path: Path) -> None:
    record = tmp_path / "game.spheria.json"
    assert spheria(["play", "spline", "--save", str(record)], KOREAN, CYCLE * 60).returncode == 0
    done = spheria(["analyse", str(record), "--time", "0.1"], KOREAN)
    assert done.returncode == 0, done.stderr
    assert "수를 분석했습니다" in done.stdout
    lines = [line for line in done.stdout.splitlines() if line.strip() and not is_board_line(line)]
    assert {line: english_words(line) for line in lines if english_words(line)} == {}


def test_the_same_game_reads_in_english_without_the_korean_environment(tmp_path: Path) -> None:
    done = spheria(["play", "spline", "--no-save"], ENGLISH, CYCLE * 60)
    assert done.returncode == 0
    assert "Game over after" in done.stdout and not re.search("[가-힣]", done.stdout)
    assert "  level 0" in done.stdout


def test_help_rules_and_help_in_korean() -> None:
    done = spheria(["play", "spinca", "--no-save"], KOREAN, "help rules\nhelp\nquit\n")
    assert "신전" in done.stdout and "면과 점수" in done.stdout and "명령:" in done.stdout
    prose = [line for line in done.stdout.splitlines() if line.strip() and not is_board_line(line)]
    assert {line: english_words(line) for line in prose if english_words(line)} == {}
    usage = spheria(["play", "--help"], KOREAN)
    assert usage.stdout.startswith("사용법: spheria play")
    assert "위치 인수" in usage.stdout and "옵션:" in usage.stdout and "터미널에서 게임을 합니다" in usage.stdout
    assert "이 도움말을 보여 주고 끝냅니다" in usage.stdout


def test_lang_overrides_the_environment_and_bad_values_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """In processes of their own: the language of a real process's environment, and its exit status."""
    english = spheria_process(["--lang", "en", "games"], KOREAN)
    korean = spheria_process(["--lang=ko", "games"], ENGLISH)
    assert "Special Cake, 2 players" in english.stdout and not re.search("[가-힣]", english.stdout)
    assert "스페셜 케이크, 플레이어 2명" in korean.stdout
    refused = spheria_process(["--lang", "fr", "games"], ENGLISH)
    assert refused.returncode == 2 and "--lang" in refused.stderr and "'fr'" in refused.stderr


def test_main_leaves_the_language_as_it_found_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["--lang", "ko", "games"]) == 0
    assert current_language() == "en"


JSON_COMMANDS = [
    ["solve", "wb............../........./..../. 1 eat", "--json", "--all"],
    ["analyse", "--game", "spline", "--position", "www.bbb........./........./..../. 1", "--iterations", "9", "--json"],
    ["arena", "spline", "--agents", "random,greedy", "--games", "2", "--seed", "3", "--json"],
]


def clockless(text: str) -> str:
    """``text`` without the measured durations (the only fields that change from run to run)."""
    return re.sub(r'"(seconds|elapsed|[a-z_]*seconds)": [0-9.e-]+', r'"\1": 0', text)


@pytest.mark.parametrize("argv", JSON_COMMANDS, ids=[argv[0] for argv in JSON_COMMANDS])
def test_json_output_is_the_same_in_every_language(argv: list[str]) -> None:
    english = spheria(argv, ENGLISH)
    korean = spheria(argv, KOREAN)
    forced = spheria(["--lang", "ko", *argv], ENGLISH)
    assert english.returncode == korean.returncode == forced.returncode == 0, korean.stderr
    json.loads(english.stdout)
    assert clockless(korean.stdout) == clockless(english.stdout) == clockless(forced.stdout)
    assert not re.search("[가-힣]", korean.stdout)


def test_the_finder_of_english_words_finds_them() -> None:
    assert english_words("민트> 0d1에 사탕이 없습니다.") == []
    assert english_words("흰색(나) 대 검은색(random): 0a1-0b2 1b2, w:b, 12.5%") == []
    assert english_words("0d1 is pinned: it holds up two candies") == [
        "is",
        "pinned",
        "it",
        "holds",
        "up",
        "two",
        "candies",
    ]


def test_a_mistyped_special_cake_position_is_refused_in_korean() -> None:
    done = spheria(["solve", "wb............../........./..../. 3 eat"], KOREAN)
    assert done.returncode == 1 and done.stdout == ""
    assert "오류" in done.stderr and "둘 차례의 플레이어는 1 또는 2" in done.stderr
    assert english_words(done.stderr.replace("SPN", "")) == []


#: In help and argparse's refusals: the commands' names, the server's option values, and the one
#: product name; option flags (``--port``), metavars and acronyms (``PORT``, ``TLS``) are dropped
#: by :func:`prose_words`.
HELP_NAMES = {"arena", "solve", "analyse", "analyze", "spagyric-solve", "tablebase", "serve", "games"}
HELP_NAMES |= {"process", "thread", "SQLite", "spheria.sqlite3"}
HELP_NAMES |= {"puzzles", "puzzle"}  # issue 42: spheria puzzles build, spheria puzzle
HELP_NAMES |= {"agents", "Redis", "PostgreSQL"}  # issue 39: spheria agents, serve --redis, --db postgresql://
HELP_NAMES |= {"db", "migrate", "copy"}  # issue 39: spheria db migrate, spheria db copy


def prose_words(text: str) -> list[str]:
    """:func:`english_words` of ``text`` without option flags, metavars, acronyms and command names."""
    kept = [token for token in text.split() if not token.lstrip("[{(").startswith("-")]
    words = english_words(" ".join(kept))
    return [word for word in words if not word.isupper() and word not in HELP_NAMES]


def test_the_server_help_is_korean() -> None:
    done = spheria(["serve", "--help"], KOREAN)
    assert done.returncode == 0 and "브라우저에서 게임을 제공합니다" in done.stdout
    assert "공개 서버 운영" in done.stdout and "연결을 받을 주소(기본값 127.0.0.1)" in done.stdout
    assert {line: prose_words(line) for line in done.stdout.splitlines() if prose_words(line)} == {}
    assert "address to listen on" in spheria(["serve", "--help"], ENGLISH).stdout


def test_an_arena_in_korean_leaves_no_english() -> None:
    done = spheria(["arena", "spline", "--agents", "random,greedy", "--games", "2", "--seed", "3"], KOREAN)
    assert done.returncode == 0, done.stderr
    assert "에이전트" in done.stdout and "레이팅" in done.stdout and "게임 2판 중 2판" in done.stdout
    assert {line: english_words(line) for line in done.stdout.splitlines() if english_words(line)} == {}
    english = spheria(["arena", "spline", "--agents", "random,greedy", "--games", "2", "--seed", "3"], ENGLISH)
    assert "rating" in english.stdout and "2 of 2 games" in english.stdout


BAD_POSITIONS = [
    ("spline", "www.bbbb......../........./..../. 1", "검은색 공 4개"),
    ("spline", "rrr.bbb........./........./..../. 1", "빨간색 공이 있습니다"),
    ("spinca", "w.............../........./..../. 1 -", "2번 플레이어"),
    ("spinca", "w.............../........./..../. 2", "스핑카 SPN은 세 부분"),
    ("spagyric", "................/........./..../. reveal - 8,8,8 8,8,9 0,0,0 0,0,0 0,0,0", "빨간색 공이 9개"),
    ("spagyric", "w.............../........./..../. reveal - 8,8,8 8,8,8 0,0,0 0,0,0 0,0,0", "흰색 공 1개"),
    ("special-cake", "................/........w/..../. 1 place", "떠 있습니다"),
    ("special-cake", "................/......../..../. 1 place", "칸이 9개"),
]


@pytest.mark.parametrize(
    ("game", "position", "expected"), BAD_POSITIONS, ids=[f"{g}-{i}" for i, (g, *_) in enumerate(BAD_POSITIONS)]
)
def test_a_bad_position_of_each_game_is_refused_in_korean(game: str, position: str, expected: str) -> None:
    done = spheria(["analyse", "--game", game, "--position", position, "--iterations", "9"], KOREAN)
    assert done.returncode != 0 and expected in done.stderr, done.stderr
    assert prose_words(done.stderr.replace("SPN", "")) == []
    english = spheria(["analyse", "--game", game, "--position", position, "--iterations", "9"], ENGLISH)
    assert english.returncode == done.returncode and not re.search("[가-힣]", english.stderr)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["sovle"], "고를 수 없는 값입니다"),
        (["arena", "spline"], "다음 인수가 필요합니다: --agents"),
        (["arena", "spline", "--agents", "random,greedy", "--games", "many"], "인수 --games"),
        (["games", "--frobnicate"], "알 수 없는 인수: --frobnicate"),
        (["arena", "spline", "--agents", "random,greedy", "--games", "many"], "올바른 정수 값이 아닙니다: 'many'"),
        (
            ["analyse", "--game", "spline", "--position", "x", "--time", "soon"],
            "올바른 초(0보다 크고 일주일 이하) 값이 아닙니다: 'soon'",
        ),
        (["serve", "--port", "eighty"], "인수 --port: 올바른 정수 값이 아닙니다: 'eighty'"),
    ],
)
def test_argparse_refuses_in_korean(argv: list[str], expected: str) -> None:
    done = spheria(argv, KOREAN)
    assert done.returncode == 2 and expected in done.stderr, done.stderr
    typed = re.sub("'(sovle|many|soon|eighty)'", "", done.stderr)
    assert prose_words(typed) == []  # argparse's type names ("int", "float") in Korean too
    english = spheria(argv, ENGLISH)
    assert english.returncode == 2 and not re.search("[가-힣]", english.stderr)


def test_argparse_speaks_english_again_after_main(monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["--lang", "ko", "games"]) == 0
    with pytest.raises(SystemExit), contextlib.redirect_stderr(io.StringIO()) as err:
        argparse.ArgumentParser(prog="x").parse_args(["--nope"])
    assert "unrecognized arguments: --nope" in err.getvalue()


def test_the_spagyric_solve_report_is_korean() -> None:
    done = spheria(["spagyric-solve", "--supply", "1", "--agent", "spagyric:iterations=5"], KOREAN)
    assert done.returncode == 0, done.stderr
    assert "플레이어 1의 게임 값" in done.stdout and "착취 가능성" in done.stdout
    lines = [line.replace("supply=1", "").replace("spagyric:iterations=5", "") for line in done.stdout.splitlines()]
    assert {line: english_words(line) for line in lines if english_words(line)} == {}
    refused = spheria(["spagyric-solve", "--supply", "1", "--agent", "random"], KOREAN)
    assert refused.returncode == 1 and "policy()가 없습니다" in refused.stderr
    english = spheria(["spagyric-solve", "--supply", "1", "--agent", "spagyric:iterations=5"], ENGLISH)
    assert "value +0.000000 for Player 1" in english.stdout and "exploitability" in english.stdout


def test_an_unknown_game_is_refused_in_korean() -> None:
    done = spheria(["play", "spline-x"], KOREAN)
    assert done.returncode != 0 and "알 수 없는 게임" in done.stderr, done.stderr
    ids = done.stderr.replace("'spline-x'", "")
    for name in spheria_games():  # game ids stay the same in every language
        ids = ids.replace(name, "")
    assert prose_words(ids) == []
    english = spheria(["play", "spline-x"], ENGLISH)
    assert "unknown game 'spline-x'" in english.stderr and not re.search("[가-힣]", english.stderr)


@pytest.mark.parametrize(
    ("argv", "expected", "english"),
    [
        (["--option", "x=1"], "spline에는 옵션 'x'이(가) 없습니다", "spline has no option 'x' (options: none)"),
        (["--option", "fast"], "옵션 'fast'은(는) 이름=값으로 써야 합니다", "option 'fast' must be written name=value"),
    ],
)
def test_a_bad_game_option_is_refused_in_korean(argv: list[str], expected: str, english: str) -> None:
    done = spheria(["play", "spline", *argv], KOREAN)
    assert done.returncode == 1 and expected in done.stderr, done.stderr
    assert prose_words(done.stderr.replace("'x'", "").replace("'fast'", "").replace("spline", "")) == []
    assert english in spheria(["play", "spline", *argv], ENGLISH).stderr


@pytest.mark.parametrize(
    ("option", "expected", "english"),
    [
        (
            "players=9",
            "옵션 'players'은(는) 2, 3, 4 중 하나여야 합니다",
            "option 'players' must be one of 2, 3, 4; got '9'",
        ),
        ("players=many", "옵션 'players'은(는) 정수를 받습니다", "option 'players' takes a whole number, not 'many'"),
    ],
)
def test_a_bad_option_value_is_refused_in_korean(option: str, expected: str, english: str) -> None:
    done = spheria(["play", "spinca", "--option", option], KOREAN)
    assert done.returncode == 1 and expected in done.stderr, done.stderr
    assert prose_words(done.stderr.replace("'many'", "").replace("spinca", "")) == []  # the game id stays
    assert english in spheria(["play", "spinca", "--option", option], ENGLISH).stderr


@pytest.mark.parametrize(
    ("argv", "expected", "english"),
    [
        (["--agent-max-time", "0"], "--agent-max-time 값은 0보다 크고 3600초 이하", "must be above 0 and at most 3600"),
        (["--public-url", "ftp://x"], "https://host[:port] 꼴이어야 합니다", "--public-url must look like https://"),
        (["--certfile", "cert.pem"], "--certfile 옵션과 --keyfile 옵션을 모두", "give both --certfile and --keyfile"),
    ],
)
def test_serve_refuses_an_option_value_in_korean(
    argv: list[str], expected: str, english: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Refused before the server starts (nothing listens)."""

    def started(*args: object, **kwargs: object) -> None:
        raise AssertionError("the server started")

    monkeypatch.setattr(spheria_server, "serve", started)
    done = spheria(["serve", "--port", "1", *argv], KOREAN)
    assert done.returncode == 1 and expected in done.stderr and HANGUL_RE.search(done.stderr), done.stderr
    refused = spheria(["serve", "--port", "1", *argv], ENGLISH)
    assert english in refused.stderr and not HANGUL_RE.search(refused.stderr)


HANGUL_RE = re.compile("[가-힣]")


def test_serve_help_shows_each_limits_default_from_the_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A limit's default is written once, in ``Limits``: the option's default and its help follow it."""
    import argparse

    from spheria.server.command import add_arguments
    from spheria.server.limits import Limits

    monkeypatch.setattr(Limits, "agent_max_time", 7.5)
    monkeypatch.setattr(Limits, "client_queue", 99)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args([])
    assert (args.agent_max_time, args.client_queue, args.idle_game_hours) == (7.5, 99, Limits.idle_game_seconds / 3600)
    text = " ".join(parser.format_help().split())
    assert "per move (default 7.5)" in text and "may lag (default 99)" in text


def test_a_file_that_is_not_a_good_record_is_refused_in_korean(tmp_path: Path) -> None:
    """What a person meets opening the wrong file: the system's reason and the record's, in Korean."""
    damaged = tmp_path / "damaged.json"
    damaged.write_text('{"format": "x"}', encoding="utf-8")
    binary = tmp_path / "binary.json"
    binary.write_bytes(bytes(range(128, 256)))
    cases = [
        (str(tmp_path / "missing.json"), "그런 파일이나 폴더가 없습니다", "No such file or directory"),
        (str(tmp_path), "폴더입니다", "Is a directory"),
        (str(damaged), "Spheria 기보가 아닙니다", "not a Spheria record: 'format' must be 'spheria-record'"),
        (str(binary), "텍스트 파일이 아닙니다", "not a text file (a record is UTF-8 JSON)"),
    ]
    for path, korean, english in cases:
        done = spheria(["replay", path], KOREAN)
        assert done.returncode == 1 and korean in done.stderr, done.stderr
        assert english not in done.stderr
        assert prose_words(re.sub("'(format|spheria-record)'", "", done.stderr.replace(path, ""))) == []
        assert english in spheria(["replay", path], ENGLISH).stderr


def test_an_illegal_move_in_a_record_is_refused_in_korean(tmp_path: Path) -> None:
    saved = tmp_path / "game.json"
    assert (
        spheria(
            ["play", "spline", "--players", "random,random", "--seed", "1", "--save", str(saved)], ENGLISH
        ).returncode
        == 0
    )
    record = json.loads(saved.read_text(encoding="utf-8"))
    record["moves"][3] = record["moves"][0]  # a site taken already
    saved.write_text(json.dumps(record), encoding="utf-8")
    done = spheria(["replay", str(saved)], KOREAN)
    assert done.returncode == 1 and f"4번째 수('{record['moves'][0]}'): " in done.stderr, done.stderr
    assert "is taken" not in done.stderr and "move 4" not in done.stderr
    assert f"move 4 ('{record['moves'][0]}'): " in spheria(["replay", str(saved)], ENGLISH).stderr
