"""Pile's rules: a pile of stones, each turn takes one or two, whoever takes the last one wins.

Position notation (SPN) is ``<stones left> <seat to move 1..N> <stones taken so far>``::

    >>> from spheria.kernel.registry import load_game
    >>> state = load_game("test-pile", stones=5).state_from_spn("3 2 2")
    >>> state.legal_moves(), state.to_spn()
    ([1, 2], '3 2 2')
"""

from __future__ import annotations

from typing import ClassVar

from spheria.i18n import gettext as _
from spheria.kernel.game import TERMINAL, Game, IllegalMoveError, InvalidMoveError, State, move_text
from spheria.kernel.options import Option
from spheria.kernel.registry import register

from . import messages as M

MOVES = (1, 2)


@register
class Pile(Game):
    name = "test-pile"
    title = "Pile"
    min_players = 2
    max_players = 3
    option_specs: ClassVar[tuple[Option, ...]] = (
        Option("stones", 5, "stones in the pile at the start", kind=int, minimum=1, maximum=50, label=M.OPTION_STONES),
        Option("players", 2, "seats around the pile", kind=int, minimum=2, maximum=3),
    )

    @property
    def num_players(self) -> int:
        return int(self.options["players"])

    def player_names(self) -> list[str]:
        return [f"Taker {seat + 1}" for seat in range(self.num_players)]

    def seat_colors(self) -> list[str | None]:
        return [None] * self.num_players

    @property
    def zero_sum(self) -> bool:
        return self.num_players == 2  # three takers: one +1 and two -1

    def new_initial_state(self, seed: int | None = None) -> PileState:
        return PileState(self, int(self.options["stones"]))

    def state_from_spn(self, text: str) -> PileState:
        fields = self.spn_fields(text)
        if len(fields) != 3 or not all(field.isdigit() for field in fields):
            raise ValueError(f"Pile SPN is three numbers (stones left, seat to move, stones taken); not {text!r}")
        stones, seat, taken = (int(field) for field in fields)
        if stones + taken != self.options["stones"]:
            raise ValueError(f"{stones} left and {taken} taken make no pile of {self.options['stones']}")
        state = PileState(self, stones)
        state.seat = seat - 1
        if not 0 <= state.seat < self.num_players:
            raise ValueError(f"seat {seat} is not 1..{self.num_players}")
        return state


class PileState(State[int]):
    def __init__(self, game: Pile, stones: int) -> None:
        self.game: Pile = game
        self.stones = stones
        self.seat = 0
        self.seed = None
        self._history: list[int] = []

    def current_player(self) -> int:
        return TERMINAL if self.stones == 0 else self.seat

    def legal_moves(self, player: int | None = None) -> list[int]:
        if self.stones == 0 or player not in (None, self.seat):
            return []
        return [take for take in MOVES if take <= self.stones]

    def apply(self, move: int) -> None:
        if move not in self.legal_moves():
            raise IllegalMoveError(f"cannot take {move!r} now")
        self.stones -= move
        self._history.append(move)
        self.seat = (self.seat + 1) % self.game.num_players

    def undo(self) -> int:
        move = self._history.pop()
        self.stones += move
        self.seat = (self.seat - 1) % self.game.num_players
        return move

    def is_terminal(self) -> bool:
        return self.stones == 0

    def returns(self) -> list[float]:
        if self.stones:
            return [0.0] * self.game.num_players
        last = (self.seat - 1) % self.game.num_players
        return [1.0 if seat == last else -1.0 for seat in range(self.game.num_players)]

    def clone(self) -> PileState:
        state = PileState(self.game, self.stones)
        state.seat = self.seat
        state._history = list(self._history)
        return state

    def to_spn(self) -> str:
        taken = int(self.game.options["stones"]) - self.stones
        return f"{self.stones} {self.seat + 1} {taken}"

    def parse_move(self, text: str, player: int | None = None) -> int:
        written = move_text(text).strip()
        if written not in ("1", "2"):
            raise InvalidMoveError(f"{written!r} is not 1 or 2")
        self.check_turn(player)
        move = int(written)
        if move not in self.legal_moves():
            raise IllegalMoveError(f"cannot take {move} now: {self.stones} left")
        return move

    def status_lines(self, player: int | None = None) -> list[str]:
        if self.is_terminal():
            return [_(M.TOOK_LAST).format(name=self.game.player_names()[self.winners()[0]])]
        return [_(M.STONES_LEFT).format(stones=self.stones)]

    def move_hint(self, player: int | None = None) -> str:
        return _(M.TAKE)

    def __str__(self) -> str:
        return "o" * self.stones
