"""What a game offers beyond its rules, in one frozen description: its *kit*.

Every game class answers :meth:`~spheria.kernel.game.Game.kit` with a :class:`GameKit`. The
generic layers (agents, analysis, arena, records, server, integrations, cli) ask the game for
each part through it and never name a game or import a game's package. Every part is optional:
a game that offers no solver, no codec or no levels leaves the field empty, and the generic
layers say so cleanly ("this game has no levels").

A game's package declares its kit as ``KIT`` in its ``kit`` module; ``Game.kit()`` finds it there
by name on first use, so that loading a game for its rules does not load its solver, its agents
or its commands, and the rules never import the kit.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import random

    from spheria.kernel.codec import Codec
    from spheria.kernel.game import Game, State

#: A position's value for ``seat`` in [-1, 1] (a heuristic; exact where the game is over).
Evaluate = Callable[["State[Any]", int], float]
#: A key that is equal for equal positions (a transposition table's key).
KeyFunction = Callable[["State[Any]"], Hashable]
#: Whether the player to move can win with one move.
WinTest = Callable[["State[Any]"], bool]
#: Finish a game from a state cheaply and return its returns (``rand`` gives floats in [0, 1)).
Playout = Callable[["State[Any]", Callable[[], float]], list[float]]
#: ``sample_origin(game, origin, history, player, rng)``: a first position (SPN) ``player`` cannot
#: tell from ``origin`` from which ``history`` (record entries) replays, drawn with ``rng``.
SampleOrigin = Callable[["Game", str, Sequence[str], int, "random.Random"], str]


@dataclass(frozen=True)
class Knowledge:
    """What a generic search may know of a game (each ``None``: the search's own fallback).

    ``evaluate`` scores a position for a seat, ``key`` identifies positions for a table,
    ``can_win_now`` says whether the mover wins at once, ``playout`` finishes a game cheaply
    (MCTS rollouts) and ``guided_playout`` finishes it as players who pursue their score.
    """

    evaluate: Evaluate | None = None
    key: KeyFunction | None = None
    can_win_now: WinTest | None = None
    playout: Playout | None = None
    guided_playout: Playout | None = None


@dataclass(frozen=True)
class LevelEntry:
    """One level of one game: the agent it plays as and the longest it thinks about a move.

    ``seconds`` is the time per move the level is stated to answer within on the project's
    2-core machine: the agent's ``time`` budget, or for a budget in iterations what it takes.
    """

    level: int
    spec: str
    seconds: float


@dataclass(frozen=True)
class Levels:
    """A game's level tables: levels 1-5 per ladder, and which ladder a game's options pick.

    ``tables`` maps a ladder's key (the game's name, or ``<game>/<value of an option>``) to its five levels;
    ``key(game)`` names the ladder of a game with its options.
    """

    tables: Mapping[str, tuple[LevelEntry, ...]]
    key: Callable[[Game], str]


@dataclass(frozen=True)
class Analyser:
    """A game's own analysis (:mod:`spheria.analysis` asks it before its generic estimate).

    ``analyse(target, budget)``: ``target`` is a live state whose every detail may be used (a
    game of perfect information, or a recorded game whose secrets are known), or one seat's
    view (``state.view(seat)``) of a game that hides information; ``budget`` is a
    :class:`spheria.analysis.budget.Budget`. It answers a :class:`spheria.analysis.Analysis`,
    or ``None`` to leave the position to the generic estimate (a view left so is refused).
    ``methods`` names each ``method`` code its answers carry (``N_``-marked words, for people);
    ``notes`` words each ``note`` code an answer may carry (a ``str.format`` template of the
    note's parameters), saying why the answer is less than it could be.
    """

    analyse: Callable[[Any, Any], Any]
    methods: Mapping[str, str] = field(default_factory=dict)
    notes: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class MeasuredLevels:
    """Levels 1-5's strength as measured by ``benchmarks/ladder.py`` under ``options`` (the game's
    options the ladder was played with; the rest at their defaults): Elo with ``random`` at 0.
    :mod:`spheria.ratings` seeds the level agents' ratings from it (docs/server.md, Ratings)."""

    options: Mapping[str, Any]
    elo: tuple[float, float, float, float, float]


