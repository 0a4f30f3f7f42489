"""Making puzzles from played games, checking them, and playing them out with the oracle.

A puzzle is a position, reached in a game Spheria's agents played (seeded), where the player to
move has **exactly one winning move** (one move per resulting position: two moves that leave the
same position are one), proved by the game's oracle, and where at least
one plausible move loses. Its *solution* is that move, then the defence and the answer while the
answer stays the only winning one: the defence is, of the defender's moves, the first (in the
order of the legal moves) after which the fewest answers win, so the line goes on as long as a
defence keeps the winner to one answer; it stops when the game ends, when every defence leaves
two or more winning answers (from there any of them wins: the win is clear), or after
:data:`MOST_SOLVER_MOVES` answers. Its *difficulty* counts the plausible moves that lose.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from spheria.agents.registry import make_agent
from spheria.i18n import gettext as _
from spheria.kernel.game import Game, MoveError, State
from spheria.kernel.record import Record
from spheria.kernel.registry import load_game
from spheria.puzzles import messages as M
from spheria.puzzles.maker import PuzzleMaker, game_of, maker_for
from spheria.puzzles.puzzle import Puzzle, PuzzleError

#: The most moves of the solver in a solution line (the first move and its answers).
MOST_SOLVER_MOVES = 3
#: The games :func:`generate` plays without finding a puzzle before it gives up.
MOST_GAMES_WITHOUT_A_PUZZLE = 200
#: The most plies a refutation is played out for.
REFUTATION_PLIES = 8


def outcome(state: State[Any], move: Any) -> str:
    """The position ``move`` leads to, as its notation (equal for moves that are the same move)."""
    return state.child(move).to_spn()


def same_move(state: State[Any], one: Any, other: Any) -> bool:
    """Whether two moves of ``state`` lead to the same position."""
    return outcome(state, one) == outcome(state, other)


def options_of(game: Game) -> dict[str, Any]:
    """The options in force (resolved, none left out)."""
    return {name: value for name, value in game.options.items() if value is not None}


def puzzle_state(puzzle: Puzzle) -> State[Any]:
    """The puzzle's position; :class:`PuzzleError` if its game, options or position are not good."""
    try:
        game = load_game(puzzle.game, **puzzle.options)
    except ValueError as error:
        raise PuzzleError(_(M.BAD_GAME).format(game=puzzle.game, options=puzzle.options_key, error=error)) from None
    try:
        return game.state_from_spn(puzzle.spn)
    except ValueError as error:
        raise PuzzleError(_(M.BAD_POSITION).format(spn=puzzle.spn, game=_(game.title), error=error)) from None


def difficulty(maker: PuzzleMaker, state: State[Any], winning: Any) -> int:
    """How many plausible moves of ``state`` lose (every one but ``winning``)."""
    win = outcome(state, winning)
    return sum(1 for move in maker.plausible(state) if outcome(state, move) != win)


def solution_line(maker: PuzzleMaker, state: State[Any], first: Any, budget: int | None) -> list[str]:
    """The only winning ``first`` move, then the defence and the only winning answer, as record
    entries (the rule of this module's docstring)."""
    line = [state.notation(first)]
    position = state.child(first)
    while len(line) < 2 * MOST_SOLVER_MOVES - 1 and not position.is_terminal():
        best: tuple[Any, list[Any]] | None = None
        for reply in position.legal_moves():
            after = position.child(reply)
            if after.is_terminal():
                continue  # a defence that ends the game at once defends nothing
            answers = maker.winning_moves(after, budget)
            if answers is None:
                return line
            if best is None or len(answers) < len(best[1]):
                best = (reply, answers)
                if len(answers) == 1:
                    break
        if best is None or len(best[1]) != 1:
            break
        reply, (answer,) = best
        line += [position.notation(reply), position.child(reply).notation(answer)]
        position.apply(reply)
        position.apply(answer)
    return line


