"""Spheria's games as OpenSpiel Python games (``pip install 'spheria[openspiel]'``).

Importing this module registers with ``pyspiel`` every Spheria game that offers a codec (see
:mod:`spheria.kernel.codec`), one registration per game type (see docs/openspiel.md), derived
from ``Game.info()``: ``spheria_<game>`` for the game with its default options, and
``spheria_<game>_<value>`` for the options that make another type (a chance node, another
utility).

* Actions are the fixed numbers of the game's codec, written and read in Spheria's notation
  (``state.string_to_action(text)``).
* ``start`` is a Spheria SPN to start from instead of the usual first position, written
  with ``;`` for every ``,`` (a comma would end the parameter in an OpenSpiel game string).
* A game whose first position is drawn at random draws it at a chance node: outcome ``k`` of
  ``outcomes`` equally likely outcomes is the game's first position for seed ``k``
  (``action_to_string`` says ``start k``).
* A game with simultaneous moves is ``SIMULTANEOUS`` at every decision, as OpenSpiel's own
  simultaneous games are: every seat picks at once (``apply_actions([a0, a1])`` or a flat joint
  action), and a seat with nothing to decide (the other places) has one legal action, the
  no-op :data:`WAIT` (number ``game.wait_action``, after the codec's). A game of hidden
  information is ``IMPERFECT_INFORMATION``: its observations and information states are its
  codec's views, built from Spheria's ``observation(player)`` only, and :func:`resampler` lets
  OpenSpiel's ISMCTS search it without seeing a secret (through the kit's ``sample_origin``).
* Games pickle as their game string; states serialise (``pyspiel.serialize_game_and_state``,
  ``pickle``) as the Spheria game, its start and its record entries.

Every action of every registration reads back from its own notation:

>>> import pyspiel
>>> from spheria.integrations.openspiel import registered_types
>>> for short_name in registered_types():
...     state = pyspiel.load_game(short_name).new_initial_state()
...     if state.is_chance_node():
...         state.apply_action(0)
...     for action in state.legal_actions():
...         assert state.string_to_action(state.action_to_string(action)) == action, short_name
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyspiel

from spheria.kernel.codec import Codec, Layout, Private, codec_for, layout_size, offers_codec, require_codec
from spheria.kernel.game import SIMULTANEOUS, TERMINAL, Game, IllegalMoveError, InvalidMoveError, State
from spheria.kernel.options import Option
from spheria.kernel.record import replay, set_up
from spheria.kernel.registry import game_class, game_names, load_game

Dynamics = pyspiel.GameType.Dynamics
ChanceMode = pyspiel.GameType.ChanceMode
Information = pyspiel.GameType.Information
Utility = pyspiel.GameType.Utility

#: The parameter every registration has: a Spheria position to start from.
START = "start"
#: The parameter of a registration whose first position is drawn at a chance node: how many
#: outcomes (first positions) it draws from.
CHANCE_OUTCOMES = "outcomes"
DEFAULT_CHANCE_OUTCOMES = 1000
#: OpenSpiel cannot hold ``None``: an option whose default depends on other options is written so.
AUTO = "auto"
#: How the no-op of a game of simultaneous moves is written: the one legal action of a seat with
#: nothing to decide at a node (:attr:`SpheriaGame.wait_action`). No Spheria move reads so.
WAIT = "wait"


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
    other type gets the options that make it fixed, in its name (``spheria_<game>_<value>``).
    Options without a list of choices (a number over a wide range) never change the type.
    """
    tried = {spec.name: _tried_values(spec) for spec in game_class(name).option_specs}
    specs = [spec for spec in game_class(name).option_specs if tried[spec.name] is not None]
    by_facts: dict[Facts, list[dict[str, Any]]] = {}
    for values in itertools.product(*(tried[spec.name] or [] for spec in specs)):
        options = {spec.name: value for spec, value in zip(specs, values, strict=True)}
        by_facts.setdefault(_facts(load_game(name, **options)), []).append(options)
    groups = {(facts, seats): run for facts, settings in by_facts.items() for seats, run in _seat_runs(name, settings)}
    default = load_game(name)
    default_key = (_facts(default), next(s for f, s in groups if f == _facts(default) and default.num_players in s))
    base = "spheria_" + name.replace("-", "_")
    registrations = []
    for (facts, seats), settings in groups.items():
        fixed = {} if (facts, seats) == default_key else _fixed_options(settings, groups)
        short_name = base + "".join(f"_{v}" for v in fixed.values())
        parameters = _parameters(name, fixed, facts)
        registrations.append(Registration(short_name, name, fixed, facts, (min(seats), max(seats)), parameters))
    return registrations


