"""Every sentence ``spheria play`` and ``spheria replay`` show, and the one-line errors every
subcommand shares, in one table for translation (the ``games``, ``arena``, ``solve`` and
``serve`` subcommands keep their own for now).

Each entry is a ``str.format`` template; the names in braces are filled in by the code. Text
from outside (agent specs, record fields, what the user typed, file names) reaches a template
only through :func:`spheria.cli.common.printable`.
"""

from __future__ import annotations

import errno

from spheria.i18n import N_, N_plural

# -- every subcommand (cli/common.py, main) --------------------------------------------------------
ERROR = N_("{prog}: error: {message}")
INTERRUPTED = N_("{prog}: interrupted")
#: Why a file could not be read or written, by ``errno`` (any other: the system's own words).
OS_ERRORS = {
    errno.ENOENT: N_("No such file or directory"),
    errno.EACCES: N_("Permission denied"),
    errno.EISDIR: N_("Is a directory"),
    errno.ENOTDIR: N_("Not a directory"),
    errno.ENOSPC: N_("No space left on device"),
    errno.EROFS: N_("Read-only file system"),
    errno.EEXIST: N_("File exists"),
}
INTERNAL_ERROR = N_("internal error: {kind}: {error} (set SPHERIA_DEBUG=1 for the traceback)")
OPTION_ERROR = N_("--option: {error}")
OPTION_TWICE = N_("--option {option} is given twice ({first}, then {second}): give it once")
GAME_ERROR = N_("{game}: {error}")
SCREEN_CLEARED = N_("screen cleared")

# -- starting a game ----------------------------------------------------------------------------
PLAYERS_COUNT = N_("--players names {given} but {game} has {seats} ({names}); e.g. --players {example}")
SEATS = N_plural("{n} seat", "{n} seats")
PLAYERS_EMPTY_SEAT = N_("--players: seat {seat} ({name}) is empty")
PLAYERS_BAD_AGENT = N_("--players: seat {seat} ({name}): {error}")
PLAYERS_UNKNOWN = N_(
    "--players: seat {seat} ({name}): {spec} is not a player; write {human} or an agent: {agents};"
    " or a level: level:1 (beginner) to level:5 (strongest)"
)
SAVE_NO_FOLDER = N_("--save: folder {folder} does not exist")
SAVE_IS_FOLDER = N_("--save: {path} is a folder; name a file")
BAD_SEED = N_("--seed: {error}")
RESUME_WITH_GAME = N_("--resume continues the game its record names; leave out GAME ({game})")
RESUME_WITH_OPTIONS = N_("--resume takes the game, its options and seed from the record; leave out {flags}")
RESUME_FINISHED = N_("{path}: the game is already over; replay it with: spheria replay {path}")
RESUME_RESIGNED = N_("{path}: the game is over: {name} resigned; replay it with: spheria replay {path}")
NO_GAME = N_("name a game to play (see 'spheria games'), or --resume FILE")

# -- the play screen ----------------------------------------------------------------------------
YOU = N_("{name} (you)")
AGENT_LABEL = N_("{name} ({spec})")
VERSUS = N_(" vs ")
TITLE_OPTIONS = N_("{title} ({options})")
TITLE_SEED = N_("{title}, seed {seed}")
RESUMED = N_("Resumed from {path} after {moves} moves.")
WELCOME = N_("Type a move, or: help, help rules, moves, undo, resign, quit.")
NEW_HERE = N_("New to {game}? Type 'help rules' to learn it.")
THINKING = N_("{label} is thinking...")
REVEALED = N_("Move {number}, revealed: {choices}  ->  {entry}")
REVEAL_CHOICE = N_("{label} {move}")
PLAYED = N_("Move {number}: {label} plays {entry}")
SAME_AS = N_("  (you typed {typed}: the same result)")
CHOOSE_IN_SECRET = N_("{name} chooses in secret ({others}: look away).")
YOUR_SECRET_TURN = N_("{name}, your turn to choose in secret: press Enter when ready. ")
HAS_CHOSEN = N_("{name} has chosen.")
PROMPT = N_("{name}> ")
ENTER_MOVE = N_("Enter {hint}.")
HELP = N_("""\
Commands:
  moves       list the legal moves
  help rules  how to play {game}, with pictures
  undo        take back a move (also: takeback); against agents, your last move
              and their replies since, counted in the record
  resign      give up: the game ends and you lose
  quit        stop playing (you can save the game and continue it later)
  help        this help""")