def examine(maker: PuzzleMaker, state: State[Any], source: str, budget: int | None = None) -> Puzzle | None:
    """The puzzle ``state`` makes, or ``None`` (not exactly one winning move, nothing to find, or
    the oracle could not decide within ``budget`` positions searched; ``None``: no limit)."""
    if state.is_terminal() or not maker.wanted(state):
        return None
    winning = maker.winning_moves(state, budget)
    if winning is None or len(winning) != 1:
        return None
    (move,) = winning
    losing = difficulty(maker, state, move)
    if losing == 0:
        return None
    return Puzzle(
        state.game.name,
        options_of(state.game),
        state.to_spn(),
        tuple(solution_line(maker, state, move, budget)),
        maker.themes(state, move),
        losing,
        source,
    )


def seeded(spec: str, seed: int) -> str:
    """An agent spec with ``seed=`` added (``random`` → ``random:seed=7``)."""
    return f"{spec},seed={seed}" if ":" in spec else f"{spec}:seed={seed}"


def from_record(record: Record, name: str = "", maker: PuzzleMaker | None = None) -> list[Puzzle]:
    """The puzzles of a played game's record (a person's game, the server's, an arena's): each
    position before a move, examined as :func:`examine` does within the maker's ``budget``
    (``name``: how ``source`` names the record). Raises
    :class:`spheria.kernel.record.RecordError` for a record that does not replay."""
    state = record.initial_state()
    maker = maker_for(state.game) if maker is None else maker
    players = " vs ".join(record.players)
    label = f"{name}: " if name else ""
    found: list[Puzzle] = []
    seen: set[str] = set()

    def look(position: State[Any], ply: int) -> None:
        spn = position.to_spn()
        if spn not in seen:
            seen.add(spn)
            puzzle = examine(maker, position, f"{label}{players}, ply {ply}", maker.budget)
            if puzzle is not None:
                found.append(puzzle)

    look(state.clone(), 1)
    for step in record.steps(state):
        if not step.state.is_terminal():
            look(step.state.clone(), step.number + 1)
    return found


@dataclass
class Progress:
    """How far :func:`generate` has got: games played, positions examined, puzzles kept, seconds."""

    games: int = 0
    positions: int = 0
    puzzles: int = 0
    seconds: float = 0.0


def generate(
    name: str,
    count: int,
    seed: int,
    *,
    progress: Callable[[Progress], object] | None = None,
    records: Sequence[tuple[str, Record]] = (),
) -> list[Puzzle]:
    """``count`` puzzles of the game ``name``: first from the played games of ``records`` (each a
    name for ``source`` and a record of this game, in order), then from games its maker's agents
    play, seeded by ``seed``.

    Each seat of each game draws one of the maker's agent specs and its own seed from ``seed``, and
    the oracle may search the maker's ``budget`` of positions for each position (a count, not a
    time), so the same call makes the same puzzles on any machine. A position met twice is kept once. Raises
    ``ValueError`` when :data:`MOST_GAMES_WITHOUT_A_PUZZLE` games in a row give none.
    """
    maker = maker_for(name)
    game = game_of(maker, name)
    rng = random.Random(seed)
    seen: set[str] = set()
    puzzles: list[Puzzle] = []
    report = Progress()
    start = time.perf_counter()
    for label, record in records:
        for kept in from_record(record, label, maker):
            if kept.spn not in seen and len(puzzles) < count:
                seen.add(kept.spn)
                puzzles.append(kept)
    barren = 0
    while len(puzzles) < count:
        if barren >= MOST_GAMES_WITHOUT_A_PUZZLE:
            raise ValueError(_(M.NO_PUZZLE_FOUND).format(games=barren, game=_(game.title)))
        found = len(puzzles)
        specs = [seeded(rng.choice(list(maker.players)), rng.randrange(2**31)) for _ in range(game.num_players)]
        agents = [make_agent(spec) for spec in specs]
        state = game.new_initial_state(seed=rng.randrange(2**31))
        report.games += 1
        while not state.is_terminal() and len(puzzles) < count:
            spn = state.to_spn()
            if spn not in seen:
                seen.add(spn)
                report.positions += 1
                source = f"{' vs '.join(specs)}, ply {len(state.history) + 1}"
                puzzle = examine(maker, state, source, maker.budget)
                if puzzle is not None:
                    puzzles.append(puzzle)
            player = state.current_player()
            state.apply(agents[player].choose(state.view(player), player))
        barren = 0 if len(puzzles) > found else barren + 1
        report.puzzles = len(puzzles)
        report.seconds = time.perf_counter() - start
        if progress is not None:
            progress(report)
    return puzzles