def _seat_runs(name: str, settings: list[dict[str, Any]]) -> list[tuple[range, list[dict[str, Any]]]]:
    """``settings`` (one game type's) split where the seat counts leave a gap: OpenSpiel loads a type
    with every seat count from its least to its most, so 2 and 4 seats with 3 of another type are two."""
    counted = sorted(((load_game(name, **options).num_players, options) for options in settings), key=lambda x: x[0])
    runs: list[tuple[range, list[dict[str, Any]]]] = []
    for seats, options in counted:
        if runs and seats <= runs[-1][0].stop:  # a count already in the run, or the next one
            seat_range, grouped = runs[-1]
            runs[-1] = (range(seat_range.start, max(seat_range.stop, seats + 1)), [*grouped, options])
        else:
            runs.append((range(seats, seats + 1), [options]))
    return runs


def _fixed_options(settings: list[dict[str, Any]], groups: Mapping[Any, list[dict[str, Any]]]) -> dict[str, Any]:
    """The options (fewest first) whose values single out these settings among all the game's."""
    others = [options for group in groups.values() if group is not settings for options in group]
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
        self.pending_chance = pending_chance  # a first position still to be drawn at a chance node
        self._state: State[Any] | None = None

    @property
    def state(self) -> State[Any]:
        """The Spheria state (made on first use, so a state made only to be overwritten costs nothing)."""
        if self._state is None:
            if self.pending_chance:
                raise ValueError("the first position is not drawn yet (a chance node)")
            self._state = set_up(self.game, start=self.origin if self.explicit else None)
            self.origin = self._state.to_spn()
        return self._state

    def draw(self, seed: int) -> None:
        """Resolve the chance node: the first position of ``seed``."""
        self._state = set_up(self.game, seed=seed)
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
        held._state = replay(held.game, start=origin if explicit else None, seed=seed, entries=entries)
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
        self.chance_outcomes = int(given.get(CHANCE_OUTCOMES, 0))
        if self.chance and self.chance_outcomes < 1:
            raise ValueError(f"{CHANCE_OUTCOMES} must be at least 1")
        self.history_rows = 0 if self.spheria.perfect_information else self.codec.history_rows(first)
        seats = self.spheria.num_players
        #: A game of simultaneous moves numbers one action more than its codec: the no-op (:data:`WAIT`)
        #: of a seat with nothing to decide; OpenSpiel's RL loop steps every seat every time.
        self.wait_action: int | None = self.codec.num_actions if registration.facts.simultaneous else None
        info = pyspiel.GameInfo(
            num_distinct_actions=self.codec.num_actions + (self.wait_action is not None),
            max_chance_outcomes=self.chance_outcomes if self.chance else 0,
            num_players=seats,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if registration.facts.zero_sum else None,
            max_game_length=self.codec.max_game_length(first),
        )
        shown = {k: v for k, v in self.spheria.options.items() if k in registration.parameters}
        if self.chance:
            shown[CHANCE_OUTCOMES] = self.chance_outcomes
        if self.start is not None:
            shown[START] = spn_parameter(self.start)
        super().__init__(registration.game_type(), info, shown)

    def _check_type(self, options: dict[str, Any], started: bool) -> None:
        """Refuse options that make another game type: those load under another registration."""
        facts = _facts(self.spheria)
        if started:
            facts = Facts(False, facts.simultaneous, facts.perfect_information, facts.zero_sum)
        seats = self.spheria.num_players
        low, high = self.registration.seat_range
        if facts == self.registration.facts and low <= seats <= high:
            return
        shown = ", ".join(
            f"{k}={AUTO if v is None else v}" for k, v in options.items() if k in self.registration.parameters
        )
        others = [
            r.short_name
            for r in REGISTRATIONS.values()
            if r.facts == facts and r.spheria_name == self.spheria.name and r.seat_range[0] <= seats <= r.seat_range[1]
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
        if not self.spheria.perfect_information:
            private = pyspiel.PrivateInfoType.SINGLE_PLAYER if iig_obs_type is None else iig_obs_type.private_info
            rows = self.history_rows if perfect_recall else 0
            return ViewObserver(self.codec, rows, _PRIVATE[private])
        if perfect_recall:
            return HistoryObserver()
        return BoardObserver(self.codec)


class SpheriaState(pyspiel.State):  # type: ignore[misc]
    """An OpenSpiel state around a Spheria state (:attr:`spheria`).

    At a simultaneous node ``legal_actions()`` lists flat joint actions (seat 0's index in its
    legal actions varies fastest), as OpenSpiel's C++ simultaneous games do, and
    ``apply_action`` takes one; ``apply_actions`` takes one action per seat. In a game of
    simultaneous moves every decision is such a node, also where one seat moves alone: there
    the others' one legal action is the no-op ``wait_action`` (``rl_environment`` steps every seat).
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

    @property
    def wait_action(self) -> int | None:
        """The no-op of a seat with nothing to decide (``None`` in a game of turns)."""
        game: SpheriaGame = self.get_game()
        return game.wait_action

    def current_player(self) -> int:
        if self._held.pending_chance:
            return int(pyspiel.PlayerId.CHANCE)
        player = self._held.state.current_player()
        if player == TERMINAL:
            return int(pyspiel.PlayerId.TERMINAL)
        if player == SIMULTANEOUS or self.wait_action is not None:
            return int(pyspiel.PlayerId.SIMULTANEOUS)  # one seat placing is a joint move with waits
        return player

    def _seat_actions(self, seat: int) -> list[int]:
        """``seat``'s legal actions: its moves, else (in a game of simultaneous moves, still going
        on) the one no-op."""
        state = self._held.state
        actions = self.codec.legal_actions(state, seat)
        if actions or self.wait_action is None or state.is_terminal():
            return actions
        return [self.wait_action]

    def _joint_choices(self) -> list[list[int]]:
        """Each seat's legal actions at a simultaneous node (never none: a seat with no move waits)."""
        return [self._seat_actions(seat) for seat in range(self.num_players())]

    def _legal_actions(self, player: int) -> list[int]:
        if player == SIMULTANEOUS:
            return list(range(int(np.prod([len(actions) for actions in self._joint_choices()]))))
        return self._seat_actions(player)

    def _flat_to_joint(self, flat: int) -> list[int]:
        actions = []
        for choices in self._joint_choices():
            flat, index = divmod(flat, len(choices))
            actions.append(choices[index])
        if flat:
            raise IllegalMoveError("that joint action number is past the last joint action here")
        return actions

    def _joint_to_flat(self, actions: Sequence[int]) -> int:
        """The flat joint action of one legal action per seat (seat 0's index varies fastest)."""
        flat, scale = 0, 1
        for action, legal in zip(actions, self._joint_choices(), strict=True):
            flat += legal.index(action) * scale
            scale *= len(legal)
        return flat

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self._held.pending_chance:
            return []
        outcomes: int = self.get_game().chance_outcomes
        return [(k, 1.0 / outcomes) for k in range(outcomes)]

    def _apply_action(self, action: int) -> None:
        if self._held.pending_chance:
            self._held.draw(int(action))
            return
        if self.current_player() == SIMULTANEOUS:
            self._apply_actions(self._flat_to_joint(int(action)))
            return
        state = self._held.state
        state.apply(self.codec.legal_move(state, state.current_player(), int(action)))

    def _apply_actions(self, actions: Sequence[int]) -> None:
        """One action per seat: the moves of the seats that decide, the no-op of the others."""
        state = self._held.state
        if len(actions) != self.num_players():
            raise IllegalMoveError(f"one action per seat: {self.num_players()} expected, {len(actions)} given")
        moves = []
        for seat, action in enumerate(int(a) for a in actions):
            if not state.legal_moves(seat):
                if action != self.wait_action:
                    raise IllegalMoveError(
                        f"seat {seat} has nothing to decide here: its one action is {self.wait_action} ({WAIT}),"
                        f" not {action}"
                    )
                continue
            moves.append(self.codec.legal_move(state, seat, action))
        if state.current_player() >= 0:
            state.apply(moves[0])  # one seat moves alone
        else:
            state.apply_joint(moves)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"start {action}"
        if player == SIMULTANEOUS:
            texts = [self._seat_action_text(a) for a in self._flat_to_joint(int(action))]
            return ":".join(texts)
        return self._seat_action_text(int(action))

    def _seat_action_text(self, action: int) -> str:
        return WAIT if action == self.wait_action else self.codec.action_text(action)

    def string_to_action(self, *args: Any) -> int:
        """The action of a move in Spheria's notation: ``string_to_action(text)`` for the seat to
        move (a joint ``w:b`` at a simultaneous node), ``string_to_action(player, text)`` for one seat.

        Any way Spheria accepts the move is accepted (a line eaten in another order that leaves
        the same position is its listed action). A seat with nothing to decide reads :data:`WAIT`;
        where one seat places, the joint action is written ``0a1:wait`` (or ``wait:0a1``)."""
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
            choices = self._joint_choices()
            if len(parts) != len(choices):
                raise InvalidMoveError(f"{text!r}: a joint action names one choice per seat, joined with ':'")
            return self._joint_to_flat([self.string_to_action(seat, part) for seat, part in enumerate(parts)])
        legal = self._seat_actions(player)
        if text.strip() == WAIT and self.wait_action is not None:
            if legal != [self.wait_action]:
                raise IllegalMoveError(f"seat {player} has a move to choose here: it cannot {WAIT}")
            return self.wait_action
        move = state.parse_move(text, player)
        action = self.codec.action_of(state, move)
        if action not in legal:
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
            return "first position not drawn yet"
        return self._held.state.to_spn()

    # -- information-set search ---------------------------------------------------------------------

    def resample_from_infostate(self, player: int, probability_sampler: Any) -> SpheriaState:
        """A state ``player`` cannot tell from this one (same information state), drawn from those
        their view allows (the kit's ``sample_origin``); ``probability_sampler()``
        gives the random numbers, as OpenSpiel's ``UniformProbabilitySampler`` does."""
        return self.resample(player, random.Random(int(float(probability_sampler()) * 2**53)))

    def resample(self, player: int, rng: random.Random) -> SpheriaState:
        """:meth:`resample_from_infostate` with a ``random.Random``."""
        game: SpheriaGame = self.get_game()
        held = self._held
        if held.pending_chance or game.spheria.perfect_information:
            return self.clone()  # type: ignore[no-any-return]
        sample_origin = game.spheria.kit().sample_origin
        if sample_origin is None:
            raise ValueError(
                f"{game.spheria.name} offers no sample_origin: the worlds a seat cannot tell apart cannot be drawn"
            )
        history = held.state.history_notation()
        origin = sample_origin(game.spheria, held.origin, history, player, rng)
        world = game.new_initial_state(origin) if held.explicit or origin != held.origin else game.new_initial_state()
        for entry in history:
            world._replay(entry)
        return world

    def _replay(self, entry: str) -> None:
        """Play one Spheria record entry as OpenSpiel plays it: one action at a node of turns, one
        per seat at a simultaneous node (the no-op for a seat the entry leaves idle), so that the
        history reads as if the entry had been played through ``apply_actions``."""
        actions = self.codec.actions_of_entry(self.spheria, entry)
        if self.current_player() != SIMULTANEOUS:
            self.apply_action(actions[0])
            return
        mover, wait = self.spheria.current_player(), self.wait_action
        if mover >= 0 and wait is not None:
            actions = [actions[0] if seat == mover else wait for seat in range(self.num_players())]
        self.apply_actions(actions)

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
        """The action of a struct. At a simultaneous node that is a flat joint action: one seat's
        move is the whole joint move only where every other seat has one choice (waits while it places)."""
        player = int(action.get("player", self.current_player()))
        chosen = self.string_to_action(player, str(action["move"]))
        if player < 0 or self.current_player() != SIMULTANEOUS:
            return [chosen]
        choices = self._joint_choices()
        undecided = [str(seat) for seat, legal in enumerate(choices) if seat != player and len(legal) > 1]
        if undecided:
            raise IllegalMoveError(
                f"seat {', '.join(undecided)} chooses too here: name every seat's choice"
                " (player -2, a joint move such as 'w:b' or '0a1:wait')"
            )
        return [self._joint_to_flat([chosen if seat == player else legal[0] for seat, legal in enumerate(choices)])]


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
            return "first position to draw"
        held = state._held
        moves = held.state.history_notation()
        return f"{held.origin} | {' '.join(moves)}" if moves else held.origin


