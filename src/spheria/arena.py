"""The arena: many games between agents, seats rotated fairly, results with ratings.

Every game is a :class:`GameJob` — the game, the agent spec in each seat and a seed — that
any worker can play by itself, so games run in parallel processes (or on a cluster) and the
same seed always gives the same games. Seats rotate so that after any number of games each
agent has sat in each seat equally often, to within one game (see :func:`seating`).

>>> from spheria.kernel.registry import default_game_name
>>> report = run_arena(default_game_name(), {}, ["random", "greedy"], games=4, seed=1)
>>> sorted(report.agents)
['greedy', 'random']
>>> sum(row.games for row in report.agents.values())
8
"""

from __future__ import annotations

import importlib
import itertools
import math
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spheria.agents.registry import check_spec, make_agent, parse_spec
from spheria.i18n import N_, N_plural, ngettext
from spheria.i18n import gettext as _
from spheria.i18n.width import display_width, pad
from spheria.kernel.agent import Agent
from spheria.kernel.options import number_text
from spheria.kernel.record import Record
from spheria.kernel.registry import load_game
from spheria.match import play

# -- the text people read (translated where it is shown) -----------------------------------------
TOO_FEW_AGENTS = N_("the game has {seats} seats but only {agents} agents were named")
AGENT_TWICE = N_("name each agent once; to pit an agent against itself give it distinct options")
BACKEND_NEEDS_EXTRA = N_("the {name} backend needs the {extra} extra: pip install 'spheria[{extra}]' ({error})")
UNKNOWN_BACKEND = N_("unknown backend {name} (backends: {backends})")
#: The table's column headings, each as wide as its column (or wider).
COLUMNS = (
    N_("agent"),
    N_("games"),
    N_("win"),
    N_("draw"),
    N_("loss"),
    N_("score"),
    N_("interval"),  # after "95% " (a % in a message would make it a %-format to gettext tools)
    N_("rating"),
    N_("by seat (w-d-l)"),
)
GAMES_DONE = N_plural("{done} of {requested} game", "{done} of {requested} games")
INTERRUPTED = N_("(interrupted: the finished games are counted)")
TIME_BUDGET = N_(
    "{agent} (time={seconds} s) has a time budget: its results depend on the machine and its load; "
    "give it iterations or a depth for a reproducible arena"
)


@dataclass(frozen=True)
class GameJob:
    """One arena game: everything a worker needs to play it."""

    index: int
    game: str
    options: dict[str, Any]
    seats: tuple[str, ...]  # agent spec per seat, without the per-game seed
    seed: int


@dataclass(frozen=True)
class GameResult:
    index: int
    seats: tuple[str, ...]
    returns: tuple[float, ...]
    moves: int
    record: dict[str, Any] | None = None


def derive_seed(*parts: int) -> int:
    """A seed for one game or seat, fixed by the arena seed and the game and seat numbers."""
    return random.Random(":".join(map(str, parts))).randrange(2**32)


def seeded(spec: str, seed: int) -> str:
    """``spec`` with ``seed=`` added unless it names one (agents without a seed ignore none)."""
    _, params = parse_spec(spec)
    if "seed" in params:
        return spec
    return f"{spec}{',' if ':' in spec else ':'}seed={seed}"


def play_job(job: GameJob, keep_record: bool = False) -> GameResult:
    """Play one arena game to the end (this runs in a worker)."""
    game = load_game(job.game, **job.options)
    state = game.new_initial_state(seed=job.seed)
    specs = [seeded(spec, derive_seed(job.seed, seat)) for seat, spec in enumerate(job.seats)]
    agents = [make_agent(spec) for spec in specs]
    returns = play(state, agents)
    record = Record.from_state(state, specs).to_json() if keep_record else None
    return GameResult(job.index, job.seats, tuple(returns), len(state.history), record)


def seating(agents: Sequence[str], seats: int, index: int) -> tuple[str, ...]:
    """Who sits where in game ``index``: fair after any number of games.

    Games come in blocks of ``len(agents)``: within a block the agents' order is turned one
    place per game (game ``k`` of the block seats agent ``order[(k + s) % n]`` in seat ``s``),
    so over a block every agent sits in every seat exactly once. Hence after any number of
    games each agent has sat in each seat equally often, to within one game. Successive blocks
    take the orders with the first agent fixed in turn (``(n - 1)!`` of them), so over
    ``n!`` games every ordering of the agents is played.

    >>> [seating("abc", 3, i) for i in range(6)]
    [('a', 'b', 'c'), ('b', 'c', 'a'), ('c', 'a', 'b'), ('a', 'c', 'b'), ('c', 'b', 'a'), ('b', 'a', 'c')]
    """
    _check_agents(agents, seats)
    count = len(agents)
    block, turn = divmod(index, count)
    rest = list(agents[1:])
    order = [agents[0], *_nth_permutation(rest, block % math.factorial(len(rest)))]
    return tuple(order[(turn + seat) % count] for seat in range(seats))


