"""Spheria's games as OpenSpiel Python games (``pip install 'spheria[openspiel]'``).

Importing this module registers every Spheria game with ``pyspiel``, one registration per
game type (see docs/openspiel.md), derived from ``Game.info()``: ``spheria_special_cake``,
``spheria_special_cake_sugar`` (the cake drawn at a chance node), ``spheria_spinca`` (2 or 4
seats, zero-sum), ``spheria_spinca_3`` (general-sum), ``spheria_spline``, ``spheria_spagyric``.

* Actions are the fixed numbers of :mod:`spheria.integrations.encoding`, written and read in
  Spheria's notation (``state.string_to_action("0a1+1a1")``).
* ``start`` is a Spheria SPN to start from instead of the usual first position, written
  with ``;`` for every ``,`` (a comma would end the parameter in an OpenSpiel game string).
* Spagyric is a 2-player ``SIMULTANEOUS``, ``IMPERFECT_INFORMATION`` game: both players pick a
  colour at a reveal (``apply_actions([a0, a1])`` or a flat joint action), the winner places
  alone (the idle seat's action is ignored there). Its observations and information states
  are built from Spheria's ``observation(player)`` only; :func:`resampler` lets OpenSpiel's
  ISMCTS search it without seeing a secret.
* Games pickle as their game string; states serialise (``pyspiel.serialize_game_and_state``,
  ``pickle``) as the Spheria game, its start and its record entries.

>>> import pyspiel
>>> import spheria.integrations.openspiel
>>> game = pyspiel.load_game("spheria_spline")
>>> state = game.new_initial_state()
>>> state.apply_action(state.legal_actions()[0])
>>> state.observation_string(1)
'w.............../........./..../. 2'
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyspiel

from spheria.games.spagyric.worlds import sample_origin
from spheria.integrations.encoding import Codec, Layout, SpagyricCodec, codec_for, layout_size
from spheria.kernel.game import SIMULTANEOUS, TERMINAL, Game, IllegalMoveError, InvalidMoveError, State
from spheria.kernel.options import Option
from spheria.kernel.registry import game_class, game_names, load_game

Dynamics = pyspiel.GameType.Dynamics
ChanceMode = pyspiel.GameType.ChanceMode
Information = pyspiel.GameType.Information
Utility = pyspiel.GameType.Utility

#: The parameter every registration has: a Spheria position to start from.
START = "start"
#: The parameter of a registration whose first position is drawn at a chance node.
CHANCE_OUTCOMES = "cakes"
DEFAULT_CHANCE_OUTCOMES = 1000
#: OpenSpiel cannot hold ``None``: an option whose default depends on other options is written so.
AUTO = "auto"


# -- what each registration is, derived from the Spheria games ------------------------------------


@dataclass(frozen=True)
class Facts:
    """What OpenSpiel's ``GameType`` says of one loaded Spheria game."""

    chance: bool  # the first position is drawn at random
    simultaneous: bool
    perfect_information: bool
    zero_sum: bool


def _facts(game: Game) -> Facts:
    info = game.info()
    return Facts(info.chance, info.simultaneous, info.perfect_information, info.zero_sum)


@dataclass(frozen=True)
class Registration:
    """One OpenSpiel game: a Spheria game with some options fixed, all of whose settings share one type."""

    short_name: str
    spheria_name: str
    fixed: Mapping[str, Any]
    facts: Facts
    seat_range: tuple[int, int]
    parameters: Mapping[str, Any] = field(default_factory=dict)

    @property
    def title(self) -> str:
        title = game_class(self.spheria_name).title
        extra = ", ".join(f"{k}={v}" for k, v in self.fixed.items())
        return f"Spheria {title}" + (f" ({extra})" if extra else "")

    def game_type(self) -> Any:
        facts = self.facts
        return pyspiel.GameType(
            short_name=self.short_name,
            long_name=self.title,
            dynamics=Dynamics.SIMULTANEOUS if facts.simultaneous else Dynamics.SEQUENTIAL,
            chance_mode=ChanceMode.EXPLICIT_STOCHASTIC if facts.chance else ChanceMode.DETERMINISTIC,
            information=Information.PERFECT_INFORMATION
            if facts.perfect_information
            else Information.IMPERFECT_INFORMATION,
            utility=Utility.ZERO_SUM if facts.zero_sum else Utility.GENERAL_SUM,
            reward_model=pyspiel.GameType.RewardModel.TERMINAL,
            max_num_players=self.seat_range[1],
            min_num_players=self.seat_range[0],
            provides_information_state_string=True,
            provides_information_state_tensor=not facts.perfect_information,
            provides_observation_string=True,
            provides_observation_tensor=True,
            parameter_specification=dict(self.parameters),
        )


