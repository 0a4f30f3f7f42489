"""Write ``today.sqlite3``: a SQLite file as the server wrote it before versioned migrations.

Run with the code of the commit before migrations (f875ac1), whose store classes made their own
tables, so the file holds exactly what that server kept; tests/server/test_migrations.py opens it
with today's code::

    git archive f875ac1 src | tar -x -C /tmp/before-migrations
    PYTHONPATH=/tmp/before-migrations/src python tests/server/data/write_today_file.py tests/server/data/today.sqlite3

It holds a guest (Ana), an account (mina), a rated timed Spline game between mina and level 2
played to its end, with its clocks and the ratings it changed, chat in it, an untimed Spline game
in play between mina (seat 0, taken through a challenge: ``seat_players``) and a random agent,
with its invite token ``TODAY_TOKEN`` unclaimed and a chat message, and mina's rating on a puzzle.
"""

from __future__ import annotations

import hashlib
import random
import sys
from pathlib import Path

from spheria.kernel.clock import SeatClock, TimeControl
from spheria.kernel.record import Record, set_up
from spheria.kernel.registry import load_game
from spheria.puzzles.puzzle import Puzzle
from spheria.server.accounts import SQLiteAccounts
from spheria.server.challenges import SQLiteSeats
from spheria.server.chat import SQLiteChat
from spheria.server.clocks import ClockStore
from spheria.server.profiles import ProfileStore, seat_of
from spheria.server.puzzles import PuzzleStore
from spheria.server.storage import SeatRecord, SQLiteStorage, StoredGame
from spheria.server.views import result_of

#: The invite token of seat 0 of the game in play (the file keeps only its digest).
TODAY_TOKEN = "today-invite-of-seat-0"
RATED, PLAYING = "today-rated", "today-playing"
PUZZLE = Puzzle("spline", {}, "spline-puzzle-position", ("a1",), difficulty=3)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def write(path: Path) -> None:
    store = SQLiteStorage(str(path))
    accounts, seats, chat = SQLiteAccounts(store), SQLiteSeats(store), SQLiteChat(store)
    clocks, profiles, puzzles = ClockStore(store), ProfileStore(store), PuzzleStore(store)
    ana = accounts.create_guest("Ana", digest("session of Ana"), None)
    mina = accounts.create_account("mina", "$argon2id$not-a-real-hash", digest("session of mina"), None, None)

    # a rated timed game, mina against level 2, played to its end and rated
    rng = random.Random(39)
    state = set_up("spline", {}, None, 5)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_moves()))
    moves = state.history_notation()
    record = Record("spline", {}, 5, None, ["human", "level:2"], [])
    game_seats = [SeatRecord(0, "human", None, digest("rated invite")), SeatRecord(1, "agent", "level:2")]
    store.create_game(StoredGame(RATED, record, game_seats, rated=True))
    seats.hold(RATED, {0: mina.id})
    clocks.create(RATED, TimeControl(300, 2), {0: 0}, None)
    left = [300_000, 300_000]
    for ply in range(len(moves)):
        seat = ply % 2
        left[seat] -= 900
        clocks.save(RATED, {1 - seat: ply}, None, (ply, [SeatClock(seat, 900, left[seat])]))
    result = result_of(state)
    assert result is not None
    store.append_moves(RATED, 0, moves, result)
    clocks.save(RATED, {}, None)
    rated_seats = [seat_of(mina, (len(moves) + 1) // 2), seat_of("level:2", len(moves) // 2)]
    profiles.rate_once(RATED, load_game("spline"), result["returns"], rated_seats, rated=True, finished=True)
    chat.add(RATED, "players", mina.id, "mina", False, 0, "good game")

    # a game in play: mina's seat taken through a challenge, an agent on the other
    state = set_up("spline", {}, None, 11)
    for _ in range(4):
        state.apply(random.Random(2).choice(state.legal_moves()))
    record = Record("spline", {}, 11, None, ["human", "random:seed=5"], state.history_notation())
    game_seats = [SeatRecord(0, "human", None, digest(TODAY_TOKEN)), SeatRecord(1, "agent", "random:seed=5")]
    store.create_game(StoredGame(PLAYING, record, game_seats))
    seats.hold(PLAYING, {0: mina.id})
    accounts.link_game(mina.id, PLAYING)
    said = chat.add(PLAYING, "spectators", ana.id, "Ana", True, None, "hello from the stands")
    chat.add_reader(PLAYING, "spectators", ana.id)
    chat.report(said.id, mina.id)

    puzzles.end_try(mina.id, PUZZLE, solved=True, rated=True, now=1_700_000_000.0)
    store.close()


if __name__ == "__main__":
    target = Path(sys.argv[1])
    target.unlink(missing_ok=True)
    write(target)