def seatings(agents: Sequence[str], seats: int) -> list[tuple[str, ...]]:
    """A full cycle of :func:`seating`: every ordering of the agents, ``n!`` games."""
    return [seating(agents, seats, i) for i in range(math.factorial(len(agents)))]


def _check_agents(agents: Sequence[str], seats: int) -> None:
    if len(agents) < seats:
        raise ValueError(_(TOO_FEW_AGENTS).format(seats=seats, agents=len(agents)))
    if len(set(agents)) != len(agents):
        raise ValueError(_(AGENT_TWICE))


def _nth_permutation(items: list[str], n: int) -> list[str]:
    """The ``n``-th ordering of ``items`` in the order ``itertools.permutations`` gives them."""
    pool, result = list(items), []
    for size in range(len(pool), 0, -1):
        index, n = divmod(n, math.factorial(size - 1))
        result.append(pool.pop(index))
    return result


def make_jobs(game: str, options: dict[str, Any], agents: Sequence[str], games: int, seed: int) -> list[GameJob]:
    seats = load_game(game, **options).num_players
    _check_agents(agents, seats)
    return [GameJob(i, game, dict(options), seating(agents, seats, i), derive_seed(seed, i)) for i in range(games)]


def time_budget(agent: Agent) -> float | None:
    """The seconds a move ``agent`` thinks when its budget is time, else ``None`` (a budget of
    iterations or depth, or no search): with one, its moves depend on the machine and its load, so
    the same arena seed need not give the same games.

    A time budget is an option declared ``seconds=True`` (``time=``) whose value is in force, given
    in the spec or by default (every agent keeps its options under their names); it counts too in
    any agent this one plays through (a level's agent, a blunderer's, a solver's set-up agent), and
    the longest is returned.

    >>> from spheria.agents.registry import make_agent
    >>> [time_budget(make_agent(spec)) for spec in ("mcts", "mcts:time=0.5", "mcts:iterations=50", "random")]
    [1.0, 0.5, None, None]
    """
    found: list[float] = []
    seen: set[int] = set()
    stack = [agent]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        for option in current.option_specs:
            value = getattr(current, option.name, None) if option.seconds else None
            if isinstance(value, int | float) and not isinstance(value, bool):
                found.append(float(value))
        held = getattr(current, "__dict__", {})  # (an agent with __slots__ holds none we can see)
        stack.extend(inner for inner in held.values() if isinstance(inner, Agent))
    return max(found, default=None)


# -- results ---------------------------------------------------------------------------------


