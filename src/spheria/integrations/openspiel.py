"""Spheria's games as OpenSpiel Python games (``pip install 'spheria[openspiel]'``).

Importing this module registers four games with ``pyspiel``:

======================== ====================================================== ===========
OpenSpiel name           parameters (default)                                   dynamics
======================== ====================================================== ===========
``spheria_special_cake`` ``variant`` (mint), ``line_rule`` (auto: the variant's  sequential
                         default), ``cakes`` (1000), ``start`` ("")
``spheria_spinca``       ``players`` (2), ``start`` ("")                         sequential
``spheria_spline``       ``start`` ("")                                         sequential
``spheria_spagyric``     ``supply`` (8), ``start`` ("")                          simultaneous
======================== ====================================================== ===========

* Actions are the fixed numbers of :mod:`spheria.integrations.encoding`.
* ``start`` is a Spheria SPN to start from instead of the usual first position, written
  with ``;`` for every ``,`` (a comma would end the parameter in an OpenSpiel game string).
* Sugar cakes are drawn at a chance node: outcome ``k`` of ``cakes`` equally likely ones is
  Spheria's sugar cake for seed ``k``. With a ``start`` there is no chance node.
* Spagyric is a 2-player ``SIMULTANEOUS``, ``IMPERFECT_INFORMATION`` game: both players pick a
  colour at a reveal (``state.apply_actions([a0, a1])``), the winner of a reveal places alone.
  Its observation and information-state strings and tensors are built from Spheria's
  ``observation(player)`` only; the observation is the memoryless view, the information state
  adds the public history of reveals and placements (Spheria's ``memory`` option is therefore
  not a parameter here: the information state always remembers).
* States serialise (``pyspiel.serialize_game_and_state``, ``pickle``) as the Spheria game, its
  start and its record entries, so a state is rebuilt by replaying its moves.

>>> import pyspiel
>>> import spheria.integrations.openspiel
>>> game = pyspiel.load_game("spheria_spline")
>>> state = game.new_initial_state()
>>> state.apply_action(state.legal_actions()[0])
>>> state.observation_string(1)
'w.............../........./..../. 2'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyspiel

from spheria.games.base import SIMULTANEOUS, TERMINAL, Game, State, load_game
from spheria.integrations.encoding import Codec, Layout, SpagyricCodec, codec_for, layout_size

#: The OpenSpiel short name of each Spheria game.
GAME_NAMES: dict[str, str] = {
    "special-cake": "spheria_special_cake",
    "spinca": "spheria_spinca",
    "spline": "spheria_spline",
    "spagyric": "spheria_spagyric",
}

_PARAMETERS: dict[str, dict[str, Any]] = {
    "special-cake": {"variant": "mint", "line_rule": "auto", "cakes": 1000, "start": ""},
    "spinca": {"players": 2, "start": ""},
    "spline": {"start": ""},
    "spagyric": {"supply": 8, "start": ""},
}

_TITLES = {"special-cake": "Special Cake", "spinca": "Spinca", "spline": "Spline", "spagyric": "Spagyric"}
_PLAYERS = {"special-cake": (2, 2), "spinca": (2, 4), "spline": (2, 2), "spagyric": (2, 2)}

Dynamics = pyspiel.GameType.Dynamics
ChanceMode = pyspiel.GameType.ChanceMode
Information = pyspiel.GameType.Information
Utility = pyspiel.GameType.Utility


def _game_type(name: str, *, chance: bool, zero_sum: bool) -> Any:
    simultaneous = name == "spagyric"
    low, high = _PLAYERS[name]
    return pyspiel.GameType(
        short_name=GAME_NAMES[name],
        long_name=f"Spheria {_TITLES[name]}",
        dynamics=Dynamics.SIMULTANEOUS if simultaneous else Dynamics.SEQUENTIAL,
        chance_mode=ChanceMode.EXPLICIT_STOCHASTIC if chance else ChanceMode.DETERMINISTIC,
        information=Information.IMPERFECT_INFORMATION if simultaneous else Information.PERFECT_INFORMATION,
        utility=Utility.ZERO_SUM if zero_sum else Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=high,
        min_num_players=low,
        provides_information_state_string=True,
        provides_information_state_tensor=simultaneous,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_PARAMETERS[name],
    )


def spn_parameter(spn: str) -> str:
    """A Spheria SPN written as a ``start`` parameter (``,`` becomes ``;``)."""
    return spn.replace(",", ";")


# -- the Spheria state inside an OpenSpiel state ---------------------------------------------


class _Held:
    """The Spheria state behind an OpenSpiel state.

    OpenSpiel clones a Python state by deep-copying its attributes and serialises it by
    pickling them; this holder makes a deep copy a Spheria ``clone()`` and a pickle the game,
    the start and the record entries (replayed on loading).
    """

    __slots__ = ("_state", "explicit", "game", "origin", "pending_chance")

    def __init__(self, game: Game, start: str | None, pending_chance: bool) -> None:
        self.game = game
        self.explicit = start is not None  # started from a given SPN
        self.origin = start or ""  # the SPN the game started from (set when the state is made)
        self.pending_chance = pending_chance  # a sugar cake still to be drawn
        self._state: State[Any] | None = None

    @property
    def state(self) -> State[Any]:
        """The Spheria state (made on first use, so a state made only to be overwritten costs nothing)."""
        if self._state is None:
            if self.pending_chance:
                raise ValueError("the sugar cake is not drawn yet (a chance node)")
            self._state = self.game.state_from_spn(self.origin) if self.explicit else self.game.new_initial_state()
            self.origin = self._state.to_spn()
        return self._state

    def draw(self, seed: int) -> None:
        """Resolve the chance node: the sugar cake of ``seed``."""
        self._state = self.game.new_initial_state(seed=seed)
        self.origin = self._state.to_spn()
        self.pending_chance = False

    def __deepcopy__(self, memo: dict[int, Any]) -> _Held:
        copy = _Held.__new__(_Held)
        copy.game, copy.explicit, copy.origin, copy.pending_chance = (
            self.game,
            self.explicit,
            self.origin,
            self.pending_chance,
        )
        copy._state = None if self._state is None else self._state.clone()
        return copy

    def __reduce__(self) -> tuple[Callable[..., _Held], tuple[Any, ...]]:
        state = self._state
        seed = None if state is None else state.seed
        entries = [] if state is None else state.history_notation()
        made = state is not None
        return (
            _restore,
            (
                self.game.name,
                dict(self.game.options),
                self.explicit,
                self.origin,
                self.pending_chance,
                seed,
                made,
                entries,
            ),
        )


def _restore(
    name: str,
    options: dict[str, Any],
    explicit: bool,
    origin: str,
    pending_chance: bool,
    seed: int | None,
    made: bool,
    entries: list[str],
) -> _Held:
    held = _Held(load_game(name, **options), origin if explicit else None, pending_chance)
    if made:
        state = held.game.state_from_spn(origin) if explicit else held.game.new_initial_state(seed=seed)
        for entry in entries:
            state.apply_notation(entry)
        held._state = state
        held.origin = origin
    return held


# -- games and states -----------------------------------------------------------------------


class SpheriaGame(pyspiel.Game):  # type: ignore[misc]
    """One Spheria game as an OpenSpiel game; subclasses fix which (:attr:`spheria_name`)."""

    spheria_name: str = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        name = self.spheria_name
        given = {**_PARAMETERS[name], **(params or {})}
        unknown = sorted(set(given) - set(_PARAMETERS[name]))
        if unknown:
            raise ValueError(f"{GAME_NAMES[name]} has no parameter {', '.join(unknown)}")
        options: dict[str, Any] = {k: v for k, v in given.items() if k not in ("start", "cakes")}
        if options.get("line_rule") == "auto":
            options["line_rule"] = None
        if name == "spagyric":
            options["memory"] = False  # the information state remembers; observations drop the history
        self.spheria: Game = load_game(name, **options)
        self.codec: Codec = codec_for(self.spheria)
        start = str(given["start"]).replace(";", ",").strip()
        self.start: str | None = start or None
        if self.start is not None:
            self.spheria.state_from_spn(self.start)  # a bad start fails now, naming the problem
        self.cakes = int(given.get("cakes", 0))
        self.chance = name == "special-cake" and self.spheria.options["variant"] == "sugar" and self.start is None
        if self.chance and self.cakes < 1:
            raise ValueError("cakes must be at least 1")
        seats = self.spheria.num_players
        zero_sum = seats != 3  # 2 players, or two teams of two: the returns add up to 0
        info = pyspiel.GameInfo(
            num_distinct_actions=self.codec.num_actions,
            max_chance_outcomes=self.cakes if self.chance else 0,
            num_players=seats,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=self.codec.max_game_length(),
        )
        shown = {k: v for k, v in self.spheria.options.items() if k != "memory"}
        if self.chance:
            shown["cakes"] = self.cakes
        if self.start is not None:
            shown["start"] = spn_parameter(self.start)
        super().__init__(_game_type(name, chance=self.chance, zero_sum=zero_sum), info, shown)

    def new_initial_state(self, spn: str | None = None) -> SpheriaState:
        """The first position, or the Spheria position ``spn`` (``,`` or ``;`` in it)."""
        if spn is not None:
            if not isinstance(spn, str):
                raise TypeError("a Spheria state is made from an SPN string")
            text = spn.replace(";", ",").strip()
            self.spheria.state_from_spn(text)
            return SpheriaState(self, _Held(self.spheria, text, False))
        return SpheriaState(self, _Held(self.spheria, self.start, self.chance))

    def make_py_observer(self, iig_obs_type: Any = None, params: dict[str, Any] | None = None) -> Any:
        """The observer for an observation type (OpenSpiel calls this for observations and information states)."""
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        if isinstance(self.codec, SpagyricCodec):
            private = pyspiel.PrivateInfoType.SINGLE_PLAYER if iig_obs_type is None else iig_obs_type.private_info
            if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
                raise ValueError("Spagyric observers show one seat's private information, or none")
            return SpagyricObserver(self.codec, perfect_recall, private == pyspiel.PrivateInfoType.SINGLE_PLAYER)
        if perfect_recall:
            return HistoryObserver()
        return BoardObserver(self.codec)


class SpheriaState(pyspiel.State):  # type: ignore[misc]
    """An OpenSpiel state around a Spheria state (:attr:`spheria`)."""

    def __init__(self, game: SpheriaGame, held: _Held) -> None:
        super().__init__(game)
        self._held = held

    @property
    def spheria(self) -> State[Any]:
        """The Spheria state (read it; play through OpenSpiel's calls so the history stays right)."""
        return self._held.state

    @property
    def codec(self) -> Codec:
        game: SpheriaGame = self.get_game()
        return game.codec

    def current_player(self) -> int:
        if self._held.pending_chance:
            return int(pyspiel.PlayerId.CHANCE)
        player = self._held.state.current_player()
        if player == TERMINAL:
            return int(pyspiel.PlayerId.TERMINAL)
        if player == SIMULTANEOUS:
            return int(pyspiel.PlayerId.SIMULTANEOUS)
        return player

    def _legal_actions(self, player: int) -> list[int]:
        return self.codec.legal_actions(self._held.state, player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self._held.pending_chance:
            return []
        cakes: int = self.get_game().cakes
        return [(k, 1.0 / cakes) for k in range(cakes)]

    def _apply_action(self, action: int) -> None:
        if self._held.pending_chance:
            self._held.draw(int(action))
            return
        state = self._held.state
        state.apply(self.codec.legal_move(state, state.current_player(), int(action)))

    def _apply_actions(self, actions: Sequence[int]) -> None:
        state = self._held.state
        codec = self.codec
        state.apply_joint([codec.legal_move(state, seat, int(a)) for seat, a in enumerate(actions)])

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"cake {action}"
        return self.codec.action_text(int(action))

    def is_terminal(self) -> bool:
        return not self._held.pending_chance and self._held.state.is_terminal()

    def returns(self) -> list[float]:
        if self._held.pending_chance:
            return [0.0] * self.get_game().num_players()
        return [float(r) for r in self._held.state.returns()]

    def __str__(self) -> str:
        if self._held.pending_chance:
            return "sugar cake not drawn yet"
        return self._held.state.to_spn()


# -- observers --------------------------------------------------------------------------------


def _views(tensor: Any, layout: Layout) -> dict[str, Any]:
    views = {}
    offset = 0
    for name, shape in layout:
        size = layout_size(((name, shape),))
        views[name] = tensor[offset : offset + size].reshape(shape)
        offset += size
    return views


class BoardObserver:
    """A perfect-information game's observation: the features and the SPN of the position."""

    def __init__(self, codec: Codec) -> None:
        self.codec = codec
        self.tensor = np.zeros(codec.feature_size, np.float32)
        self.dict = _views(self.tensor, codec.layout)

    def set_from(self, state: SpheriaState, player: int) -> None:
        if state._held.pending_chance:
            self.tensor.fill(0.0)
            return
        self.tensor[:] = self.codec.features(state._held.state, player)

    def string_from(self, state: SpheriaState, player: int) -> str:
        return str(state)


class HistoryObserver:
    """A perfect-information game's information state: the start and every move since (no tensor)."""

    tensor = None

    def __init__(self) -> None:
        self.dict: dict[str, Any] = {}

    def set_from(self, state: SpheriaState, player: int) -> None:
        pass

    def string_from(self, state: SpheriaState, player: int) -> str:
        if state._held.pending_chance:
            return "cake to draw"
        held = state._held
        moves = held.state.history_notation()
        return f"{held.origin} | {' '.join(moves)}" if moves else held.origin


class SpagyricObserver:
    """What one Spagyric seat (or a spectator) sees, from ``observation(player)`` (``public_observation()``).

    Without perfect recall: the position now (board, phase, the revealed ball, stunned balls,
    the seat's own supply, both hands' sizes). With it, also the public history of reveals
    and placements, which is everything a player has seen.
    """

    def __init__(self, codec: SpagyricCodec, perfect_recall: bool, private: bool) -> None:
        self.codec = codec
        self.perfect_recall = perfect_recall
        self.private = private
        layout = codec.layout + codec.history_layout if perfect_recall else codec.layout
        self.tensor = np.zeros(layout_size(layout), np.float32)
        self.dict = _views(self.tensor, layout)

    def _observation(self, state: SpheriaState, player: int) -> dict[str, Any]:
        spheria: Any = state._held.state  # a SpagyricState: it also has public_observation()
        observation: dict[str, Any] = spheria.observation(player) if self.private else spheria.public_observation()
        return observation

    def set_from(self, state: SpheriaState, player: int) -> None:
        observation = self._observation(state, player)
        values = self.codec.features_from_observation(observation)
        if self.perfect_recall:
            values += self.codec.history_features(observation["history"])
        self.tensor[:] = values

    def string_from(self, state: SpheriaState, player: int) -> str:
        return self.codec.text_from_observation(self._observation(state, player), with_history=self.perfect_recall)


# -- registration -----------------------------------------------------------------------------


def _game_class(name: str) -> type[SpheriaGame]:
    class_name = "".join(part.title() for part in name.split("-")) + "OpenSpielGame"
    return type(class_name, (SpheriaGame,), {"spheria_name": name, "__module__": __name__})


#: The OpenSpiel game class of each Spheria game.
GAME_CLASSES: dict[str, type[SpheriaGame]] = {name: _game_class(name) for name in GAME_NAMES}

_REGISTERED = set(pyspiel.registered_names())
for _name, _class in GAME_CLASSES.items():
    if GAME_NAMES[_name] not in _REGISTERED:  # registering a name twice is an error in OpenSpiel
        pyspiel.register_game(_game_type(_name, chance=_name == "special-cake", zero_sum=_name != "spinca"), _class)


def load(name: str, **params: Any) -> Any:
    """``pyspiel.load_game`` by Spheria name: ``load("special-cake", variant="sugar")``."""
    try:
        short_name = GAME_NAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r} (games: {', '.join(GAME_NAMES)})") from None
    return pyspiel.load_game(short_name, params)


__all__ = ["GAME_CLASSES", "GAME_NAMES", "SpheriaGame", "SpheriaState", "load", "spn_parameter"]
