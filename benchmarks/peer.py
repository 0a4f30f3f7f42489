"""A Spline seat that wraps the public peer: zero-play's ``MctsPlayer`` on the ``shibumi`` package's Spline.

The peer is not a dependency of Spheria: install it into a benchmark environment only
(``pip install shibumi zero-play``). :func:`install` registers the seat as the agent ``peer``
(``peer:iterations=600,seed=3``) for this process and the processes it forks, so the arena and
:mod:`benchmarks.match` can seat it like any agent; the package never learns of it.

The two programs number the 30 sites alike (level by level, row by row, column by column: site
``s`` is the peer's move index ``s``), and the peer's first player (its ``X_PLAYER``) is
Spheria's seat 0. :func:`check_mapping` verifies both by playing random legal moves through
both programs and comparing, at every ply, the legal moves, the end of the game and its winner.

``python -m benchmarks.peer --check 200`` runs that check; ``python -m benchmarks.peer --time 5``
prints the peer's seconds per move at 600 iterations. ``python -m benchmarks.peer --errors 40``
plays 40 games with a challenger as White (which starts lost: Spline is a win for Black) and
counts, at each of the peer's decisions, whether it kept its proven win (:func:`peer_errors`);
``python -m benchmarks.peer --ceiling 8`` asks, at White's decisions in 8 such games, how often
the peer goes wrong after each of White's moves (:func:`swindle_ceiling`): what the best possible
swindle could buy.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from spheria.agents.options import SEED
from spheria.agents.registry import make_agent, register_agent
from spheria.engine.board import NUM_SITES, SITE_COORDS, iter_sites
from spheria.games.spline.rules import Spline, SplineMove, SplineState
from spheria.games.spline.search import SplineSearch
from spheria.kernel.agent import Agent, Plays
from spheria.kernel.game import PlayerView
from spheria.kernel.options import Option
from spheria.kernel.registry import load_game

#: The iterations a move the peer's author calls "really hard to beat".
PEER_ITERATIONS = 600


def _peer_modules() -> tuple[Any, Any, Any]:
    try:  # by name: the peer is no dependency, so neither mypy nor the package may expect it
        numpy = importlib.import_module("numpy")
        game = importlib.import_module("shibumi.spline.game")
        mcts = importlib.import_module("zero_play.mcts_player")
    except ImportError as error:  # pragma: no cover - the peer is installed by hand
        raise RuntimeError(f"the peer needs `pip install shibumi zero-play` in this environment ({error})") from None
    return numpy, game.SplineState, mcts.MctsPlayer


def peer_player(seat: int) -> int:
    """The peer's player number for Spheria's ``seat``: its first player (X, 1) is seat 0."""
    _, PeerState, _ = _peer_modules()
    return int(PeerState.X_PLAYER if seat == 0 else PeerState.O_PLAYER)


def peer_state(state: SplineState) -> Any:
    """The peer's position for ``state``: each ball on the same site index, seat 0's as X."""
    _, PeerState, _ = _peer_modules()
    peer = PeerState()
    levels = peer.get_levels()
    for seat, mask in enumerate(state.masks()):
        for site in iter_sites(mask):
            level, row, col = SITE_COORDS[site]
            levels[level, row, col] = peer_player(seat)
    return peer


def peer_legal_sites(peer: Any) -> set[int]:
    """The sites the peer lets the player to move take (none once someone has won)."""
    return {int(i) for i in peer.get_valid_moves().nonzero()[0]}


class PeerAgent(Agent):
    """zero-play's ``MctsPlayer`` (random playouts) at ``iterations`` a move, seated in a Spheria game."""

    spec_name = "peer"
    option_specs = (
        Option(
            "iterations", PEER_ITERATIONS, "the peer's MCTS iterations a move", kind=int, minimum=1, maximum=100_000
        ),
        SEED,
    )
    named_options = ("iterations",)
    plays = Plays(games=(Spline,), seats=(2,), hidden_information=False)

    def __init__(self, iterations: int | None = None, seed: int | None = None, max_time: float | None = None) -> None:
        values = self.checked_options(max_time, iterations=iterations, seed=seed)
        self.iterations: int = values["iterations"]
        self.seed: int | None = values["seed"]
        self.name = self.spec_from(values)
        self._player: Any = None
        self._seat: int | None = None

    @classmethod
    def seeded(cls, seed: int) -> PeerAgent:
        """The peer at :data:`PEER_ITERATIONS` with ``seed``."""
        return cls(seed=seed)

    def reset(self) -> None:
        self._player = None
        self._seat = None

    def choose(self, view: PlayerView, player: int) -> Any:
        numpy, _, MctsPlayer = _peer_modules()
        if not isinstance(view, SplineState):
            raise ValueError("the peer plays Spline only")
        position = peer_state(view)
        if self._player is None or self._seat != player:
            if self.seed is not None:
                numpy.random.seed(self.seed)  # the peer draws from numpy's global generator
            self._player = MctsPlayer(position, peer_player(player), self.iterations)
            self._seat = player
        move = SplineMove(int(self._player.choose_move(position)))
        if move not in view.legal_moves():
            raise ValueError(f"the peer chose {move}, which is not legal in {view.to_spn()}")
        return move

    def max_seconds_per_move(self) -> float:
        return 0.0  # the peer's budget is in iterations; benchmarks.match measures its time


