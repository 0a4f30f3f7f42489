"""Spagyric's action numbers, observation features and views (see :mod:`spheria.kernel.codec`).

33 actions: ``0, 1, 2`` choose white, black or red at a reveal; ``3 + site`` places the won
ball on ``site``. Every feature and every view is built from ``observation(player)`` (or the
spectator's ``public_observation()``) alone, so it holds nothing that seat may not see.

>>> import spheria
>>> from spheria.kernel.codec import codec_for
>>> codec = codec_for(spheria.load_game("spagyric", supply=1))
>>> [codec.action_text(a) for a in (0, 1, 2, 3, 32)], codec.max_game_length()
(['w', 'b', 'r', '0a1', '3a1'], 7)
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from spheria.engine.board import COLOR_CHARS, NUM_SITES, SITE_NAMES, Board
from spheria.games.spagyric.rules import Choice, Place
from spheria.kernel.codec import BOARD_SHAPE, Codec, Layout, Private, board_features, one_hot
from spheria.kernel.game import IllegalMoveError, State

SPAGYRIC_PLACE_BASE = 3
SPAGYRIC_ACTIONS = SPAGYRIC_PLACE_BASE + NUM_SITES
SPAGYRIC_PHASES = ("reveal", "place", "sudden", "over")
#: One turn in an information-state tensor: its stuns by colour (as fractions of the supply), the
#: deciding reveal (3 x 3 colours: seat 0's * 3 + seat 1's) and the placement (30 sites).
SPAGYRIC_HISTORY_ENTRY = 3 + 9 + NUM_SITES


#: The most balls a pyramid holds with no same-colour group of three or more (see
#: :mod:`spheria.games.spagyric.rules`): the placement after that many always ends the game.
SPAGYRIC_MAX_QUIET_BALLS = 27
#: Above this supply the exact bound below is too slow to compute, and the simple one is used.
SPAGYRIC_EXACT_BOUND_SUPPLY = 10

Hands = tuple[int, int, int]


def spagyric_max_length(supply: int, hands: tuple[Hands, Hands] | None = None, placed: int = 0) -> int:
    """The most record entries (reveals and placements) a Spagyric game can still have.

    ``hands`` are both seats' balls by colour at the start of a turn (each ``supply`` of every
    colour by default) and ``placed`` the balls already on the pyramid. A turn is some stuns,
    one reveal of two different colours and a placement; each takes one ball from each seat
    for good (stunned balls come back), and the game is over by the placement that brings the
    pyramid past :data:`SPAGYRIC_MAX_QUIET_BALLS`, or by a draw when the hands run out (all
    stuns). The stuns of a turn are at most the same-colour pairs left beside the decisive
    pair, so the bound follows both hands through every turn (exact over the hands; the board
    only caps the number of turns). Supplies above :data:`SPAGYRIC_EXACT_BOUND_SUPPLY` use the
    simple bound: a seat holding ``h`` balls makes at most ``h - 1`` stuns in a turn.
    """
    start = hands or ((supply,) * 3, (supply,) * 3)
    turns_left = max(SPAGYRIC_MAX_QUIET_BALLS + 1 - placed, 0)
    if supply > SPAGYRIC_EXACT_BOUND_SUPPLY:
        balls = sum(start[0])
        return sum(balls - turn + 1 for turn in range(min(balls, turns_left)))
    return _most_entries(_canonical_hands(start[0], start[1]), turns_left)


def _canonical_hands(first: Hands, second: Hands) -> tuple[Hands, Hands]:
    """The same hands up to colour renaming and seat swapping (the bound cannot tell them apart)."""
    forms = []
    for order in itertools.permutations(range(3)):
        a = (first[order[0]], first[order[1]], first[order[2]])
        b = (second[order[0]], second[order[1]], second[order[2]])
        forms += [(a, b), (b, a)]
    return min(forms)


@functools.lru_cache(maxsize=1 << 16)
def _most_entries(hands: tuple[Hands, Hands], turns_left: int) -> int:
    first, second = hands
    best = sum(first) if first == second else 0  # stun every pair, then a draw
    if turns_left == 0:
        return best
    for x in range(3):
        for y in range(3):
            if x == y or not first[x] or not second[y]:
                continue
            a = tuple(n - (c == x) for c, n in enumerate(first))
            b = tuple(n - (c == y) for c, n in enumerate(second))
            stuns = sum(min(a[c], b[c]) for c in range(3))
            after = _most_entries(_canonical_hands(a, b), turns_left - 1)  # type: ignore[arg-type]
            best = max(best, stuns + 2 + after)
    return best


class SpagyricCodec(Codec):
    """Spagyric's actions, and features built from ``observation(player)`` (or the spectator's view)."""

    num_actions = SPAGYRIC_ACTIONS
    seat_blocks = frozenset({"to_move", "observer", "to_decide", "placer", "hands"})

    def action_of(self, state: State[Any], move: Any) -> int:
        if isinstance(move, Choice):
            return int(move.color)
        if isinstance(move, Place):
            return SPAGYRIC_PLACE_BASE + int(move.site)
        raise IllegalMoveError(f"{move!r} is one seat's choice or a placement, not a joint reveal")

    def decode(self, state: State[Any], action: int) -> Any:
        if 0 <= action < SPAGYRIC_PLACE_BASE:
            return Choice(action)
        if SPAGYRIC_PLACE_BASE <= action < SPAGYRIC_ACTIONS:
            return Place(action - SPAGYRIC_PLACE_BASE)
        raise IllegalMoveError(f"action {action} is not 0..{SPAGYRIC_ACTIONS - 1}")

    def action_text(self, action: int) -> str:
        if 0 <= action < SPAGYRIC_PLACE_BASE:
            return COLOR_CHARS[action]
        if SPAGYRIC_PLACE_BASE <= action < SPAGYRIC_ACTIONS:
            return SITE_NAMES[action - SPAGYRIC_PLACE_BASE]
        return f"action {action}"

    def max_game_length(self, start: State[Any] | None = None) -> int:
        """The most reveals and placements from ``start`` (the first position by default)."""
        supply = int(self.game.options["supply"])
        if start is None:
            return spagyric_max_length(supply)
        hands, placed, placing = self._start_facts(start)
        return placing + spagyric_max_length(supply, hands, placed)

    def actions_of_entry(self, state: State[Any], entry: str) -> list[int]:
        if ":" in entry:
            return [COLOR_CHARS.index(color) for color in entry.split(":")]
        return [SPAGYRIC_PLACE_BASE + SITE_NAMES.index(entry)]

    def history_rows(self, start: State[Any] | None = None) -> int:
        """The most turns from ``start``: one row each in the information-state tensor."""
        if start is None:
            return min(3 * int(self.game.options["supply"]), SPAGYRIC_MAX_QUIET_BALLS + 1) + 1
        hands, placed, placing = self._start_facts(start)
        return min(sum(hands[0]), SPAGYRIC_MAX_QUIET_BALLS + 1 - placed) + placing + 1

    @staticmethod
    def _start_facts(start: State[Any]) -> tuple[tuple[Hands, Hands], int, int]:
        """Both hands with the stunned balls back, the balls placed, and 1 if a placement is due."""
        state: Any = start
        stunned = state.stunned if state.phase != "sudden" else [0, 0, 0]
        hands = tuple(
            (state.supply[p][0] + stunned[0], state.supply[p][1] + stunned[1], state.supply[p][2] + stunned[2])
            for p in (0, 1)
        )
        return (hands[0], hands[1]), state.board.count(), int(state.phase == "place")

    @property
    def layout(self) -> Layout:
        return (
            ("board", BOARD_SHAPE),
            ("phase", (len(SPAGYRIC_PHASES),)),
            ("to_decide", (2,)),
            ("placer", (2,)),
            ("placing", (3,)),
            ("stunned", (3,)),
            ("supply", (3,)),
            ("hands", (2,)),
            ("observer", (2,)),
        )

    def history_layout(self, rows: int) -> Layout:
        """The extra block of the information-state features: ``rows`` turns (see :meth:`history_rows`)."""
        return (("history", (rows, SPAGYRIC_HISTORY_ENTRY)),)

    def features(self, state: State[Any], player: int) -> list[float]:
        return self.features_from_observation(state.observation(player))

    def features_from_observation(self, observation: Mapping[str, Any]) -> list[float]:
        """The features of a seat's ``observation(player)``, or of ``public_observation()``.

        Counts are fractions: the supply per colour and the stunned pairs of ``supply``
        balls, the balls in hand of ``3 * supply``. ``supply`` is the observer's own balls by
        colour (zeros for a spectator); ``hands`` is the balls in hand of seat 0 and seat 1.
        """
        per_color = float(observation["supply_per_color"])
        player = observation["player"]
        if player is None:
            hands = [float(n) for n in observation["supplies"]]
            own = [0.0, 0.0, 0.0]
        else:
            mine = observation["supply"]
            own = [mine[c] / per_color for c in COLOR_CHARS]
            hands = [0.0, 0.0]
            hands[player] = float(sum(mine.values()))
            hands[1 - player] = float(observation["opponent_supply"])
        stunned = observation["stunned"]
        placing = observation["placing"]
        return [
            *board_features(Board.from_spn(observation["board"])),
            *one_hot(SPAGYRIC_PHASES.index(observation["phase"]), len(SPAGYRIC_PHASES)),
            *[1.0 if seat in observation["to_decide"] else 0.0 for seat in (0, 1)],
            *one_hot(observation["placer"], 2),
            *one_hot(None if placing is None else COLOR_CHARS.index(placing), 3),
            *[min(stunned[c] / per_color, 1.0) for c in COLOR_CHARS],
            *own,
            *[n / (3 * per_color) for n in hands],
            *one_hot(player, 2),
        ]

    def history_features(self, history: Sequence[str], rows: int) -> list[float]:
        """The history block from the record entries (``w:w``, ``w:b``, ``0a1``): row ``t`` is
        turn ``t``: its stuns counted by colour (fractions of the supply; their order within
        the turn is in the information-state string, not here), its deciding reveal one-hot
        over seat 0's colour * 3 + seat 1's, and its placement one-hot over the 30 sites."""
        per_color = float(self.game.options["supply"])
        values = [0.0] * (rows * SPAGYRIC_HISTORY_ENTRY)
        turn = 0
        for entry in history:
            if turn >= rows:
                raise ValueError(f"a history of more than {rows} turns: the bound is wrong")
            base = turn * SPAGYRIC_HISTORY_ENTRY
            if ":" in entry:
                first, second = (COLOR_CHARS.index(c) for c in entry.split(":"))
                if first == second:
                    values[base + first] += 1.0 / per_color
                else:
                    values[base + 3 + first * 3 + second] = 1.0
            else:
                values[base + 12 + SITE_NAMES.index(entry)] = 1.0
                turn += 1
        return values

    def observation_text(self, state: State[Any], player: int) -> str:
        return self.text_from_observation(state.observation(player))

    @staticmethod
    def text_from_observation(observation: Mapping[str, Any], with_history: bool = False) -> str:
        """One line of what the observation shows (its history too if ``with_history``)."""

        def counts(by_color: dict[str, int]) -> str:
            return ",".join(str(by_color[c]) for c in COLOR_CHARS)

        player = observation["player"]
        placer = observation["placer"]
        parts = [
            observation["board"],
            observation["phase"],
            "deciding " + ("".join(str(seat + 1) for seat in observation["to_decide"]) or "-"),
            "placing " + ("-" if placer is None else f"{placer + 1}{observation['placing']}"),
            "stunned " + counts(observation["stunned"]),
        ]
        if player is None:
            parts.append("spectator; hands " + ",".join(str(n) for n in observation["supplies"]))
        else:
            parts.append(f"seat {player + 1}; supply {counts(observation['supply'])}")
            parts.append(f"opponent holds {observation['opponent_supply']}")
        if with_history:
            parts.append("history " + (" ".join(observation.get("history", [])) or "-"))
        return "; ".join(parts)

    # -- the views (OpenSpiel's observations and information states) -------------------------------

    def view_layout(self, private: Private, rows: int) -> Layout:
        """The position's blocks; with every seat's private information, both seats' supplies by
        colour (what the two seats know between them); with ``rows``, the history block."""
        layout = self.layout
        if private is Private.ALL:
            layout = (*layout, ("supplies", (2, 3)))
        if rows:
            layout = (*layout, *self.history_layout(rows))
        return layout

    def _view(self, state: State[Any], player: int, private: Private) -> dict[str, Any]:
        """The seat's own ``observation(player)``; the spectator's ``public_observation()``; or
        that with both seats' supplies by colour."""
        if private is Private.SEAT:
            return dict(state.observation(player))
        observation: dict[str, Any] = dict(state.public_observation())
        if private is Private.ALL:
            observation["supplies_by_color"] = [state.observation(seat)["supply"] for seat in (0, 1)]  # type: ignore[typeddict-item]
        return observation

    def view_features(self, state: State[Any], player: int, private: Private, rows: int) -> list[float]:
        """The position's features as :meth:`features_from_observation`, both supplies by colour
        (fractions of the supply) if ``private`` is every seat's, then :meth:`history_features`."""
        observation = self._view(state, player, private)
        values = self.features_from_observation(observation)
        if "supplies_by_color" in observation:
            per_color = float(observation["supply_per_color"])
            values += [hand[c] / per_color for hand in observation["supplies_by_color"] for c in COLOR_CHARS]
        if rows:
            values += self.history_features(state.history_notation(), rows)
        return values

    def view_text(self, state: State[Any], player: int, private: Private, rows: int) -> str:
        observation = self._view(state, player, private)
        if rows:
            observation["history"] = state.history_notation()
        text = self.text_from_observation(observation, with_history=bool(rows))
        if "supplies_by_color" in observation:
            hands = " ".join(",".join(str(hand[c]) for c in COLOR_CHARS) for hand in observation["supplies_by_color"])
            text += f"; supplies {hands}"
        return text


__all__ = ["SPAGYRIC_ACTIONS", "SPAGYRIC_HISTORY_ENTRY", "SPAGYRIC_PLACE_BASE", "SpagyricCodec", "spagyric_max_length"]
