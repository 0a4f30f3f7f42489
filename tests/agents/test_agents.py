"""The search agents: legal play in every game, tactics in hand-drawn Spline positions, exact play
in small Special Cake endgames checked against brute force, seeds, tree reuse and N seats.

Every search is bounded by a depth or an iteration count, never by time, so the results are
deterministic for a seed and no assertion depends on the machine's speed.
"""

from __future__ import annotations

import random
import textwrap
from collections.abc import Iterator
from typing import Any

import pytest

import spheria
from spheria.agents.alphabeta import PROVEN, AlphaBetaAgent
from spheria.agents.greedy import GreedyAgent
from spheria.agents.heuristics import evaluation, position_key, win_test
from spheria.agents.levels import levels_for
from spheria.agents.mcts import MCTSAgent
from spheria.agents.random_agent import RandomAgent
from spheria.agents.registry import LevelAgent, agent_names, agents_for, check_spec, describe_options, make_agent
from spheria.engine.board import BELOW, Board, parse_diagram
from spheria.games.special_cake.knowledge import cake_can_win_now, cake_evaluate
from spheria.kernel.agent import Agent
from spheria.kernel.game import SIMULTANEOUS, TERMINAL, Game, IllegalMoveError, State
from spheria.kernel.kit import GameKit, Knowledge
from spheria.kernel.options import Option

# -- a small game with any number of seats, written for these tests ------------------------------


class Takeaway(Game):
    """Seats take 1 or 2 tokens in turn; whoever takes the last token wins (+1), the rest lose (-1).

    With ``again=k`` a mover who leaves a positive multiple of ``k`` tokens moves again.
    """

    name = "test-takeaway"
    title = "Takeaway"
    option_specs = (
        Option("pile", 7, "tokens at the start", kind=int, minimum=1),
        Option("players", 2, "seats", kind=int, minimum=2),
        Option("again", 0, "extra turn on leaving a multiple of this (0: never)", kind=int, minimum=0),
    )

    @property
    def num_players(self) -> int:
        return int(self.options["players"])

    def player_names(self) -> list[str]:
        return [f"Seat {i + 1}" for i in range(self.num_players)]

    def new_initial_state(self, seed: int | None = None) -> TakeawayState:
        return TakeawayState(self, int(self.options["pile"]), 0)

    def state_from_spn(self, text: str) -> TakeawayState:
        pile, player = text.split()
        return TakeawayState(self, int(pile), int(player) - 1)


class TakeawayState(State[int]):
    def __init__(self, game: Takeaway, pile: int, player: int) -> None:
        self.game: Takeaway = game
        self.seed = None
        self.pile = pile
        self.player = player
        self.winner = -1
        self._history: list[int] = []
        self._undo: list[tuple[int, int, int]] = []

    def current_player(self) -> int:
        return TERMINAL if self.pile == 0 else self.player

    def legal_moves(self, player: int | None = None) -> list[int]:
        if self.pile == 0 or (player is not None and player != self.player):
            return []
        return [take for take in (1, 2) if take <= self.pile]

    def apply(self, move: int) -> None:
        if move not in self.legal_moves():
            raise IllegalMoveError(f"cannot take {move!r}")
        self._undo.append((self.pile, self.player, self.winner))
        self._history.append(move)
        self.pile -= move
        again = int(self.game.options["again"])
        if self.pile == 0:
            self.winner = self.player
        elif not (again and self.pile % again == 0):
            self.player = (self.player + 1) % self.game.num_players

    def undo(self) -> int:
        self.pile, self.player, self.winner = self._undo.pop()
        return self._history.pop()

    def is_terminal(self) -> bool:
        return self.pile == 0

    def returns(self) -> list[float]:
        if self.pile:
            return [0.0] * self.game.num_players
        return [1.0 if seat == self.winner else -1.0 for seat in range(self.game.num_players)]

    def clone(self) -> TakeawayState:
        state = TakeawayState(self.game, self.pile, self.player)
        state.winner, state._history, state._undo = self.winner, list(self._history), list(self._undo)
        return state

    def to_spn(self) -> str:
        return f"{self.pile} {self.player + 1}"

    def parse_move(self, text: str, player: int | None = None) -> int:
        return int(text)