def install() -> None:
    """Register ``peer`` as an agent in this process (and the worker processes it forks)."""
    _peer_modules()
    register_agent(PeerAgent.spec_name, PeerAgent)


def check_mapping(games: int, seed: int = 0) -> int:
    """Play ``games`` random games through both programs; return the plies compared.

    At every ply both must offer the same legal sites, agree whether the game is over and, at
    the end, on the winner; ``AssertionError`` names the first difference.
    """
    spline = load_game("spline")
    rng = random.Random(seed)
    plies = 0
    for game_index in range(games):
        state = spline.new_initial_state()
        assert isinstance(state, SplineState)
        while True:
            peer = peer_state(state)
            ours = set() if state.is_terminal() else {move.site for move in state.legal_moves()}
            where = f"game {game_index}, ply {len(state.history)}, {state.to_spn()}"
            assert peer_legal_sites(peer) == ours, f"legal sites differ at {where}"
            assert int(peer.get_active_player()) == peer_player(state.current_player() % 2) or state.is_terminal()
            assert peer.is_ended() == state.is_terminal(), f"end differs at {where}"
            if state.is_terminal():
                winner = state.winner
                assert winner is not None and int(peer.get_winner()) == peer_player(winner), f"winner at {where}"
                break
            state.apply(rng.choice(state.legal_moves()))
            plies += 1
    return plies


def time_peer(seconds: float, iterations: int = PEER_ITERATIONS, seed: int = 0) -> dict[str, Any]:
    """The peer's seconds a move, over random-opening positions for about ``seconds``."""
    spline = load_game("spline")
    rng = random.Random(seed)
    times: list[float] = []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = spline.new_initial_state()
        for _ in range(rng.randrange(0, 12)):
            state.apply(rng.choice(state.legal_moves()))
        if state.is_terminal():
            continue
        agent = PeerAgent(iterations, seed=rng.randrange(2**31))
        began = time.perf_counter()
        agent.choose(state, state.current_player())
        times.append(time.perf_counter() - began)
    return {"iterations": iterations, "moves": len(times), "mean_s": round(sum(times) / len(times), 3)}


def peer_errors(
    challenger: str, games: int, seed: int = 0, black: Callable[[int], Agent] | None = None, from_balls: int = 0
) -> dict[int, list[int]]:
    """Play ``games`` games of ``challenger`` as White against the peer (or ``black(seed)``); for
    each ball count from ``from_balls`` at which Black moved from a proven win: ``[decisions,
    moves that threw the win away]``. Each game prints a line: its seed, winner, and the ball
    counts of Black's errors.
    """
    spline = load_game("spline")
    prover = SplineSearch()
    table: dict[int, list[int]] = {}
    for index in range(games):
        agents = (make_agent(challenger), (black or PeerAgent.seeded)(seed + index))
        state = spline.new_initial_state()
        assert isinstance(state, SplineState)
        errors = []
        while not state.is_terminal():
            seat = state.current_player()
            move = agents[seat].choose(state, seat)
            balls = len(state.history)
            if seat == 1 and balls >= from_balls and (winning := prover.winning_moves(state)):
                row = table.setdefault(balls, [0, 0])
                row[0] += 1
                if move not in winning:
                    row[1] += 1
                    errors.append(balls)
            state.apply(move)
        print(f"game {index}, seed {seed + index}: winner seat {state.winner}, Black's errors at {errors}", flush=True)
    return table