@dataclass(frozen=True)
class GameWords:
    """The words a game's pages show for it beyond its options (each ``N_``-marked in the game's
    messages; the server sends them translated, and no page catalogue repeats them).

    ``agents`` names the game's own agents by spec name; ``fields`` names the fields of its
    position notation (SPN) after the board, in order; ``phases`` words its phases (values of
    those fields: ``"place"``) where it says them in its own way; ``turns`` says, by phase,
    what the player to move does (a template with ``{name}``, the player's name).
    """

    agents: Mapping[str, str] = field(default_factory=dict)
    fields: tuple[str, ...] = ()
    phases: Mapping[str, str] = field(default_factory=dict)
    turns: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class GameKit:
    """Everything a game offers beyond its rules; every field may be left empty.

    * ``knowledge``: heuristics and playouts for the generic searches;
    * ``levels``: the level tables (``level:1`` .. ``level:5``);
    * ``agents``: the game's own agents by spec name (``"solver"``, say), factories
      taking the spec's options as keywords;
    * ``search``: the game's own alpha-beta (``alphabeta:engine=game``), a factory of a search;
    * ``codec``: a factory of the game's action and observation codec (OpenSpiel, PettingZoo),
      a :class:`~spheria.kernel.codec.Codec` of the loaded game;
    * ``howto``: the how-to text (``help rules``, the pages' how-to), section by section, each an
      ``N_``-marked section of the markup :mod:`spheria.help` reads;
    * ``analyse``: the game's own analysis (exact values, hidden information), an
      :class:`Analyser`, tried before the generic estimate;
    * ``commands``: ``commands(subparsers)`` adds the game's own ``spheria`` commands to the
      sub-commands of the command line's parser (argparse's ``add_subparsers()``), each parser
      with ``handler(args, term) -> int`` as a default (``term`` a
      :class:`spheria.cli.terminal.Terminal`) and the ``--color`` options;
    * ``sample_origin``: for a game of hidden information, a sampler of a first position
      consistent with one seat's view (:data:`SampleOrigin`; OpenSpiel's resampling);
    * ``measured_levels``: what its ladders measured (:class:`MeasuredLevels`), for the ratings;
    * ``vocabulary``: the words that are the game's own beyond its name and title (its pieces, its
      options' names and values, its theme), lower case: generic code never uses them, not even
      in a comment (tests/kernel/test_layers.py checks), so it cannot lean on one game's ideas.
    * ``time_controls``: the time controls offered for it, written as :mod:`spheria.kernel.clock`
      parses them (``"5+3"``, ``"3d"``); empty: the generic ``spheria.kernel.clock.PRESETS``.
    * ``words``: its own agents', position fields' and phases' words for the pages (:class:`GameWords`).
    * ``puzzles``: a factory of the game's puzzle maker (a :class:`spheria.puzzles.PuzzleMaker`:
      its oracle's winning moves, plausible moves and themes), for :mod:`spheria.puzzles`.
    """

    knowledge: Knowledge = field(default_factory=Knowledge)
    levels: Levels | None = None
    agents: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    search: Callable[[], Any] | None = None
    codec: Callable[[Game], Codec] | None = None
    howto: Sequence[str] = ()
    analyse: Analyser | None = None
    commands: Callable[[Any], None] | None = None
    sample_origin: SampleOrigin | None = None
    measured_levels: tuple[MeasuredLevels, ...] = ()
    vocabulary: frozenset[str] = frozenset()
    time_controls: tuple[str, ...] = ()
    words: GameWords = field(default_factory=GameWords)
    puzzles: Callable[[], Any] | None = None


#: The kit of a game that offers nothing beyond its rules.
EMPTY_KIT = GameKit()