#: Whole-number options with at most this many values are tried one by one for their game type.
_FEW_VALUES = 8


def _tried_values(spec: Option) -> list[Any] | None:
    """The values of an option that may change the game type, or ``None`` for an option that
    cannot (a number over a wide range, a yes/no)."""
    if spec.kind is bool:
        return None
    if spec.choices:
        values: list[Any] = list(spec.choices)
    elif spec.kind is int and spec.minimum is not None and spec.maximum is not None:
        if spec.maximum - spec.minimum >= _FEW_VALUES:
            return None
        values = list(range(int(spec.minimum), int(spec.maximum) + 1))
    else:
        return None
    return [None, *values] if spec.default is None else values


def _registrations(name: str) -> list[Registration]:
    """The registrations of one Spheria game: one per distinct game type over its option choices.

    The type of the game with default options keeps the plain name ``spheria_<game>``; every
    other type gets the options that make it fixed, in its name (``spheria_special_cake_sugar``).
    Options without a list of choices (a number such as Spagyric's supply) never change the type.
    """
    tried = {spec.name: _tried_values(spec) for spec in game_class(name).option_specs}
    specs = [spec for spec in game_class(name).option_specs if tried[spec.name] is not None]
    by_facts: dict[Facts, list[dict[str, Any]]] = {}
    for values in itertools.product(*(tried[spec.name] or [] for spec in specs)):
        options = {spec.name: value for spec, value in zip(specs, values, strict=True)}
        by_facts.setdefault(_facts(load_game(name, **options)), []).append(options)
    default_facts = _facts(load_game(name))
    base = "spheria_" + name.replace("-", "_")
    registrations = []
    for facts, settings in by_facts.items():
        fixed = {} if facts == default_facts else _fixed_options(settings, by_facts)
        short_name = base + "".join(f"_{v}" for v in fixed.values())
        seats = [load_game(name, **options).num_players for options in settings]
        parameters = _parameters(name, fixed, facts)
        registrations.append(Registration(short_name, name, fixed, facts, (min(seats), max(seats)), parameters))
    return registrations


def _fixed_options(settings: list[dict[str, Any]], by_facts: dict[Facts, list[dict[str, Any]]]) -> dict[str, Any]:
    """The options (fewest first) whose values single out these settings among all the game's."""
    others = [options for group in by_facts.values() if group is not settings for options in group]
    names = list(settings[0])
    for size in range(1, len(names) + 1):
        for chosen in itertools.combinations(names, size):
            values = {tuple(options[n] for n in chosen) for options in settings}
            if len(values) == 1 and all(tuple(o[n] for n in chosen) not in values for o in others):
                return dict(zip(chosen, values.pop(), strict=True))
    raise ValueError("no options single out one game type")  # cannot happen: the settings differ


def _parameters(name: str, fixed: Mapping[str, Any], facts: Facts) -> dict[str, Any]:
    parameters: dict[str, Any] = {}
    for spec in game_class(name).option_specs:
        if spec.name in fixed or spec.name == "memory":  # the information state always remembers
            continue
        parameters[spec.name] = AUTO if spec.default is None else spec.default
    if facts.chance:
        parameters[CHANCE_OUTCOMES] = DEFAULT_CHANCE_OUTCOMES
    else:
        parameters[START] = ""
    return parameters


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


def _load_from_string(text: str) -> Any:
    """What a pickled game unpickles through: ``pyspiel.load_game`` of its game string."""
    return pyspiel.load_game(text)