def swindle_ceiling(
    challenger: str,
    games: int,
    runs: int = 6,
    seed: int = 0,
    plies: range = range(6, 13),
    black: Callable[[int], Agent] | None = None,
) -> list[dict[str, Any]]:
    """At White's lost decisions (``plies``) in ``games`` games of ``challenger`` against the peer
    (or ``black(seed)``): for every move White could make (but one that loses at once), the share
    of ``runs`` replies that throw Black's proven win away, each by a copy of the game's peer as
    it stands (its search tree kept from the moves before, as in the game; the copies draw
    different random numbers).

    One row a decision: the ply, the move played and its share, the best share of any move,
    and the moves tried. Each row is printed as it is found.
    """
    spline = load_game("spline")
    prover = SplineSearch()
    rows: list[dict[str, Any]] = []
    for index in range(games):
        agents = (make_agent(challenger), (black or PeerAgent.seeded)(seed + index))
        state = spline.new_initial_state()
        assert isinstance(state, SplineState)
        while not state.is_terminal():
            seat = state.current_player()
            move = agents[seat].choose(state, seat)
            if seat == 0 and len(state.history) in plies and prover.winning_move(state) is None:
                shares = {}
                for candidate in state.legal_moves():
                    child = state.child(candidate)
                    assert isinstance(child, SplineState)
                    if child.is_terminal() or any(child.child(reply).is_terminal() for reply in child.legal_moves()):
                        continue
                    keeping = prover.winning_moves(child)
                    replies = [copy.deepcopy(agents[1]).choose(child, 1) for _ in range(runs)]
                    shares[str(candidate)] = sum(reply not in keeping for reply in replies) / runs
                if shares:
                    row = {
                        "game": index,
                        "ply": len(state.history),
                        "played": str(move),
                        "played_share": shares.get(str(move), 0.0),
                        "best_share": max(shares.values()),
                        "moves": len(shares),
                    }
                    print(row, flush=True)
                    rows.append(row)
            state.apply(move)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.peer", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", type=int, default=0, metavar="GAMES", help="verify the site and seat mapping")
    parser.add_argument("--time", type=float, default=0.0, metavar="S", help="time the peer's moves for S seconds")
    parser.add_argument("--iterations", type=int, default=PEER_ITERATIONS)
    parser.add_argument("--errors", type=int, default=0, metavar="GAMES", help="count the peer's errors as Black")
    parser.add_argument("--ceiling", type=int, default=0, metavar="GAMES", help="what the best swindle could buy")
    parser.add_argument("--runs", type=int, default=6, help="peer searches a candidate move (--ceiling)")
    parser.add_argument("--challenger", default="alphabeta:time=0.5,clock=cpu,engine=game,swindle=mcts")
    parser.add_argument("--seed", type=int, default=0, help="the first game's peer seed (--errors)")
    args = parser.parse_args(argv)
    if args.check:
        plies = check_mapping(args.check)
        print(f"{args.check} random games, {plies} plies: legal sites, turn, end and winner agree ({NUM_SITES} sites)")
    if args.time:
        print(time_peer(args.time, args.iterations))
    if args.ceiling:
        rows = swindle_ceiling(args.challenger, args.ceiling, args.runs, args.seed)
        for key in ("played_share", "best_share"):
            print(f"{key}: mean {sum(row[key] for row in rows) / len(rows):.3f} over {len(rows)} decisions")
    if args.errors:
        table = peer_errors(args.challenger, args.errors, args.seed)
        print("balls  decisions  errors  error rate")
        for balls, (decisions, errors) in sorted(table.items()):
            print(f"{balls:5}  {decisions:9}  {errors:6}  {errors / decisions:10.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
