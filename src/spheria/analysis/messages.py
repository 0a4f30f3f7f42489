"""Every sentence :mod:`spheria.analysis` raises, in one table for translation.

Each entry is a ``str.format`` template. Machine-readable output (``Analysis.to_json()``) never
holds these: it uses the stable codes of :mod:`spheria.analysis` (``exact``, ``estimate``, ...).
"""

from __future__ import annotations

from spheria.i18n import N_

NOT_A_STATE = N_("analysis needs a game state or one seat's view, not {kind}")
SEAT_NEEDED = N_("{game} hides information: analyse one seat's view (seat=0 or seat=1), or the finished game")
BAD_SEAT = N_("{game} has seats 0 to {last}, not {seat!r}")
BAD_TIME = N_("time must be a number of seconds above 0, not {time!r}")
BAD_ITERATIONS = N_("iterations must be a whole number of at least 1, not {iterations!r}")
NO_MOVES = N_("a game record or a list of its positions is needed, not {kind}")
NOT_CONSECUTIVE = N_("position {number} does not follow the one before it by one move")
NOT_ANALYSED = N_("{game} hides information or moves simultaneously: it can be analysed only once it is over")
NO_AGENTS = N_("{game} is not analysed: its estimate is an agent's search, and {why}")
