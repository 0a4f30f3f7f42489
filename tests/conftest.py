"""Shared test helpers, test data and test games for every test module.

``SecretNumbers`` is a tiny simultaneous game with hidden information, so the simultaneous
path is tested without depending on Spagyric. Two rounds: both seats secretly pick 1, 2 or 3
at once (a ``SIMULTANEOUS`` node), the picks are revealed, then seat 0 alone says ``next`` or
``double`` (a normal node). Each seat also holds a secret card dealt from the seed, which only
that seat may see. The larger total of picks (doubled if seat 0 said ``double``) plus the
card wins.
"""

from __future__ import annotations

import os
import random
import tempfile
import textwrap
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import pytest

# A table built on this machine (``spheria tablebase build``) must not change what the tests see:
# the solver agent would eat mint from it instead of searching. Every test, and every server a
# test starts as a subprocess, looks in an empty directory instead.
os.environ["SPHERIA_TABLEBASE"] = tempfile.mkdtemp(prefix="spheria-tablebase-")

from spheria.engine.board import SITE_NAMES, Board, iter_sites, parse_diagram
from spheria.kernel.game import (
    SIMULTANEOUS,
    TERMINAL,
    Game,
    IllegalMoveError,
    MoveError,
    Observation,
    PlayerView,
    State,
)
from spheria.kernel.options import Option
from tests.services import postgres_server, redis_server

#: The fixture that launches Chromium (tests/web/e2e/test_browser.py): every test that uses it, directly
#: or through another fixture (``page``), is marked ``browser`` as it is collected, so
#: ``pytest -m "not browser"`` runs the quick loop without a browser (tests/test_markers.py checks it).
BROWSER_FIXTURE = "browser"

#: Game packages that tests drop into spheria.games (tests/kernel/test_architecture.py); never collected themselves.
collect_ignore = ["plugin_games"]


def pytest_itemcollected(item: pytest.Item) -> None:
    if BROWSER_FIXTURE in getattr(item, "fixturenames", ()):
        item.add_marker(pytest.mark.browser)


#: Every game with options that make a different game of it: the shared API is tested on each.
EVERY_GAME: list[tuple[str, dict[str, Any]]] = [
    ("sandbox", {}),
    ("sandbox", {"players": 3, "own_colors": True, "white": 2}),
    ("special-cake", {"variant": "mint"}),
    ("special-cake", {"variant": "sugar"}),
    ("special-cake", {"variant": "poisoned", "line_rule": "same"}),
    ("spagyric", {"supply": 3}),
    ("spinca", {"players": 2}),
    ("spinca", {"players": 3}),
    ("spinca", {"players": 4}),
    ("spline", {}),
]