MOVE_HERE = N_("A move here: {hint}.")
AFTER_MISTAKES = N_("Type 'moves' to list the legal moves, 'help' for the commands, 'help rules' for the rules.")
UNDO_NOTHING = N_("There is no move to take back yet.")
TOOK_BACK = N_("Took back move {number} ({entry}).")
TOOK_BACK_MOVES = N_plural(
    "Took back {n} move ({entries}): your move {number} again.",
    "Took back {n} moves ({entries}): your move {number} again.",
)
TAKEBACK_NOTHING = N_("There is nothing to take back: you have not moved yet.")
TAKEBACK_OVER = N_("The game is over: there is nothing to take back.")
TAKEBACK_SECRET = N_(
    "No takeback here: it would undo move {number}, a reveal of choices made in secret. You have seen"
    " what {agents} chose, and would choose again knowing it; only moves since the last reveal can be taken back."
)
TAKEBACK_OTHER_PERSON = N_(
    "No takeback here: {name} has moved since your last move; a takeback undoes only agents' moves."
)
LEGAL_MOVES = N_plural("{n} legal move: {moves}", "{n} legal moves: {moves}")
RESIGN_CONFIRM = N_("{name}, resign and lose this game? [y/N] ")
RESIGNED = N_("{name} resigns.")
RESIGNED_TO = N_("{name} resigns: {winner} wins.")
SAVE_UNFINISHED = N_("Save the unfinished game to {path}? [y/N] ")
GOODBYE = N_("Goodbye.")
RESUME_HINT = N_("Continue it with: spheria play --resume {path}")
ABANDONED = N_("The game is left unfinished.")
AGENT_FAILED = N_("{label} failed: {error}")
AN_AGENT_FAILED = N_("an agent failed: {error}")
AGENT_FAILED_SAVED = N_("The game so far is saved to {path}.")
GAME_OVER = N_("Game over after {moves} moves. Result: {scores}")
SCORE = N_("{label} {score}")
YOU_WIN = N_("You win!")
YOU_LOSE = N_("You lose.")
DRAW = N_("A draw.")
SAVED = N_("Saved the record to {path}")
REPLAY_HINT = N_("Replay it with: spheria replay {path}")

# -- replay -------------------------------------------------------------------------------------
REPLAY_SUMMARY = N_("{players}; {moves} moves, played {created}{seed}")
REPLAY_SEED = N_(", seed {seed}")
REPLAY_START = N_("Start")
REPLAY_MOVE = N_("Move {number}: {label} {entry}")
REPLAY_REVEAL = N_("Move {number}, revealed together: {entry}")
REPLAY_WAIT = N_("[Enter: next move, b: previous move, q: stop] ")
REPLAY_END_WAIT = N_("[b: previous move, Enter or q: stop] ")
REPLAY_AT_START = N_("This is the start: there is no previous move.")
REPLAY_UNFINISHED = N_("The game was not finished ({moves} moves).")
REPLAY_RESIGNED = N_("{label} resigned after {moves} moves.")
REPLAY_RESULT = N_("Result: {scores}")

# -- games ----------------------------------------------------------------------------------------
OPTION_RANGE = N_(" ({low} to {high})")
OPTION_AT_LEAST = N_(" (at least {low})")
OPTION_AT_MOST = N_(" (at most {high})")
OPTION_DEFAULT = N_("; default {value}")
GAME_PLAYERS = N_plural("{n} player ({seats})", "{n} players ({seats})")
GAME_PLAYER_RANGE = N_("{low} to {high} players (by default {default}: {seats})")
SIMULTANEOUS = N_("simultaneous choices")
SEQUENTIAL = N_("sequential")
PERFECT_INFORMATION = N_("perfect information")
HIDDEN_INFORMATION = N_("hidden information")
GAME_LINE = N_("{title}, {players}; {turns}, {information}")
GAMES_EXAMPLE = N_("e.g. {example}")
GAMES_PLAYERS = N_(
    "Players for --players: {human}, a level (level:1 ... level:5, above) or an agent: {agents}"
    " (agent options as name:key=value)"
)
GAMES_NO_AGENTS = N_("people only: {why}")
GAMES_LEVELS = N_("levels (the longest each thinks about a move, with the default options): {levels}")
GAMES_LEVEL = N_("{spec} {words} ({seconds} s)")