class RevealState(TakeawayState):
    """A node where every seat chooses at once."""

    def current_player(self) -> int:
        return SIMULTANEOUS


class HiddenView:
    """What a hidden-information game hands an agent: no state to search."""

    def current_player(self) -> int:
        return 0

    def legal_moves(self, player: int | None = None) -> list[Any]:
        return [1]

    def observation(self, player: int) -> dict[str, Any]:
        return {}


def takeaway(pile: int, to_move: int = 1, players: int = 2, again: int = 0) -> TakeawayState:
    return Takeaway(players=players, again=again).state_from_spn(f"{pile} {to_move}")


# -- exact values by brute force ---------------------------------------------------------------


def solve(state: State[Any], memo: dict[str, float]) -> float:
    """The exact value of a two-player position for the player to move (+1 win, -1 loss)."""
    key = state.to_spn()
    if key not in memo:
        player = state.current_player()
        memo[key] = max(child_value(state.child(move), player, memo) for move in state.legal_moves())
    return memo[key]


def child_value(child: State[Any], player: int, memo: dict[str, float]) -> float:
    if child.is_terminal():
        return child.returns()[player]
    value = solve(child, memo)
    return value if child.current_player() == player else -value


def best_moves(state: State[Any]) -> set[str]:
    memo: dict[str, float] = {}
    player = state.current_player()
    values = {str(move): child_value(state.child(move), player, memo) for move in state.legal_moves()}
    top = max(values.values())
    return {move for move, value in values.items() if value == top}


# -- positions --------------------------------------------------------------------------------

SPLINE = spheria.load_game("spline")


def spline(picture: str, to_move: int) -> State[Any]:
    board, _ = parse_diagram(textwrap.dedent(picture))
    state = SPLINE.state_from_spn(f"{board.spn()} {to_move}")
    assert not state.is_terminal()
    return state


# White to move: 0d1 completes White's rank 1; blocking Black's 0d2 instead would throw the win away.
WIN_OR_BLOCK = """
      level 0       level 1     level 2   level 3
    4 . . . .
    3 . . . .     3 . . .
    2 b b b .     2 . . .     2 . .
    1 w w w .     1 . . .     1 . .     1 .
      a b c d       a b c       a b       a
    """

# White to move, no line to make: Black's 0a2 0b2 0c2 threatens 0d2, the one move that does not lose.
MUST_BLOCK = """
      level 0       level 1     level 2   level 3
    4 . . . .
    3 . w . .     3 . . .
    2 b b b .     2 . . .     2 . .
    1 w . w .     1 . . .     1 . .     1 .
      a b c d       a b c       a b       a
    """

# Black to move: White's 1a1 1b1 threatens 1c1 (its four supports are full); Black has no line to make.
MUST_BLOCK_ON_LEVEL_1 = """
      level 0       level 1     level 2   level 3
    4 . . . .
    3 b . . .     3 . . .
    2 b w b w     2 . . .     2 . .
    1 w b w b     1 w w .     1 . .     1 .
      a b c d       a b c       a b       a
    """

# White to move: Black's 1a1 1b1 needs 1c1, which opens once 0d2 is filled. Every move but 0d2 is safe.
DO_NOT_OPEN = """
      level 0       level 1     level 2   level 3
    4 w . . .
    3 . . . .     3 . . .
    2 b w w .     2 . . .     2 . .
    1 w b w b     1 b b .     1 . .     1 .
      a b c d       a b c       a b       a
    """


def choose(agent: Agent, state: State[Any]) -> str:
    player = state.current_player()
    move = agent.choose(state.view(player), player)
    assert move in state.legal_moves()
    return str(move)