@dataclass
class AgentRow:
    """Wins, draws and losses of one agent (overall, or in one seat)."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Points per game: a win 1, a draw ½."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """The Wilson 95 % interval of the score."""
        n = self.games
        if not n:
            return (0.0, 1.0)
        p = self.score
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return (max(0.0, centre - half), min(1.0, centre + half))

    def add(self, value: float) -> None:
        if value > 0:
            self.wins += 1
        elif value < 0:
            self.losses += 1
        else:
            self.draws += 1


@dataclass
class ArenaReport:
    game: str
    options: dict[str, Any]
    agent_specs: list[str]
    requested: int
    results: list[GameResult] = field(default_factory=list)
    agents: dict[str, AgentRow] = field(default_factory=dict)
    by_seat: dict[str, list[AgentRow]] = field(default_factory=dict)
    interrupted: bool = False
    #: The agents whose budget is time (see :func:`time_budget`), with their seconds a move, in the
    #: order they were named: while there is one, the same seed need not give the same games.
    time_budgets: dict[str, float] = field(default_factory=dict)

    def add(self, result: GameResult) -> None:
        self.results.append(result)
        for seat, (spec, value) in enumerate(zip(result.seats, result.returns, strict=True)):
            self.agents.setdefault(spec, AgentRow()).add(value)
            seats = self.by_seat.setdefault(spec, [AgentRow() for _ in result.seats])
            seats[seat].add(value)

    def ratings(self) -> dict[str, float]:
        """Bradley–Terry strengths as Elo-scale ratings (mean 1500); see :func:`bradley_terry`.

        Games are counted in the order they were dealt, not the order they finished, so the
        same games give the same ratings to the last bit however the workers raced.
        """
        pairs: list[tuple[str, str, float]] = []
        for result in sorted(self.results, key=lambda r: r.index):
            for (a, ra), (b, rb) in itertools.combinations(zip(result.seats, result.returns, strict=True), 2):
                if ra != rb or ra == 0:
                    pairs.append((a, b, 1.0 if ra > rb else 0.0 if ra < rb else 0.5))
        return bradley_terry(self.agent_specs, pairs)

    def ranking(self, ratings: Mapping[str, float]) -> list[tuple[str, AgentRow]]:
        """The agents strongest first: by rating, then score; agents tied on both in the order
        they were named, so that a table never depends on the order results arrived in."""
        named = {spec: position for position, spec in enumerate(self.agent_specs)}
        return sorted(
            self.agents.items(),
            key=lambda kv: (-round(ratings[kv[0]], 6), -kv[1].score, named.get(kv[0], len(named)), kv[0]),
        )

    def to_json(self) -> dict[str, Any]:
        ratings = self.ratings()
        return {
            "game": self.game,
            "options": self.options,
            "games": len(self.results),
            "requested": self.requested,
            "interrupted": self.interrupted,
            "time_budgets": dict(self.time_budgets),
            "reproducible": not self.time_budgets,
            "agents": {
                spec: {
                    "wins": row.wins,
                    "draws": row.draws,
                    "losses": row.losses,
                    "score": round(row.score, 4),
                    "score_95": [round(x, 4) for x in row.interval()],
                    "rating": round(ratings[spec], 1),
                    "by_seat": [
                        {"wins": s.wins, "draws": s.draws, "losses": s.losses} for s in self.by_seat.get(spec, [])
                    ],
                }
                for spec, row in self.ranking(ratings)
            },
        }

    def table(self) -> str:
        """The results as a text table, strongest first."""
        ratings = self.ratings()
        heading = [_(column) for column in COLUMNS]
        heading[6] = f"95% {heading[6]}"
        width = max([display_width(s) for s in self.agents] + [display_width(heading[0])])
        lines = [
            f"{pad(heading[0], width)}  {pad(heading[1], 5, '>')} {pad(heading[2], 5, '>')} {pad(heading[3], 5, '>')}"
            f" {pad(heading[4], 5, '>')}  {pad(heading[5], 5)}  {pad(heading[6], 11)}  {pad(heading[7], 7, '>')}"
            f"  {heading[8]}",
        ]
        for spec, row in self.ranking(ratings):
            low, high = row.interval()
            seats = "  ".join(f"{s.wins}-{s.draws}-{s.losses}" for s in self.by_seat.get(spec, []))
            lines.append(
                f"{pad(spec, width)}  {row.games:5d} {row.wins:5d} {row.draws:5d} {row.losses:5d}"
                f"  {row.score:5.3f}  {low:5.3f}–{high:5.3f}  {ratings[spec]:7.1f}  {seats}"
            )
        done = ngettext(GAMES_DONE, self.requested).format(done=len(self.results), requested=self.requested)
        lines.append(done + (" " + _(INTERRUPTED) if self.interrupted else ""))
        lines.extend(self.time_budget_notes())
        return "\n".join(lines)

    def time_budget_notes(self) -> list[str]:
        """One sentence per agent with a time budget, naming it: its results depend on the machine."""
        return [
            _(TIME_BUDGET).format(agent=spec, seconds=number_text(seconds))
            for spec, seconds in self.time_budgets.items()
        ]


def bradley_terry(
    names: Sequence[str], outcomes: Iterable[tuple[str, str, float]], iterations: int = 200
) -> dict[str, float]:
    """Bradley–Terry strengths from pairwise outcomes (1 a beat b, 0 b beat a, ½ a draw), on an Elo scale.

    Fitted by the minorisation–maximisation iteration; one virtual draw against the field
    keeps an unbeaten or winless agent finite. Ratings average 1500.

    >>> r = bradley_terry(["a", "b"], [("a", "b", 1.0)] * 3 + [("a", "b", 0.0)])
    >>> round(r["a"] - r["b"])  # 3 wins to 1 alone would give 191; the virtual draws pull it in
    165
    """
    wins = {n: 0.5 for n in names}  # the virtual draw: half a win ...
    games: dict[tuple[str, str], float] = {}
    for a, b, score in outcomes:
        wins[a] += score
        wins[b] += 1 - score
        key = (a, b) if a < b else (b, a)
        games[key] = games.get(key, 0.0) + 1
    strength = dict.fromkeys(names, 1.0)
    for _iteration in range(iterations):
        new = {}
        for n in names:
            total = 1.0 / (strength[n] + 1.0)  # ... of one game against a unit-strength opponent
            for (a, b), count in games.items():
                if n in (a, b):
                    other = b if n == a else a
                    total += count / (strength[n] + strength[other])
            new[n] = wins[n] / total
        strength = new
    elo = {n: 400 * math.log10(s) for n, s in strength.items()}
    mean = sum(elo.values()) / len(elo) if elo else 0.0
    return {n: 1500 + v - mean for n, v in elo.items()}


# -- running -----------------------------------------------------------------------------------

Backend = Callable[[list[GameJob], int, bool], Iterator[GameResult]]


def local_backend(jobs: list[GameJob], workers: int, keep_records: bool) -> Iterator[GameResult]:
    """Play the jobs here (one worker) or in a pool of processes, yielding results as they finish."""
    if workers <= 1:
        for job in jobs:
            yield play_job(job, keep_records)
        return
    pool = ProcessPoolExecutor(max_workers=workers)
    pending: set[Future[GameResult]] = set()
    try:
        queue = iter(jobs)
        for job in itertools.islice(queue, workers * 2):
            pending.add(pool.submit(play_job, job, keep_records))
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()
                next_job = next(queue, None)
                if next_job is not None:
                    pending.add(pool.submit(play_job, next_job, keep_records))
    finally:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


BACKENDS: dict[str, Backend] = {"local": local_backend}
#: Backends in optional modules (extras), imported the first time they are asked for; each registers itself.
LAZY_BACKENDS: dict[str, tuple[str, str]] = {"ray": ("spheria.integrations.ray_backend", "ray")}


def backend_names() -> list[str]:
    """Every backend name, loaded or not."""
    return sorted(set(BACKENDS) | set(LAZY_BACKENDS))


def get_backend(name: str) -> Backend:
    """The backend called ``name``, importing its module if it lives in an extra.

    >>> get_backend("local") is local_backend
    True
    """
    if name not in BACKENDS and name in LAZY_BACKENDS:
        module, extra = LAZY_BACKENDS[name]
        try:
            importlib.import_module(module)
        except ImportError as error:
            raise ValueError(_(BACKEND_NEEDS_EXTRA).format(name=repr(name), extra=extra, error=error)) from None
    run = BACKENDS.get(name)
    if run is None:
        raise ValueError(_(UNKNOWN_BACKEND).format(name=repr(name), backends=", ".join(backend_names())))
    return run


def run_arena(
    game: str,
    options: dict[str, Any],
    agents: Sequence[str],
    games: int,
    seed: int = 0,
    workers: int = 1,
    records_dir: Path | None = None,
    backend: str | Backend = "local",
    on_result: Callable[[ArenaReport, GameResult], None] | None = None,
) -> ArenaReport:
    """Play ``games`` games and return the report. Ctrl-C stops early and keeps what finished.

    ``backend`` is a backend's name (see :func:`backend_names`) or a :data:`Backend` itself.
    """
    run = backend if callable(backend) else get_backend(backend)
    loaded = load_game(game, **options)
    budgets: dict[str, float] = {}
    for spec in agents:
        seconds = time_budget(check_spec(spec, loaded))  # a bad spec or a misfit fails here, not in a worker
        if seconds is not None:
            budgets[spec] = seconds
    jobs = make_jobs(game, options, agents, games, seed)
    report = ArenaReport(game, dict(loaded.options), list(agents), games, time_budgets=budgets)
    if records_dir is not None:
        records_dir.mkdir(parents=True, exist_ok=True)
    try:
        for result in run(jobs, workers, records_dir is not None):
            report.add(result)
            if records_dir is not None and result.record is not None:
                path = records_dir / f"{game}-{result.index + 1:05d}.spheria.json"
                Record.from_json(result.record).save(path)
            if on_result is not None:
                on_result(report, result)
    except KeyboardInterrupt:
        report.interrupted = True
    report.results.sort(key=lambda r: r.index)
    return report