class SpheriaGame(pyspiel.Game):  # type: ignore[misc]
    """One Spheria game as an OpenSpiel game; each registered subclass fixes :attr:`registration`."""

    registration: Registration

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        registration = self.registration
        given = {**registration.parameters, **(params or {})}
        unknown = sorted(set(given) - set(registration.parameters))
        if unknown:
            known = ", ".join(registration.parameters)
            raise ValueError(f"{registration.short_name} has no parameter {', '.join(unknown)} (parameters: {known})")
        options: dict[str, Any] = {
            k: None if v == AUTO else v for k, v in given.items() if k not in (START, CHANCE_OUTCOMES)
        }
        options.update(registration.fixed)
        specs = {spec.name for spec in game_class(registration.spheria_name).option_specs}
        if "memory" in specs:
            options["memory"] = False  # the information state remembers; observations drop the history
        self.spheria: Game = load_game(registration.spheria_name, **options)
        self.codec: Codec = codec_for(self.spheria)
        start = str(given.get(START, "")).replace(";", ",").strip()
        self.start: str | None = start or None
        first = None if self.start is None else self.spheria.state_from_spn(self.start)  # a bad start fails here
        self._check_type(options, first is not None)
        self.chance = registration.facts.chance
        self.cakes = int(given.get(CHANCE_OUTCOMES, 0))
        if self.chance and self.cakes < 1:
            raise ValueError(f"{CHANCE_OUTCOMES} must be at least 1")
        self.history_rows = self.codec.history_rows(first) if isinstance(self.codec, SpagyricCodec) else 0
        seats = self.spheria.num_players
        info = pyspiel.GameInfo(
            num_distinct_actions=self.codec.num_actions,
            max_chance_outcomes=self.cakes if self.chance else 0,
            num_players=seats,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if registration.facts.zero_sum else None,
            max_game_length=self.codec.max_game_length(first),
        )
        shown = {k: v for k, v in self.spheria.options.items() if k in registration.parameters}
        if self.chance:
            shown[CHANCE_OUTCOMES] = self.cakes
        if self.start is not None:
            shown[START] = spn_parameter(self.start)
        super().__init__(registration.game_type(), info, shown)

    def _check_type(self, options: dict[str, Any], started: bool) -> None:
        """Refuse options that make another game type: those load under another registration."""
        facts = _facts(self.spheria)
        if started:
            facts = Facts(False, facts.simultaneous, facts.perfect_information, facts.zero_sum)
        if facts == self.registration.facts:
            return
        shown = ", ".join(
            f"{k}={AUTO if v is None else v}" for k, v in options.items() if k in self.registration.parameters
        )
        others = [
            r.short_name for r in REGISTRATIONS.values() if r.facts == facts and r.spheria_name == self.spheria.name
        ]
        where = f"load {others[0]}" if others else "no registration has that type"
        raise ValueError(f"{self.registration.short_name}({shown}) would be another game type: {where}")

    def __reduce__(self) -> tuple[Callable[[str], Any], tuple[str]]:
        return _load_from_string, (str(self),)

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
            rows = self.history_rows if perfect_recall else 0
            return SpagyricObserver(self.codec, rows, private)
        if perfect_recall:
            return HistoryObserver()
        return BoardObserver(self.codec)


def _joint_choices(state: State[Any], codec: Codec, seats: int) -> list[list[int]]:
    """Each seat's legal actions at a simultaneous node; a seat with none takes the placeholder 0."""
    return [codec.legal_actions(state, seat) or [0] for seat in range(seats)]