# -- every agent, every game -------------------------------------------------------------------

GAMES = [
    ("special-cake", {"variant": "mint"}),
    ("special-cake", {"variant": "sugar"}),
    ("special-cake", {"variant": "poisoned"}),
    ("special-cake", {"variant": "mint", "line_rule": "same"}),
    ("spline", {}),
    ("spinca", {}),
    ("spinca", {"players": 3}),
]


def positions(name: str, options: dict[str, str]) -> Iterator[State[Any]]:
    """The start of a game, and a position some random moves later (the eating phase in Special Cake)."""
    game = spheria.load_game(name, **options)
    state = game.new_initial_state(seed=5)
    yield state
    mover = RandomAgent(seed=5)
    while not state.is_terminal() and (len(state.history) < 8 or getattr(state, "phase", "") == "place"):
        state.apply(mover.choose(state, state.current_player()))
    if not state.is_terminal():
        yield state


@pytest.mark.parametrize(("name", "options"), GAMES)
@pytest.mark.parametrize("spec", ["random:seed=1", "greedy:seed=1", "mcts:iterations=12,seed=1", "alphabeta:depth=1"])
def test_every_agent_plays_legal_moves_in_every_game(name: str, options: dict[str, str], spec: str) -> None:
    for state in positions(name, options):
        if spec.startswith("alphabeta") and state.game.num_players != 2:
            with pytest.raises(ValueError, match="two-player games only; this spinca has 3 players"):
                choose(make_agent(spec), state)
            continue
        before = state.to_spn()
        for _ in range(2):
            if state.is_terminal():
                break
            agent = make_agent(spec)
            state.apply(state.parse_move(choose(agent, state)))
        assert state.to_spn() != before


@pytest.mark.parametrize("spec", ["greedy:seed=2", "mcts:iterations=200,seed=2", "alphabeta:depth=3,seed=2"])
def test_agents_play_spline_to_the_end(spec: str) -> None:
    state = SPLINE.new_initial_state()
    agents = [make_agent(spec), make_agent(spec)]
    while not state.is_terminal():
        player = state.current_player()
        state.apply(agents[player].choose(state, player))
    assert len(state.winners()) == 1