def verify(puzzle: Puzzle, maker: PuzzleMaker | None = None, budget: int | None = None) -> None:
    """Check ``puzzle`` against the oracle: every move of the solver in its solution is the only
    winning move of its position, every move is legal, the game does not end before the line
    does, and its difficulty and themes are those of the position. Raises :class:`PuzzleError`
    naming the first fault. ``maker``: the maker to ask (default a new one of the puzzle's game:
    an oracle of its own, with nothing remembered)."""
    state = puzzle_state(puzzle)
    maker = maker_for(state.game) if maker is None else maker
    first: Any = None
    start = state.clone()
    for number, text in enumerate(puzzle.solution, 1):
        if state.is_terminal():
            raise PuzzleError(_(M.OVER_TOO_SOON))
        try:
            move = state.parse_move(text)
        except MoveError as error:
            raise PuzzleError(_(M.BAD_MOVE).format(number=number, move=text, error=error)) from None
        if number % 2:
            winning = maker.winning_moves(state, budget)
            if winning is None:
                raise PuzzleError(_(M.UNDECIDED).format(number=number))
            if len(winning) != 1 or not same_move(state, winning[0], move):
                found = ", ".join(state.notation(m) for m in winning) or "-"
                raise PuzzleError(_(M.LINE_WRONG).format(number=number, move=text, found=found))
            if first is None:
                first = move
        state.apply(move)
    if difficulty(maker, start, first) != puzzle.difficulty:
        raise PuzzleError(_(M.FACT_WRONG).format(field="difficulty", value=puzzle.difficulty))
    if maker.themes(start, first) != puzzle.themes:
        raise PuzzleError(_(M.FACT_WRONG).format(field="themes", value=", ".join(puzzle.themes) or "-"))


def check_answer(puzzle: Puzzle, state: State[Any], text: str, ply: int) -> bool:
    """Whether ``text``, typed at ``state`` (the puzzle's position after ``ply`` moves of its
    solution), is the solution's move there (or the same move written otherwise); raises
    :class:`MoveError` for a move that is not legal."""
    move = state.parse_move(text)
    return same_move(state, move, state.parse_move(puzzle.solution[ply]))


def refutation(maker: PuzzleMaker, state: State[Any], budget: int | None = None) -> list[str]:
    """How the oracle punishes a wrong move: from ``state`` (after it), the winner's first winning
    move at each turn and the loser's first plausible move, as record entries, until the game
    ends, the oracle cannot decide within ``budget`` positions searched, or :data:`REFUTATION_PLIES` plies."""
    position = state.clone()
    line: list[str] = []
    while len(line) < REFUTATION_PLIES and not position.is_terminal():
        winning = maker.winning_moves(position, budget)
        if winning is None:
            break
        moves = winning or maker.plausible(position) or position.legal_moves()
        line.append(position.notation(moves[0]))
        position.apply(moves[0])
    return line


def hint_moves(maker: PuzzleMaker, puzzle: Puzzle, most: int = 3) -> list[str]:
    """A hint: the winning move among at most ``most`` plausible moves, in notation order (the
    others drawn with the puzzle's id as the seed, so the same puzzle always gives the same)."""
    state = puzzle_state(puzzle)
    win = state.parse_move(puzzle.solution[0])
    others = [m for m in maker.plausible(state) if not same_move(state, m, win)]
    rng = random.Random(puzzle.id)
    chosen = rng.sample(others, min(most - 1, len(others)))
    return sorted(state.notation(m) for m in [win, *chosen])


def verify_all(puzzles: Sequence[Puzzle], budget: int | None = None) -> None:
    """:func:`verify` each puzzle with one new maker per game (independent of the one that made them)."""
    makers: dict[str, PuzzleMaker] = {}
    for puzzle in puzzles:
        if puzzle.game not in makers:
            makers[puzzle.game] = maker_for(puzzle.game)
        verify(puzzle, makers[puzzle.game], budget)