#: OpenSpiel's private-information types as Spheria's.
_PRIVATE = {
    pyspiel.PrivateInfoType.SINGLE_PLAYER: Private.SEAT,
    pyspiel.PrivateInfoType.NONE: Private.NONE,
    pyspiel.PrivateInfoType.ALL_PLAYERS: Private.ALL,
}


class ViewObserver:
    """What one seat of a game of hidden information, a spectator or all seats together see,
    built by the game's codec from Spheria's views only (:meth:`~spheria.kernel.codec.Codec.view_features`).

    ``private`` says whose private information is in it: the seat's own (OpenSpiel's
    ``SINGLE_PLAYER``), nobody's (``NONE``: a spectator's) or every seat's (``ALL_PLAYERS``).
    Without perfect recall: the position now. With it (``history_rows`` turns), also the public
    history, which is everything a player has seen.
    """

    def __init__(self, codec: Codec, history_rows: int, private: Private) -> None:
        self.codec = codec
        self.history_rows = history_rows
        self.private = private
        layout = codec.view_layout(private, history_rows)
        self.tensor = np.zeros(layout_size(layout), np.float32)
        self.dict = _views(self.tensor, layout)

    def set_from(self, state: SpheriaState, player: int) -> None:
        self.tensor[:] = self.codec.view_features(state._held.state, player, self.private, self.history_rows)

    def string_from(self, state: SpheriaState, player: int) -> str:
        return self.codec.view_text(state._held.state, player, self.private, self.history_rows)


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
        if name in known or not offers_codec(game_class(name)):
            continue  # a game that numbers no moves is no OpenSpiel game (load() says why)
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


def registered_types() -> list[str]:
    """The OpenSpiel names of the types of every Spheria game registered now, sorted (a game taken
    out of Spheria's registry keeps its OpenSpiel registration, which cannot be undone, but is not listed)."""
    games = set(game_names())
    return sorted(name for name, registration in REGISTRATIONS.items() if registration.spheria_name in games)


def load(name: str, **params: Any) -> Any:
    """``pyspiel.load_game`` by Spheria name: ``load(name, **params)`` loads the registration
    whose fixed options ``params`` name (``spheria_<game>_<value>``), else the default one."""
    candidates = [r for r in REGISTRATIONS.values() if r.spheria_name == name]
    if not candidates and name in game_names():
        require_codec(game_class(name))
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
    "registered_types",
    "resampler",
    "spn_parameter",
]