def test_the_registry_knows_every_agent() -> None:
    assert {"alphabeta", "greedy", "mcts", "random"} <= set(agent_names())
    assert make_agent("mcts:iterations=2000,c=1.4,seed=3").name == "mcts:iterations=2000,c=1.4,seed=3"
    assert make_agent("mcts").name == "mcts:time=1,c=1.4"
    assert make_agent("alphabeta:depth=4,time=0.5").name == "alphabeta:depth=4,time=0.5"
    assert isinstance(make_agent("greedy"), GreedyAgent)


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("mcts:iterations=0", "mcts option iterations must be a whole number from 1 to 1000000, not 0"),
        ("mcts:iterations=1.5", "mcts option iterations must be a whole number from 1 to 1000000, not 1.5"),
        ("mcts:iterations=1000000000000", "iterations must be a whole number from 1 to 1000000, not 1000000000000"),
        ("mcts:time=soon", "mcts option time must be a number of seconds from 0.01 to 600, not 'soon'"),
        ("mcts:time=nan", "mcts option time must be a number of seconds from 0.01 to 600, not nan"),
        ("mcts:time=inf", "mcts option time must be a number of seconds from 0.01 to 600, not inf"),
        ("mcts:time=601", "mcts option time must be a number of seconds from 0.01 to 600, not 601"),
        ("mcts:iterations=10,time=1", "mcts takes iterations= or time=, not both"),
        ("mcts:c=-1", "mcts option c must be a number from 0 to 10, not -1"),
        ("mcts:reuse=maybe", r"mcts option reuse must be 1 or 0 \(true or false\), not 'maybe'"),
        ("mcts:rollout=smart", "mcts option rollout must be one of game, random, guided, not 'smart'"),
        (
            "mcts:speed=3",
            r"mcts has no option 'speed' \(options: iterations, time, c, reuse, widen, rollout, clock, seed, blunder\)",
        ),
        (
            "mcts:tim=1",
            r"mcts has no option 'tim' \(options: iterations, time, c, reuse, widen, rollout, clock, seed, blunder\)",
        ),
        ("alphabeta:depth=deep", "alphabeta option depth must be a whole number from 1 to 50, not 'deep'"),
        ("alphabeta:depth=99", "alphabeta option depth must be a whole number from 1 to 50, not 99"),
        ("alphabeta:time=0", "alphabeta option time must be a number of seconds from 0.01 to 600, not 0"),
        ("greedy:seed=abc", "greedy option seed must be a whole number from 0 to 4294967295, not 'abc'"),
        ("random:seed=abc", "random option seed must be a whole number from 0 to 4294967295, not 'abc'"),
        ("random:seed=2.5", "random option seed must be a whole number from 0 to 4294967295, not 2.5"),
        ("random:seed=1,seed=2", "agent option 'seed' is given twice"),
        ("random:seed=\x1b]0;owned\x07", r"holds a control character \(\\x1b\)"),
        ("greedy:depth=2", r"greedy has no option 'depth' \(options: seed, blunder\)"),
        ("mcts:iterations", "agent option 'iterations' in 'mcts:iterations' must be written key=value"),
        ("", "the agent spec is empty"),
        ("mcts:" + "c=1," * 60, "characters long; the most is 200"),
    ],
)
def test_bad_specs_are_refused_naming_the_problem(spec: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        make_agent(spec)


def test_no_error_message_carries_a_control_character() -> None:
    for spec in ("random:seed=\x1b[2J", "\x1b]0;title\x07", "mcts:c=\u202e1", "fixed:color=\x9b31m"):
        with pytest.raises(ValueError) as refused:
            make_agent(spec)
        assert str(refused.value).isprintable()


@pytest.mark.parametrize(
    "spec",
    [
        "random",
        "random:seed=7",
        "greedy:seed=0",
        "mcts:iterations=300,c=0.5,reuse=0,rollout=random,seed=4",
        "mcts:time=2.5",
        "alphabeta:depth=3,time=0.25,seed=1",
        "planner:time=1,exact=4,solves=9,eat=mcts",
        "solver:setup=random,time=2",
        "fixed:color=red",
    ],
)
def test_an_agents_name_is_a_spec_for_the_same_agent(spec: str) -> None:
    agent = make_agent(spec)
    again = make_agent(agent.name)
    assert again.name == agent.name
    assert type(again) is type(agent)


def test_the_caller_caps_thinking_time() -> None:
    with pytest.raises(ValueError, match=r"mcts option time must be a number of seconds from 0\.01 to 10, not 11"):
        make_agent("mcts:time=11", max_time=10)
    with pytest.raises(ValueError, match=r"planner option time must be a number of seconds from 0\.01 to 2, not 3"):
        make_agent("planner:time=3", max_time=2)
    with pytest.raises(ValueError, match="the longest an agent may think must be"):
        make_agent("random", max_time=float("nan"))
    assert make_agent("mcts:time=10", max_time=10).max_seconds_per_move() == 10
    assert make_agent("planner", max_time=2).name == "planner:time=2"  # the default budget shrinks to the cap
    # Searches bounded by iterations or depth are bounded by the cap as well.
    assert make_agent("mcts:iterations=1000", max_time=4).max_seconds_per_move() == 4
    assert make_agent("alphabeta:depth=5", max_time=3).max_seconds_per_move() == 3
    assert make_agent("solver:setup=mcts", max_time=5).max_seconds_per_move() == 5
    assert make_agent("mcts").max_seconds_per_move() == 1
    assert make_agent("random").max_seconds_per_move() == make_agent("greedy").max_seconds_per_move() == 0


def test_options_describe_their_ranges_for_help_texts() -> None:
    described = {name: kind for name, kind, _ in describe_options("mcts", max_time=10)}
    assert described == {
        "iterations": "1 to 1000000",
        "time": "0.01 to 10",
        "c": "0 to 10",
        "reuse": "1 or 0",
        "widen": "1 or 0",
        "rollout": "game, random, guided",
        "clock": "wall, cpu",
        "seed": "0 to 4294967295",
        "blunder": "0 to 1",
    }


def test_an_iteration_budget_stops_at_the_time_cap() -> None:
    agent = make_agent("mcts:iterations=1000000,seed=1", max_time=0.05)
    assert isinstance(agent, MCTSAgent)
    move = agent.choose(SPLINE.new_initial_state(), 0)
    assert move in SPLINE.new_initial_state().legal_moves()
    assert agent.last_stats is not None and 0 < agent.last_stats.iterations < 1_000_000


@pytest.mark.parametrize("agent", [GreedyAgent(), MCTSAgent(iterations=5), AlphaBetaAgent(depth=1)])
def test_search_agents_refuse_what_they_cannot_search(agent: Agent) -> None:
    with pytest.raises(ValueError, match="perfect-information games only; it was given a view of a game with hidden"):
        agent.choose(HiddenView(), 0)
    reveal = RevealState(Takeaway(), 5, 0)
    with pytest.raises(ValueError, match="cannot play a simultaneous move"):
        agent.choose(reveal, 0)
    with pytest.raises(ValueError, match="seat 1 is not to move: seat 0 is"):
        agent.choose(takeaway(5), 1)
    with pytest.raises(ValueError, match="the game is over"):
        agent.choose(takeaway(0), 0)


# -- tactics in Spline --------------------------------------------------------------------------

SEARCHERS = [
    "greedy:seed={seed}",
    "mcts:iterations=2000,seed={seed}",
    "alphabeta:depth=4,seed={seed}",
    "alphabeta:depth=4,seed={seed},engine=game",
]


@pytest.mark.parametrize("spec", SEARCHERS)
@pytest.mark.parametrize("seed", [1, 2])
def test_searchers_take_a_win_in_one(spec: str, seed: int) -> None:
    assert choose(make_agent(spec.format(seed=seed)), spline(WIN_OR_BLOCK, 1)) == "0d1"


@pytest.mark.parametrize("spec", SEARCHERS)
@pytest.mark.parametrize("seed", [1, 2])
def test_searchers_block_a_win_in_one(spec: str, seed: int) -> None:
    assert choose(make_agent(spec.format(seed=seed)), spline(MUST_BLOCK, 1)) == "0d2"
    assert choose(make_agent(spec.format(seed=seed)), spline(MUST_BLOCK_ON_LEVEL_1, 2)) == "1c1"


@pytest.mark.parametrize("spec", SEARCHERS)
def test_searchers_do_not_open_a_site_the_opponent_wins_on(spec: str) -> None:
    state = spline(DO_NOT_OPEN, 1)
    assert "1c1" not in {str(m) for m in state.legal_moves()}
    for seed in range(6):
        assert choose(make_agent(spec.format(seed=seed)), state) != "0d2"


def test_alphabeta_proves_wins_and_losses_many_moves_deep() -> None:
    # Takeaway with two seats: the mover loses exactly when the pile is a multiple of 3.
    agent = AlphaBetaAgent(depth=12, seed=0)
    for pile in range(1, 10):
        state = takeaway(pile)
        score = agent.value(state, 12)
        assert abs(score) > PROVEN
        assert (score > 0) == (pile % 3 != 0)


# -- exact play in small endgames ------------------------------------------------------------


def small_cakes() -> Iterator[State[Any]]:
    """Small eating-phase cakes, random but fixed: 4 to 8 candies on level 0, some on level 1."""
    rng = random.Random(2024)
    made = 0
    while made < 24:
        variant = ("mint", "sugar", "poisoned")[made % 3]
        board = Board()
        sites = rng.sample(range(16), rng.randint(4, 8))
        colours = [rng.choice((0, 1, 2) if variant == "sugar" else (0, 1)) for _ in sites]
        if variant == "poisoned":
            colours[0] = 2
        for site, colour in zip(sites, colours, strict=True):
            board.place(site, colour)
        for upper in range(16, 25):
            on_cherry = BELOW[upper] & board.masks[2] and variant == "poisoned"  # the cherry is never buried
            if board.occupied & BELOW[upper] == BELOW[upper] and not on_cherry and rng.random() < 0.7:
                board.place(upper, rng.choice((0, 1)))
        game = spheria.load_game("special-cake", variant=variant)
        yield game.state_from_spn(f"{board.spn()} {rng.choice('12')} eat")
        made += 1


def test_alphabeta_plays_small_cake_endgames_perfectly() -> None:
    checked = 0
    for state in small_cakes():
        optimal = best_moves(state)
        for seed in (0, 1):
            agent = AlphaBetaAgent(depth=20, seed=seed)
            assert choose(agent, state) in optimal, state.to_spn()
            last = agent.reports[-1]  # stopped when exact, or on a proven result
            assert last.exact or abs(last.score) > PROVEN
        exact = solve(state, {})
        score = AlphaBetaAgent().value(state, 20)
        assert abs(score) > PROVEN and (score > 0) == (exact > 0), state.to_spn()
        checked += 1
    assert checked == 24


@pytest.mark.parametrize("pile", range(1, 13))
def test_alphabeta_handles_a_player_who_moves_twice(pile: int) -> None:
    # Leaving a multiple of 4 gives the mover another turn: the sign flips only when the turn passes.
    state = takeaway(pile, again=4)
    optimal = best_moves(state)
    for seed in (0, 1):
        assert choose(AlphaBetaAgent(depth=15, seed=seed), state) in optimal
    exact = solve(state, {})
    assert (AlphaBetaAgent().value(state, 15) > 0) == (exact > 0)


def test_greedy_eats_a_line_to_leave_the_last_candy_to_the_opponent() -> None:
    # Mint: 0a1 (w) and 0b1 (b) touch, 0d4 stands alone. Eating the mixed line leaves one candy for
    # Liquorice, who must eat it and lose; a single eat leaves two, and Mint eats the last.
    game = spheria.load_game("special-cake", variant="mint")
    state = game.state_from_spn("wb.............w/........./..../. 1 eat")
    assert best_moves(state) == {"0a1+0b1"}
    for seed in range(5):
        assert choose(GreedyAgent(seed=seed), state) == "0a1+0b1"
    after = state.child(state.parse_move("0a1+0b1"))
    assert cake_evaluate(after, 0) > 0 > cake_evaluate(after, 1)


def test_poisoned_cake_wins_at_once_only_by_eating_every_other_candy() -> None:
    game = spheria.load_game("special-cake", variant="poisoned")
    assert cake_can_win_now(game.state_from_spn("wb.............r/........./..../. 1 eat"))
    assert not cake_can_win_now(game.state_from_spn("w.b............r/........./..../. 1 eat"))
    mint = spheria.load_game("special-cake", variant="mint")
    assert not cake_can_win_now(mint.state_from_spn("w.............../........./..../. 1 eat"))


def test_games_whose_kit_says_nothing_get_the_generic_knowledge() -> None:
    game = Takeaway()
    assert game.kit().knowledge == Knowledge()
    assert evaluation(game)(takeaway(5), 0) == 0.0
    assert position_key(game)(takeaway(5)) == "5 1"
    assert win_test(game)(takeaway(2)) and not win_test(game)(takeaway(3))


def with_knowledge(monkeypatch: pytest.MonkeyPatch, knowledge: Knowledge) -> None:
    """Have :class:`Takeaway`'s kit tell the searches ``knowledge``."""
    monkeypatch.setattr(Takeaway, "kit", classmethod(lambda cls: GameKit(knowledge=knowledge)))


# -- seeds ----------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["greedy:seed=7", "mcts:iterations=150,seed=7", "alphabeta:depth=2,seed=7"])
def test_the_same_seed_plays_the_same_game(spec: str) -> None:
    def game_record() -> list[str]:
        state = SPLINE.new_initial_state()
        agents = [make_agent(spec), make_agent(spec)]
        while not state.is_terminal():
            player = state.current_player()
            state.apply(agents[player].choose(state, player))
        return [str(m) for m in state.history]

    assert game_record() == game_record()


def test_different_seeds_break_ties_differently() -> None:
    state = SPLINE.new_initial_state()
    assert len({choose(GreedyAgent(seed=seed), state) for seed in range(10)}) > 1
    assert len({choose(AlphaBetaAgent(depth=1, seed=seed), state) for seed in range(10)}) > 1


# -- MCTS: tree reuse and reward vectors -------------------------------------------------------


def test_mcts_keeps_the_subtree_of_the_position_it_is_asked_next() -> None:
    agent = MCTSAgent(iterations=400, seed=4)
    state = SPLINE.new_initial_state()
    mine = agent.choose(state, 0)
    assert agent.last_stats is not None and agent.last_stats.reused_visits == 0
    state.apply(mine)
    reply = max(state.legal_moves(), key=lambda move: agent.tree_visits([mine, move]))
    kept = agent.tree_visits([mine, reply])
    assert kept > 0
    state.apply(reply)
    agent.choose(state, 0)
    assert agent.last_stats.reused_visits == kept
    assert agent.last_stats.root_visits == kept + 400


def test_mcts_starts_afresh_elsewhere_or_when_told_not_to_reuse() -> None:
    agent = MCTSAgent(iterations=100, seed=4)
    agent.choose(SPLINE.new_initial_state(), 0)
    other = SPLINE.state_from_spn("w..............b/........./..../. 1")  # not reached from the last root
    agent.choose(other, 0)
    assert agent.last_stats is not None and agent.last_stats.reused_visits == 0
    fresh = MCTSAgent(iterations=100, seed=4, reuse=0)
    state = SPLINE.new_initial_state()
    state.apply(fresh.choose(state, 0))
    state.apply(state.legal_moves()[0])
    fresh.choose(state, 0)
    assert fresh.last_stats is not None and fresh.last_stats.reused_visits == 0


def test_mcts_backs_up_one_reward_per_seat_with_three_players() -> None:
    # Seat 3 (index 2) to move with 2 tokens: taking both wins for seat 3 only. Choosing well needs
    # the rewards of seat 3, not of seat 1 or of "the previous mover".
    agent = MCTSAgent(iterations=300, seed=1)
    state = takeaway(2, to_move=3, players=3)
    assert choose(agent, state) == "2"
    values = agent.root_values()
    assert len(values) == 3
    assert values[2] > 0 > values[0] and values[1] < 0
    assert sum(values) == pytest.approx(-1.0)  # one winner (+1), two losers (-1) in every rollout
    assert agent.root_children()["2"][1] == [-1.0, -1.0, 1.0]


def test_mcts_rolls_out_with_the_guided_playout_when_told_and_falls_back_where_there_is_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []

    def playout(name: str) -> Any:
        def run(state: State[Any], rand: Any) -> list[float]:
            calls.append(name)
            return [-1.0, 1.0]

        return run

    game = Takeaway(pile=20)
    with_knowledge(monkeypatch, Knowledge(playout=playout("game"), guided_playout=playout("guided")))
    guided = MCTSAgent(iterations=50, seed=1, rollout="guided")
    assert guided.name == "mcts:iterations=50,c=1.4,rollout=guided,seed=1"
    guided.choose(game.new_initial_state(), 0)
    assert calls and set(calls) == {"guided"}
    calls.clear()
    with_knowledge(monkeypatch, Knowledge(playout=playout("game")))
    MCTSAgent(iterations=50, seed=1, rollout="guided").choose(game.new_initial_state(), 0)
    assert calls and set(calls) == {"game"}  # no guided playout: the game's own


def test_mcts_reward_vectors_in_three_player_spinca() -> None:
    state = spheria.load_game("spinca", players=3).new_initial_state()
    agent = MCTSAgent(iterations=40, seed=3)
    choose(agent, state)
    values = agent.root_values()
    assert len(values) == 3 and all(-1.0 <= v <= 1.0 for v in values)
    assert agent.last_stats is not None and agent.last_stats.root_visits == 40


def test_mcts_rolls_out_with_the_games_own_playout_unless_told_random(monkeypatch: pytest.MonkeyPatch) -> None:
    # A playout that always says seat 2 wins: the game's playout decides every non-terminal leaf.
    calls: list[int] = []

    def seat_two_wins(state: State[Any], rand: Any) -> list[float]:
        calls.append(len(state.history))
        return [-1.0, 1.0]

    with_knowledge(monkeypatch, Knowledge(playout=seat_two_wins))
    game = Takeaway(pile=20)
    with_playout = MCTSAgent(iterations=200, seed=1)
    with_playout.choose(game.new_initial_state(), 0)
    assert calls and all(plies >= 1 for plies in calls)  # leaves only, never the root itself
    assert with_playout.root_values() == pytest.approx([-1.0, 1.0])  # no leaf was terminal 20 tokens deep
    calls.clear()
    plain = MCTSAgent(iterations=200, seed=1, rollout="random")
    assert plain.name == "mcts:iterations=200,c=1.4,rollout=random,seed=1"
    plain.choose(game.new_initial_state(), 0)
    assert calls == []
    values = plain.root_values()
    assert values[0] == pytest.approx(-values[1]) and abs(values[0]) < 1.0  # real games: both seats win some


@pytest.mark.parametrize("spec", ["mcts:time=0.5", "alphabeta:time=0.5", "spagyric:time=0.5"])
def test_a_cpu_clock_budget_counts_the_thinking_threads_cpu_seconds(spec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``clock=cpu`` reads the thread's CPU clock: on a CPU clock made to run 50 times as fast as the
    wall, a 0.5 s search ends after a hundredth of a second of it (well under 0.3 s even on a loaded
    machine), while on the wall clock it uses its time."""
    import time

    monkeypatch.setattr(time, "thread_time", lambda: 50 * time.perf_counter())
    game = spheria.load_game("spagyric" if spec.startswith("spagyric") else "spline")
    state = game.new_initial_state(seed=1)
    player = 0
    for clock in ("cpu", "wall"):
        agent = make_agent(f"{spec},clock={clock},seed=1")
        assert ("clock=cpu" in agent.name) == (clock == "cpu") and make_agent(agent.name).name == agent.name
        start = time.perf_counter()
        agent.choose(state.view(player), player)
        took = time.perf_counter() - start
        if clock == "cpu":
            assert took < 0.3, f"{agent.name} took {took:.2f} s on a clock that runs 50 times as fast"
        else:
            assert took >= 0.4, f"{agent.name} stopped after {took:.2f} s of its 0.5 s"


def test_a_game_without_levels_says_so_and_no_level_fits_it() -> None:
    game = Takeaway()
    assert game.kit().levels is None
    with pytest.raises(ValueError, match="no levels are defined for 'test-takeaway'"):
        levels_for(game)
    assert not LevelAgent(3).fits(game)
    with pytest.raises(ValueError, match="level does not play Takeaway"):
        check_spec("level:3", game)
    assert "level" not in agents_for(game) and "random" in agents_for(game)