# -- the command line's help (argparse) -----------------------------------------------------------
USAGE = N_("usage: ")
POSITIONALS = N_("positional arguments")
OPTIONALS = N_("options")
HELP_HELP = N_("show this help message and exit")
USAGE_ERROR = N_("{prog}: error: {message} (see '{prog} --help')")
HELP_PROGRAM = N_("Play and replay the games of the Shibumi system.")
HELP_VERSION = N_("show program's version number and exit")
#: argparse's own refusals, as Python 3.11's argparse words them (it looks them up through
#: gettext; :func:`spheria.i18n.argparse_speaking` hands it these translations while parsing).
ARGPARSE_TEXTS = (
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("can't open '%(filename)s': %(error)s"),
    N_("expected at least one argument"),
    N_("expected at most one argument"),
    N_("expected one argument"),
    N_plural("expected %s argument", "expected %s arguments"),
    N_("ignored explicit argument %r"),
    N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("not allowed with argument %s"),
    N_("one of the arguments %s is required"),
    N_("the following arguments are required: %s"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
    N_("unrecognized arguments: %s"),
)
HELP_LANG = N_("the language of every text shown (default: from LANGUAGE, LC_ALL, LC_MESSAGES or LANG)")
HELP_PLAY = N_("play a game in the terminal")
HELP_PLAY_DESCRIPTION = N_(
    "Play a game in the terminal. Exit status: 0 when the game ends (also by a resignation), "
    "1 when it is left unfinished (quit, end of input), 130 on Ctrl-C."
)
HELP_GAME = N_("the game, e.g. {example} (see 'spheria games')")
HELP_PLAYERS = N_(
    "who plays each seat, in seat order: {human}, a level (level:1 beginner ... level:5 strongest) "
    "or an agent spec (default: {human}, then random for every other seat)"
)
HELP_SEED = N_("fix what the rules leave to chance (e.g. a first position drawn at random)")
HELP_RESUME = N_(
    "continue the unfinished game saved in FILE (with its players unless --players is given); it is saved back to FILE"
)
HELP_SAVE = N_("where to save the record (default: GAME-DATE-TIME.spheria.json)")
HELP_NO_SAVE = N_("do not save a record")
HELP_REPLAY = N_("show a recorded game move by move")
HELP_REPLAY_DESCRIPTION = N_("Replay a record.")
HELP_RECORD_FILE = N_("a .spheria.json record")
HELP_STEP = N_("step through the moves: Enter shows the next move, b goes back to the previous one, q stops")
HELP_GAMES = N_("list the games and their options")
HELP_GAMES_DESCRIPTION = N_("List the games.")
HELP_NO_COLOR = N_("no ANSI colours (also: NO_COLOR=1)")
HELP_OPTION = N_("a game option as NAME=VALUE (repeatable; spheria games lists each game's options)")

# -- spheria arena --------------------------------------------------------------------------------
HELP_ARENA = N_("play many games between agents and rate them")
HELP_ARENA_DESCRIPTION = N_("Play many games between agents, seats rotated fairly, and rate the agents.")
HELP_ARENA_EXAMPLE = N_("example: {example}")
HELP_AGENTS = N_("the agent specs, e.g. mcts:time=1,random")
HELP_GAME_COUNT = N_("how many games (default 100)")
HELP_WORKERS = N_("parallel worker processes (default 1)")
HELP_ARENA_SEED = N_("the arena seed: same seed, same games")
HELP_ARENA_JSON = N_("print the results as JSON")
HELP_RECORDS = N_("save the record of every game in DIR")
HELP_BACKEND = N_("where games run: local processes (default) or ray (needs the ray extra)")
HELP_ADDRESS = N_("with --backend ray: the Ray cluster to join (default: a local Ray with --workers CPUs)")
GAMES_AT_LEAST = N_("--games must be at least 1")
WORKERS_AT_LEAST = N_("--workers must be at least 1")
ADDRESS_NEEDS_RAY = N_("--address names a Ray cluster: use it with --backend ray")
ARENA_PROGRESS = N_("{done}/{total} games, {rate:.1f}/s ")

# -- time controls at the terminal (spheria play --clock, spheria replay) -------------------------
HELP_CLOCK = N_(
    "the time control: untimed (the default), base+increment such as 5+3 (minutes + seconds; 30s+0 for "
    "seconds) or days per move such as 3d; a player whose time runs out loses"
)
BAD_CLOCK = N_("--clock: {error}")
CLOCKS = N_("Clock {control}: {clocks}")
CLOCK_RUNNING = N_("▶ {name} {left}")
CLOCK_STOPPED = N_("{name} {left}")
LOST_ON_TIME = N_("{name} ran out of time and loses.")
LOST_ON_TIME_TO = N_("{name} ran out of time: {winner} wins.")
RESUME_LOST_ON_TIME = N_("{path}: the game is over: {name} ran out of time; replay it with: spheria replay {path}")
REPLAY_CLOCK = N_("Time control: {control}")
MOVE_CLOCK = N_("{name} used {used} s, {left} left")
REPLAY_LOST_ON_TIME = N_("{label} lost on time after {moves} moves.")