class SpheriaState(pyspiel.State):  # type: ignore[misc]
    """An OpenSpiel state around a Spheria state (:attr:`spheria`).

    At a simultaneous node ``legal_actions()`` lists flat joint actions (seat 0's index in its
    legal actions varies fastest), as OpenSpiel's C++ simultaneous games do, and
    ``apply_action`` takes one; ``apply_actions`` takes one action per seat everywhere, and at
    a node where one seat moves the others' actions are ignored (``rl_environment`` sends them).
    """

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
        state = self._held.state
        if player == SIMULTANEOUS:
            joint = _joint_choices(state, self.codec, self.num_players())
            return list(range(int(np.prod([len(actions) for actions in joint]))))
        return self.codec.legal_actions(state, player)

    def _flat_to_joint(self, flat: int) -> list[int]:
        actions = []
        for choices in _joint_choices(self._held.state, self.codec, self.num_players()):
            flat, index = divmod(flat, len(choices))
            actions.append(choices[index])
        if flat:
            raise IllegalMoveError("that joint action number is past the last joint action here")
        return actions

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
        player = state.current_player()
        if player == SIMULTANEOUS:
            self._apply_joint(self._flat_to_joint(int(action)))
            return
        state.apply(self.codec.legal_move(state, player, int(action)))

    def _apply_actions(self, actions: Sequence[int]) -> None:
        state = self._held.state
        player = state.current_player()
        if len(actions) != self.num_players():
            raise IllegalMoveError(f"one action per seat: {self.num_players()} expected, {len(actions)} given")
        if player >= 0:
            state.apply(self.codec.legal_move(state, player, int(actions[player])))  # the idle seats' are ignored
            return
        self._apply_joint([int(a) for a in actions])

    def _apply_joint(self, actions: Sequence[int]) -> None:
        state = self._held.state
        codec = self.codec
        moves = [codec.legal_move(state, seat, a) for seat, a in enumerate(actions) if state.legal_moves(seat)]
        state.apply_joint(moves)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"cake {action}"
        if player == SIMULTANEOUS:
            texts = [self.codec.action_text(a) for a in self._flat_to_joint(int(action))]
            return ":".join(texts)
        return self.codec.action_text(int(action))

    def string_to_action(self, *args: Any) -> int:
        """The action of a move in Spheria's notation: ``string_to_action(text)`` for the seat to
        move (a joint ``w:b`` at a simultaneous node), ``string_to_action(player, text)`` for one seat.

        Any way Spheria accepts the move is accepted (a line eaten in another order that leaves
        the same position is its listed action)."""
        if len(args) == 1:
            player, text = self.current_player(), str(args[0])
        elif len(args) == 2:
            player, text = int(args[0]), str(args[1])
        else:
            raise TypeError("string_to_action(text) or string_to_action(player, text)")
        if self._held.pending_chance:
            return int(pyspiel.State.string_to_action(self, *args))
        state = self._held.state
        if player == SIMULTANEOUS:
            parts = text.split(":")
            choices = _joint_choices(state, self.codec, self.num_players())
            if len(parts) != len(choices):
                raise InvalidMoveError(f"{text!r}: a joint action names one choice per seat, joined with ':'")
            flat, scale = 0, 1
            for seat, (part, legal) in enumerate(zip(parts, choices, strict=True)):
                flat += legal.index(self.string_to_action(seat, part)) * scale
                scale *= len(legal)
            return flat
        move = state.parse_move(text, player)
        action = self.codec.action_of(state, move)
        if action not in self.codec.legal_actions(state, player):
            raise IllegalMoveError(f"{text!r} is not a legal move of seat {player} here")
        return action

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

    # -- information-set search ---------------------------------------------------------------------

    def resample_from_infostate(self, player: int, probability_sampler: Any) -> SpheriaState:
        """A state ``player`` cannot tell from this one (same information state), drawn from those
        their view allows (see :mod:`spheria.games.spagyric.worlds`); ``probability_sampler()``
        gives the random numbers, as OpenSpiel's ``UniformProbabilitySampler`` does."""
        return self.resample(player, random.Random(int(float(probability_sampler()) * 2**53)))

    def resample(self, player: int, rng: random.Random) -> SpheriaState:
        """:meth:`resample_from_infostate` with a ``random.Random``."""
        game: SpheriaGame = self.get_game()
        held = self._held
        if held.pending_chance or game.spheria.perfect_information:
            return self.clone()  # type: ignore[no-any-return]
        history = held.state.history_notation()
        origin = sample_origin(game.spheria, held.origin, history, player, rng)
        world = game.new_initial_state(origin) if held.explicit or origin != held.origin else game.new_initial_state()
        for entry in history:
            actions = self.codec.actions_of_entry(world.spheria, entry)
            if len(actions) == 1:
                world.apply_action(actions[0])
            else:
                world.apply_actions(actions)
        return world

    # -- OpenSpiel's struct and JSON API --------------------------------------------------------------

    def _to_struct(self) -> dict[str, Any]:
        """The referee's whole position: the game, its options, the SPN, the seat to move and the record."""
        held = self._held
        game: SpheriaGame = self.get_game()
        if held.pending_chance:
            return {"game": game.spheria.name, "options": dict(game.spheria.options), "chance": True}
        state = held.state
        return {
            "game": game.spheria.name,
            "options": dict(game.spheria.options),
            "spn": state.to_spn(),
            "current_player": self.current_player(),
            "start": held.origin,
            "history": state.history_notation(),
        }

    def _to_observation_struct(self, player: int) -> dict[str, Any]:
        """What ``player`` may see: Spheria's ``observation(player)``."""
        if self._held.pending_chance:
            return {"player": player, "chance": True}
        return dict(self._held.state.observation(player))

    def _action_to_struct(self, player: int, action: int) -> dict[str, Any]:
        return {"player": player, "move": self._action_to_string(player, action)}

    def _struct_to_actions(self, action: dict[str, Any]) -> list[int]:
        player = int(action.get("player", self.current_player()))
        return [self.string_to_action(player, str(action["move"]))]


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
    """What one Spagyric seat, a spectator or all seats together see, from Spheria's views only.

    ``private`` is OpenSpiel's private-information type: ``SINGLE_PLAYER`` is the seat's own
    ``observation(player)``; ``NONE`` the spectator's ``public_observation()``; ``ALL_PLAYERS``
    the spectator's view plus both seats' supplies by colour (what the two seats know between
    them). Without perfect recall: the position now (board, phase, the revealed ball, stunned
    balls, supplies, both hands' sizes). With it (``history_rows`` turns), also the public
    history of reveals and placements, which is everything a player has seen.
    """

    def __init__(self, codec: SpagyricCodec, history_rows: int, private: Any) -> None:
        self.codec = codec
        self.history_rows = history_rows
        self.private = private
        layout = codec.layout
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            layout = (*layout, ("supplies", (2, 3)))
        if history_rows:
            layout = (*layout, *codec.history_layout(history_rows))
        self.tensor = np.zeros(layout_size(layout), np.float32)
        self.dict = _views(self.tensor, layout)

    def _observation(self, state: SpheriaState, player: int) -> dict[str, Any]:
        spheria: Any = state._held.state  # a SpagyricState: it also has public_observation()
        if self.private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            return dict(spheria.observation(player))
        observation: dict[str, Any] = spheria.public_observation()
        if self.private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            observation["supplies_by_color"] = [spheria.observation(seat)["supply"] for seat in (0, 1)]
        return observation

    def set_from(self, state: SpheriaState, player: int) -> None:
        observation = self._observation(state, player)
        values = self.codec.features_from_observation(observation)
        if "supplies_by_color" in observation:
            per_color = float(observation["supply_per_color"])
            values += [hand[c] / per_color for hand in observation["supplies_by_color"] for c in "wbr"]
        if self.history_rows:
            values += self.codec.history_features(state._held.state.history_notation(), self.history_rows)
        self.tensor[:] = values

    def string_from(self, state: SpheriaState, player: int) -> str:
        observation = self._observation(state, player)
        if self.history_rows:
            observation["history"] = state._held.state.history_notation()
        text = self.codec.text_from_observation(observation, with_history=bool(self.history_rows))
        if "supplies_by_color" in observation:
            hands = " ".join(",".join(str(hand[c]) for c in "wbr") for hand in observation["supplies_by_color"])
            text += f"; supplies {hands}"
        return text


