"""The sentences every game shares: colour words, lists, and the refusals of a bad option or game name.

Each game keeps its own sentences (status lines, move hints, refusals) in ``messages.py`` of its
package; each entry is a ``str.format`` template marked for the catalogue (:mod:`spheria.i18n`).
Machine-readable output (SPN, notation, observations, ``Game.describe()``) never holds these
translations.
"""

from __future__ import annotations

from spheria.i18n import N_

COLOR = (N_("white"), N_("black"), N_("red"))
COUNTS = N_("{white} white, {black} black, {red} red")
COUNT_OF_COLOR = N_("{n} {color}")
LIST_SEPARATOR = N_(", ")
AND = N_(" and ")
GAME_OVER = N_("the game is over")
UNKNOWN_GAME = N_("unknown game {name!r} (games: {games})")
OPTION_TEXT = N_("option {option} takes text, not {value}")
OPTION_CHOICE = N_("option {option} must be one of {choices}; got {value}")
OPTION_BOOL = N_("option {option} takes true or false, not {value}")
OPTION_WHOLE = N_("option {option} takes a whole number, not {value}")
OPTION_FINITE = N_("option {option} takes a finite number, not {value}")
OPTION_BETWEEN = N_("option {option} must be at least {low} and at most {high}, not {value}")
OPTION_AT_LEAST = N_("option {option} must be at least {low}, not {value}")
OPTION_AT_MOST = N_("option {option} must be at most {high}, not {value}")
OPTION_UNKNOWN = N_("{game} has no option {option} (options: {options})")
OPTION_NONE = N_("none")
OPTION_PAIR = N_("option {pair} must be written name=value")
SPN_PLAYER = N_("player to move must be 1 or 2, not {text}")
NONE = N_("none")

# -- records (spheria.kernel.record): a file that is not a good record, a record that does not replay.
# The field-by-field checks of a record edited by hand stay English in record.py; a record Spheria
# wrote never meets them.
NOT_AN_OBJECT = N_("a record is a JSON object, not {kind}")
NOT_A_RECORD = N_("not a Spheria record: 'format' must be {format}, found {found}")
UNSUPPORTED_VERSION = N_("record version {version} is not supported (this Spheria reads versions 1 to {newest})")
MISSING_FIELDS = N_("record has no {fields} field")
NOT_JSON = N_("not valid JSON: {error} at line {line}, column {column}")
NOT_TEXT = N_("not a text file (a record is UTF-8 JSON)")
TOO_DEEP = N_("not a record: its JSON nests deeper than {most} levels")
TOO_LARGE = N_("not a record: it is larger than {most} MB")
PLAYER_TOO_LONG = N_("'players' entry {number} is {length} characters long; a player is at most {most}")
RECORD_SEAT_COUNT = N_("{game} has {seats} seats but the record names {players}")
RECORD_MOVE = N_("move {number} ({entry}): {error}")

# -- agents (spheria.kernel.agent): an agent's options and what it plays --------------------------
AGENT_WHOLE = N_("{agent} option {option} must be a whole number from {low} to {high}, not {value}")
AGENT_NUMBER = N_("{agent} option {option} must be a number from {low} to {high}, not {value}")
AGENT_SECONDS = N_("{agent} option {option} must be a number of seconds from {low} to {high}, not {value}")
AGENT_FLAG = N_("{agent} option {option} must be 1 or 0 (true or false), not {value}")
AGENT_CHOICE = N_("{agent} option {option} must be one of {choices}, not {value}")
AGENT_UNKNOWN_OPTION = N_("{agent} has no option {option} (options: {options})")
AGENT_NO_OPTIONS = N_("{agent} takes no options; got {option}")
PLAYS_ALL = N_("every game")
PLAYS_PERFECT = N_("perfect-information games")
PLAYS_ANY = N_("games")
PLAYS_SEATS = N_("{games} for {seats} seats")
OR = N_(" or ")


def shown(value: object, limit: int = 40) -> str:
    """``value`` as an error message quotes it: numbers bare, text quoted, never a control character.

    >>> shown("0"), shown("soon"), shown("\\x1b[2J"), shown(1.5)
    ('0', "'soon'", "'\\\\x1b[2J'", '1.5')
    """
    if not isinstance(value, str):
        return repr(value)[:limit]
    text = value.strip()
    cut = "…" if len(text) > limit else ""
    try:
        float(text)
    except ValueError:
        return repr(text[:limit]) + cut  # repr escapes every character that is not printable
    return (text[:limit] + cut) if text.isascii() and text.isprintable() else repr(text[:limit]) + cut


# -- time controls and clocks (spheria.kernel.clock) ----------------------------------------------
CLOCK_SYNTAX = N_(
    "{text} is not a time control: write untimed, base+increment such as 5+3 (minutes + seconds; "
    "30s+0 for seconds) or days per move such as 3d"
)
CLOCK_JSON = N_('a time control is null, {{"base": seconds, "increment": seconds}} or {{"days": n}}, not {value}')
CLOCK_WHOLE = N_("a time control's {name} is a whole number, not {value}")
CLOCK_BASE = N_("a real-time game's base is {low} to {high} seconds, not {value}")
CLOCK_INCREMENT = N_("a real-time game's increment is 0 to {high} seconds, not {value}")
CLOCK_DAYS = N_("a correspondence game gives {choices} days per move, not {value}")
CLOCK_UNTIMED = N_("an untimed game has no clocks")
CLOCK_FLAGGED = N_("seat {seat} has run out of time: the game is over")
