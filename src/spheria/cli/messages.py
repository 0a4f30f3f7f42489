"""Every sentence ``spheria play`` and ``spheria replay`` show, and the one-line errors every
subcommand shares, in one table for translation (the ``games``, ``arena``, ``solve`` and
``serve`` subcommands keep their own for now).

Each entry is a ``str.format`` template; the names in braces are filled in by the code. Text
from outside (agent specs, record fields, what the user typed, file names) reaches a template
only through :func:`spheria.cli.common.printable`.
"""

from __future__ import annotations

from spheria.i18n import N_plural

# -- every subcommand (cli/common.py, main) --------------------------------------------------------
ERROR = "{prog}: error: {message}"
INTERRUPTED = "{prog}: interrupted"
INTERNAL_ERROR = "internal error: {kind}: {error} (set SPHERIA_DEBUG=1 for the traceback)"
OPTION_ERROR = "--option: {error}"
VARIANT_CONTRADICTS = "--variant {variant} contradicts --option variant={given}"
GAME_ERROR = "{game}: {error}"
SCREEN_CLEARED = "screen cleared"

# -- starting a game ----------------------------------------------------------------------------
PLAYERS_COUNT = "--players names {given} but {game} has {seats} ({names}); e.g. --players {example}"
SEATS = N_plural("{n} seat", "{n} seats")
PLAYERS_EMPTY_SEAT = "--players: seat {seat} ({name}) is empty"
PLAYERS_BAD_AGENT = "--players: seat {seat} ({name}): {error}"
PLAYERS_UNKNOWN = "--players: seat {seat} ({name}): {spec} is not a player; write {human} or an agent: {agents}"
SAVE_NO_FOLDER = "--save: folder {folder} does not exist"
SAVE_IS_FOLDER = "--save: {path} is a folder; name a file"
BAD_SEED = "--seed: {error}"
RESUME_WITH_GAME = "--resume continues the game its record names; leave out GAME ({game})"
RESUME_WITH_OPTIONS = "--resume takes the game, its options and seed from the record; leave out {flags}"
RESUME_FINISHED = "{path}: the game is already over; replay it with: spheria replay {path}"
RESUME_RESIGNED = "{path}: the game is over: {name} resigned; replay it with: spheria replay {path}"
NO_GAME = "name a game to play (see 'spheria games'), or --resume FILE"

# -- the play screen ----------------------------------------------------------------------------
YOU = "{name} (you)"
AGENT_LABEL = "{name} ({spec})"
VERSUS = " vs "
TITLE_OPTIONS = "{title} ({options})"
TITLE_SEED = "{title}, seed {seed}"
RESUMED = "Resumed from {path} after {moves} moves."
WELCOME = "Type a move, or: help, help rules, moves, undo, resign, quit."
NEW_HERE = "New to {game}? Type 'help rules' to learn it."
THINKING = "{label} is thinking..."
REVEALED = "Move {number}, revealed: {choices}  ->  {entry}"
REVEAL_CHOICE = "{label} {move}"
PLAYED = "Move {number}: {label} plays {entry}"
SAME_AS = "  (you typed {typed}: the same result)"
CHOOSE_IN_SECRET = "{name} chooses in secret ({others}: look away)."
YOUR_SECRET_TURN = "{name}, your turn to choose in secret: press Enter when ready. "
HAS_CHOSEN = "{name} has chosen."
PROMPT = "{name}> "
ENTER_MOVE = "Enter {hint}."
HELP = """\
Commands:
  moves       list the legal moves
  help rules  how to play {game}, with pictures
  undo        take back the last move (only when every seat is human)
  resign      give up: the game ends and you lose
  quit        stop playing (you can save the game and continue it later)
  help        this help"""
MOVE_HERE = "A move here: {hint}."
AFTER_MISTAKES = "Type 'moves' to list the legal moves, 'help' for the commands, 'help rules' for the rules."
UNDO_AGENTS = "undo is only for games between humans; you are playing {agents}."
UNDO_NOTHING = "There is no move to take back yet."
TOOK_BACK = "Took back move {number} ({entry})."
LEGAL_MOVES = N_plural("{n} legal move: {moves}", "{n} legal moves: {moves}")
RESIGN_CONFIRM = "{name}, resign and lose this game? [y/N] "
RESIGNED = "{name} resigns."
RESIGNED_TO = "{name} resigns: {winner} wins."
SAVE_UNFINISHED = "Save the unfinished game to {path}? [y/N] "
GOODBYE = "Goodbye."
RESUME_HINT = "Continue it with: spheria play --resume {path}"
ABANDONED = "The game is left unfinished."
AGENT_FAILED = "{label} failed: {error}"
AN_AGENT_FAILED = "an agent failed: {error}"
AGENT_FAILED_SAVED = "The game so far is saved to {path}."
GAME_OVER = "Game over after {moves} moves. Result: {scores}"
SCORE = "{label} {score}"
YOU_WIN = "You win!"
YOU_LOSE = "You lose."
DRAW = "A draw."
SAVED = "Saved the record to {path}"
REPLAY_HINT = "Replay it with: spheria replay {path}"

# -- replay -------------------------------------------------------------------------------------
REPLAY_SUMMARY = "{players}; {moves} moves, played {created}{seed}"
REPLAY_SEED = ", seed {seed}"
REPLAY_START = "Start"
REPLAY_MOVE = "Move {number}: {label} {entry}"
REPLAY_REVEAL = "Move {number}, revealed together: {entry}"
REPLAY_WAIT = "[Enter: next move, q: stop] "
REPLAY_UNFINISHED = "The game was not finished ({moves} moves)."
REPLAY_RESIGNED = "{label} resigned after {moves} moves."
REPLAY_RESULT = "Result: {scores}"