# -- ISMCTS on simultaneous games ----------------------------------------------------------------


def resampler(seed: int | None = None) -> Callable[[Any, int], Any]:
    """A resampler for ``ISMCTSBot.set_resampler``: ``resample(state, player)`` is a state the
    seat cannot tell from ``state``.

    ISMCTS needs turns, so a simultaneous game goes through ``pyspiel.convert_to_turn_based``;
    there the choices already made at a reveal by earlier seats are hidden from the seat to
    choose, and are drawn again here from those seats' legal choices; the Spheria state under
    them is resampled by :meth:`SpheriaState.resample`. Never does the sample depend on what
    the seat may not see, so the search cannot either.
    """
    rng = random.Random(seed)
    turn_games: dict[str, Any] = {}

    def resample(state: Any, player: int) -> Any:
        if isinstance(state, SpheriaState):
            return state.resample(player, rng)
        inner: SpheriaState = state.simultaneous_game_state()
        world = inner.resample(player, rng)
        text = str(world.get_game()) if world._held.origin == inner._held.origin else _started(world)
        if text not in turn_games:
            turn_games[text] = pyspiel.convert_to_turn_based(pyspiel.load_game(text))
        sampled = turn_games[text].new_initial_state()
        for action in world.history():
            sampled.apply_action(action)
        for _ in range(len(state.history()) - len(inner.history())):  # the choices made this reveal
            sampled.apply_action(rng.choice(sampled.legal_actions()))
        return sampled

    return resample