# -- real PostgreSQL and Redis (tests/services.py) ------------------------------------------------


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of a PostgreSQL cluster started for this test run (Debian's binaries, loopback)."""
    with postgres_server() as url:
        yield url


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """The URL of a ``redis-server`` started for this test run (loopback, nothing on disk)."""
    with redis_server() as url:
        yield url


# -- drawn positions and site names ------------------------------------------------------------


def drawn(picture: str) -> tuple[Board, dict[int, str]]:
    """The board drawn in ``picture`` (the format of ``Board.diagram()``) and its marks."""
    return parse_diagram(textwrap.dedent(picture))


def board_of(picture: str) -> Board:
    """The board drawn in ``picture`` (no marks allowed)."""
    board, marks = drawn(picture)
    assert marks == {}
    return board


def names_of(bits: int) -> set[str]:
    """The names of the sites of a mask."""
    return {SITE_NAMES[s] for s in iter_sites(bits)}


# -- playing and refusing moves ------------------------------------------------------------------

S = TypeVar("S", bound=State[Any])


def play(state: S, *texts: str) -> S:
    """Play the moves written ``texts``, in order; returns ``state``."""
    for text in texts:
        state.apply(state.parse_move(text))
    return state


def child_of(state: S, move: Any) -> S:
    """``state.child(move)``, typed as the parent's kind of state."""
    child = state.child(move)
    assert isinstance(child, type(state))
    return child


def refusal(state: State[Any], text: str) -> str:
    """The message of the :class:`MoveError` ``parse_move(text)`` raises; checks that the state did not change."""
    before = (state.to_spn(), state.history, [str(m) for m in state.legal_moves()])
    with pytest.raises(MoveError) as info:
        state.parse_move(text)
    assert (state.to_spn(), state.history, [str(m) for m in state.legal_moves()]) == before
    return str(info.value)


def assert_rejected(
    state: State[Any],
    text: str,
    match: str,
    parse: Callable[[str], Any] | None = None,
    error: type[MoveError] = IllegalMoveError,
) -> None:
    """``text`` is refused with an ``error`` (by default :class:`IllegalMoveError`: a move, but not
    allowed here) whose message matches ``match`` — by ``parse_move`` and, given the game's move
    ``parse``, by ``apply`` of the parsed move object — and the state does not change."""
    before = (state.to_spn(), state.history, [str(m) for m in state.legal_moves()])
    with pytest.raises(error, match=match):
        state.parse_move(text)
    if parse is not None:
        with pytest.raises(error, match=match):
            state.apply(parse(text))
    assert (state.to_spn(), state.history, [str(m) for m in state.legal_moves()]) == before


# -- a test game: simultaneous, hidden information, no pyramid ------------------------------------

PICKS = ("1", "2", "3")
CALLS = ("next", "double")


class SecretNumbers(Game):
    name = "test-secret-numbers"
    title = "Secret Numbers"
    option_specs = (Option("rounds", 2, "rounds to play", kind=int, minimum=1),)

    @property
    def num_players(self) -> int:
        return 2

    perfect_information = False

    def player_names(self) -> list[str]:
        return ["North", "South"]

    def new_initial_state(self, seed: int | None = None) -> SecretState:
        if seed is None:
            seed = random.SystemRandom().randrange(1000)
        rng = random.Random(seed)
        return SecretState(self, seed, (rng.randrange(10), rng.randrange(10)))

    def state_from_spn(self, text: str) -> SecretState:
        raise ValueError("no SPN for this test game")


class SeatView:
    """What one seat sees: its own card and the public history; never the other card."""

    def __init__(self, state: SecretState, player: int) -> None:
        self._observation = state.observation(player)
        self._moves = state.legal_moves(player)
        self._current = state.current_player()

    def current_player(self) -> int:
        return self._current

    def legal_moves(self, player: int | None = None) -> list[Any]:
        return list(self._moves)

    def observation(self, player: int) -> dict[str, Any]:
        return dict(self._observation)


class SecretObservation(Observation):
    card: int
    history: list[str]


class SecretState(State[Any]):
    def __init__(self, game: SecretNumbers, seed: int | None, cards: tuple[int, int]) -> None:
        self.game: SecretNumbers = game
        self.seed = seed
        self.cards = cards
        self._history: list[Any] = []  # tuples (joint picks) and strings (seat 0's call)

    def _round_and_phase(self) -> tuple[int, str]:
        return len(self._history) // 2, ("pick", "call")[len(self._history) % 2]

    def is_terminal(self) -> bool:
        return len(self._history) >= 2 * int(self.game.options["rounds"])

    def current_player(self) -> int:
        if self.is_terminal():
            return TERMINAL
        return SIMULTANEOUS if self._round_and_phase()[1] == "pick" else 0

    def legal_moves(self, player: int | None = None) -> list[Any]:
        current = self.current_player()
        if current == TERMINAL:
            return []
        if current == SIMULTANEOUS:
            return list(PICKS) if player in (0, 1) else []
        return list(CALLS) if player in (None, 0) else []

    def totals(self) -> list[int]:
        totals = list(self.cards)
        factor = 1
        for entry in reversed(self._history):
            if isinstance(entry, str):
                factor = 2 if entry == "double" else 1
            else:
                for seat in (0, 1):
                    totals[seat] += int(entry[seat]) * factor
        return totals

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        a, b = self.totals()
        return [0.0, 0.0] if a == b else ([1.0, -1.0] if a > b else [-1.0, 1.0])

    def apply(self, move: Any) -> None:
        if self.current_player() != 0 or move not in CALLS:
            raise IllegalMoveError(f"{move!r} is not a call here")
        self._history.append(move)

    def apply_joint(self, moves: Sequence[Any]) -> None:
        if self.current_player() != SIMULTANEOUS:
            raise IllegalMoveError("no one picks secretly now")
        if len(moves) != 2 or any(m not in PICKS for m in moves):
            raise IllegalMoveError(f"a joint move is two picks from 1, 2, 3; got {list(moves)!r}")
        self._history.append(tuple(moves))

    def undo(self) -> Any:
        return self._history.pop()

    def clone(self) -> SecretState:
        state = SecretState(self.game, self.seed, self.cards)
        state._history = list(self._history)
        return state

    def to_spn(self) -> str:
        return f"{self.cards[0]}{self.cards[1]} {len(self._history)}"

    def parse_move(self, text: str, player: int | None = None) -> Any:
        text = text.strip().lower()
        if text not in self.legal_moves(player):
            raise IllegalMoveError(f"{text!r} is not legal here (legal: {', '.join(self.legal_moves(player))})")
        return text

    def view(self, player: int) -> PlayerView:
        return SeatView(self, player)

    def notation(self, move: Any) -> str:
        return move if isinstance(move, str) else "/".join(move)

    def history_notation(self) -> list[str]:
        return [self.notation(m) for m in self._history]

    def apply_notation(self, text: str) -> None:
        if self.current_player() == SIMULTANEOUS:
            self.apply_joint([self.parse_move(part, seat) for seat, part in enumerate(text.split("/"))])
        else:
            self.apply(self.parse_move(text))

    def observation(self, player: int) -> SecretObservation:
        return {
            "game": self.game.name,
            "board": self.to_spn().split()[0],
            "card": self.cards[player],
            "history": self.history_notation(),
            "current_player": self.current_player(),
            "player": player,
        }

    def status_lines(self, player: int | None = None) -> list[str]:
        lines = [f"Round {self._round_and_phase()[0] + 1}"]
        if player is not None and not self.is_terminal():
            lines.append(f"Your secret card: {self.cards[player]}")
        if self.is_terminal():
            lines.append(f"Cards {self.cards[0]} and {self.cards[1]}; totals {self.totals()}")
        return lines

    def __str__(self) -> str:
        return "picks: " + " ".join(self.history_notation())
