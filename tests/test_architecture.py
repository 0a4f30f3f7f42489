"""A new game is one class with ``@register``: it appears everywhere without editing another file.

The game here is thrown away after each test: a pile of stones, each turn takes one or two,
whoever takes the last stone wins (docs/architecture.md, "Adding a game").
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

import spheria
from spheria.cli.main import main
from spheria.kernel import registry as base
from spheria.kernel.game import TERMINAL, Game, IllegalMoveError, InvalidMoveError, State
from spheria.kernel.options import Option
from spheria.kernel.registry import register


class Pile(Game):
    name = "test-pile"
    title = "Pile"
    min_players = 2
    max_players = 3
    option_specs = (
        Option("stones", 5, "stones in the pile at the start", kind=int, minimum=1, maximum=50),
        Option("players", 2, "seats around the pile", kind=int, minimum=2, maximum=3),
    )

    @property
    def num_players(self) -> int:
        return int(self.options["players"])

    def player_names(self) -> list[str]:
        return [f"Taker {seat + 1}" for seat in range(self.num_players)]

    def seat_colors(self) -> list[str | None]:
        return [None] * self.num_players

    def new_initial_state(self, seed: int | None = None) -> PileState:
        return PileState(self, int(self.options["stones"]))

    @property
    def zero_sum(self) -> bool:
        return self.num_players == 2  # three takers: one +1 and two -1

    def action_texts(self) -> list[str]:
        """Every move this game can ever write: what OpenSpiel and PettingZoo number as actions."""
        return ["1", "2"]

    def state_from_spn(self, text: str) -> PileState:
        raise ValueError("no position notation for this test game")


class PileState(State[int]):
    def __init__(self, game: Pile, stones: int) -> None:
        self.game: Pile = game
        self.stones = stones
        self.seed = None
        self._history: list[int] = []

    def current_player(self) -> int:
        return TERMINAL if self.stones == 0 else len(self._history) % self.game.num_players

    def legal_moves(self, player: int | None = None) -> list[int]:
        if self.stones == 0 or player not in (None, self.current_player()):
            return []
        return [take for take in (1, 2) if take <= self.stones]

    def apply(self, move: int) -> None:
        if move not in self.legal_moves():
            raise IllegalMoveError(f"cannot take {move!r} now")
        self.stones -= move
        self._history.append(move)

    def undo(self) -> int:
        move = self._history.pop()
        self.stones += move
        return move

    def is_terminal(self) -> bool:
        return self.stones == 0

    def returns(self) -> list[float]:
        if self.stones:
            return [0.0] * self.game.num_players
        last = (len(self._history) - 1) % self.game.num_players
        return [1.0 if seat == last else -1.0 for seat in range(self.game.num_players)]

    def clone(self) -> PileState:
        state = PileState(self.game, self.stones)
        state._history = list(self._history)
        return state

    def to_spn(self) -> str:
        return f"{self.stones} {self.current_player()}"

    def parse_move(self, text: str, player: int | None = None) -> int:
        if text.strip() not in ("1", "2"):
            raise InvalidMoveError(f"{text!r} is not 1 or 2")
        move = int(text)
        if move not in self.legal_moves(player):
            raise IllegalMoveError(f"cannot take {move} now")
        return move


@pytest.fixture
def pile_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[Game]]:
    """Register the throwaway game for one test; the registry is restored afterwards."""
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    yield register(Pile)


def test_a_registered_game_is_listed_loaded_and_described(pile_registered: type[Game]) -> None:
    assert "test-pile" in spheria.game_names()
    assert Pile in spheria.game_classes()
    game = spheria.load_game("test-pile", stones="7", players=3)
    info = game.info()
    assert (info.title, info.min_players, info.max_players, info.num_players) == ("Pile", 2, 3, 3)
    assert [seat.name for seat in info.seats] == ["Taker 1", "Taker 2", "Taker 3"]
    described = {d["name"]: d for d in spheria.describe_games()}["test-pile"]
    assert json.loads(json.dumps(described)) == described  # JSON-safe as it is
    assert described["seats"] == [{"name": f"Taker {n}", "color": None, "side": n - 1} for n in (1, 2)]
    assert described["options"][0] == {
        "name": "stones",
        "type": "int",
        "default": 5,
        "value": 5,
        "choices": [],
        "minimum": 1,
        "maximum": 50,
        "help": "stones in the pile at the start",
    }
    assert described["simultaneous"] is False and described["perfect_information"] is True
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply(state.parse_move(str(state.legal_moves()[-1])))
    assert state.winners() == [(len(state.history) - 1) % 3]
    # A plugin's options and history are as safe as a shipped game's: the base classes see to it.
    with pytest.raises(TypeError):
        game.options["players"] = 2  # type: ignore[index]
    assert game.num_players == 3 and dict(game.options) == {"players": 3, "stones": 7}
    assert isinstance(state.history, tuple) and state.history == tuple(state._history)
    with pytest.raises(AttributeError):
        state.history = ()  # type: ignore[misc]


def test_a_registered_game_appears_in_spheria_games(
    pile_registered: type[Game], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert "test-pile  Pile, 2 to 3 players (by default 2: Taker 1, Taker 2); sequential, perfect information" in out
    assert "--option stones=N (1 to 50); default 5" in out
    assert "e.g. spheria play test-pile --players human,random" in out
    pile_block = out[out.index("test-pile  ") :].split("\n\n")[0]
    assert "level:" not in pile_block  # no levels are measured for a plugin's game


def test_the_registry_refuses_a_game_without_its_facts(pile_registered: type[Game]) -> None:
    class Nameless(Pile):
        name = ""

    class Crowded(Pile):
        name = "test-crowded"
        min_players, max_players = 3, 2

    class Impostor(Pile):
        name = "spinca"

    for cls, problem in ((Nameless, "must declare its name"), (Crowded, "seat range 3..2"), (Impostor, "taken")):
        with pytest.raises(ValueError, match=problem):
            register(cls)
    assert spheria.load_game("spinca").title == "Spinca"


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"players": 2.5}, "option 'players' takes a whole number, not 2.5"),
        ({"players": "2.5"}, "option 'players' takes a whole number, not '2.5'"),
        ({"players": 4}, "option 'players' must be at least 2 and at most 3, not 4"),
        ({"stones": float("inf")}, "option 'stones' takes a whole number, not inf"),
        ({"stones": True}, "option 'stones' takes a whole number, not True"),
    ],
)
def test_whole_number_options_refuse_fractions_and_bounds(
    pile_registered: type[Game], options: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(problem)):
        spheria.load_game("test-pile", **options)


def test_number_options_must_be_finite_and_in_range() -> None:
    seconds = Option("seconds", 1.0, "thinking time", kind=float, minimum=0.0, maximum=10)
    assert seconds.parse("2.5") == 2.5 and seconds.parse(3) == 3.0
    for value, problem in ((float("nan"), "finite"), ("inf", "finite"), (11, "at most 10"), ("x", "finite")):
        with pytest.raises(ValueError, match=problem):
            seconds.parse(value)
    assert seconds.describe(2.0)["type"] == "float"


def test_a_registered_game_loads_in_openspiel(pile_registered: type[Game]) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    from spheria.integrations import openspiel

    openspiel.register_all()  # the integration picks up games registered after its import
    game = openspiel.load("test-pile", stones=7, players=3)
    kind = game.get_type()
    # Three takers are general-sum: another game type, so its own registration, found from the facts.
    assert (kind.short_name, kind.utility) == ("spheria_test_pile_3", pyspiel.GameType.Utility.GENERAL_SUM)
    assert (kind.min_num_players, kind.max_num_players, game.num_players()) == (3, 3, 3)
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL and game.num_distinct_actions() == 2
    assert pyspiel.load_game("spheria_test_pile").get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.string_to_action(state.action_to_string(state.legal_actions()[-1])))
    assert state.returns() == [1.0 if seat == 0 else -1.0 for seat in range(3)]  # 2, 2, 2, 1: seat 1 took the last