def _started(state: SpheriaState) -> str:
    """The game string of ``state``'s game started from ``state``'s first position."""
    game: SpheriaGame = state.get_game()
    params = {k: v for k, v in game.get_parameters().items() if k != START}
    params[START] = spn_parameter(state._held.origin)
    return str(pyspiel.load_game(game.registration.short_name, params))


# -- registration -----------------------------------------------------------------------------


def _game_class(registration: Registration) -> type[SpheriaGame]:
    class_name = "".join(part.title() for part in registration.short_name.split("_")) + "Game"
    made = type(class_name, (SpheriaGame,), {"registration": registration, "__module__": __name__})
    made.__qualname__ = class_name
    globals()[class_name] = made  # bound in this module, so pickle finds it by name
    return made


#: Every registration by OpenSpiel short name.
REGISTRATIONS: dict[str, Registration] = {}
#: The OpenSpiel game class of each registration.
GAME_CLASSES: dict[str, type[SpheriaGame]] = {}
#: The OpenSpiel short name of each Spheria game with its default options.
GAME_NAMES: dict[str, str] = {}


def register_all() -> list[str]:
    """Register with ``pyspiel`` every Spheria game not registered yet (all of them on import;
    call it again after registering a new Spheria game). Returns the new OpenSpiel names."""
    known = {r.spheria_name for r in REGISTRATIONS.values()}
    registered = set(pyspiel.registered_names())
    added = []
    for name in game_names():
        if name in known:
            continue
        for registration in _registrations(name):
            short_name = registration.short_name
            REGISTRATIONS[short_name] = registration
            GAME_CLASSES[short_name] = _game_class(registration)
            if not registration.fixed:
                GAME_NAMES[name] = short_name
            if short_name not in registered:  # registering a name twice is an error in OpenSpiel
                pyspiel.register_game(registration.game_type(), GAME_CLASSES[short_name])
            added.append(short_name)
    return added


register_all()


def load(name: str, **params: Any) -> Any:
    """``pyspiel.load_game`` by Spheria name: ``load("special-cake", variant="sugar")`` loads the
    registration whose fixed options ``params`` name (here ``spheria_special_cake_sugar``)."""
    candidates = [r for r in REGISTRATIONS.values() if r.spheria_name == name]
    if not candidates:
        raise ValueError(f"unknown game {name!r} (games: {', '.join(sorted(GAME_NAMES))})")
    spec = {s.name: s for s in game_class(name).option_specs}
    parsed = {k: spec[k].parse(v) if k in spec and v != AUTO else v for k, v in params.items()}
    for registration in sorted(candidates, key=lambda r: -len(r.fixed)):
        rest = {k: v for k, v in params.items() if k not in registration.fixed}
        if all(parsed.get(k) == v for k, v in registration.fixed.items()) and set(rest) <= set(registration.parameters):
            return pyspiel.load_game(registration.short_name, rest)
    return pyspiel.load_game(GAME_NAMES[name], params)


__all__ = [
    "GAME_CLASSES",
    "GAME_NAMES",
    "REGISTRATIONS",
    "Registration",
    "SpheriaGame",
    "SpheriaState",
    "load",
    "register_all",
    "resampler",
    "spn_parameter",
]
