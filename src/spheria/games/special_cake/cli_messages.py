"""Every sentence of Special Cake's own commands (``spheria solve``) and the words naming its
analysis methods, in one table for translation.

Each entry is a ``str.format`` template; text from outside (what was typed) reaches a template
only through :func:`spheria.cli.common.printable`.
"""

from __future__ import annotations

from spheria.i18n import N_

# -- the methods of its analysis (``spheria analyse``'s "exact (...)") -----------------------------
METHODS = {
    "solver": N_("the eating-phase solver"),
    "planner": N_("the planner's exact set-up search"),
}

#: Why an analysis is less than exact, by note code (``Analysis.note``; the pages get them too).
NOTES = {
    "eating_table_missing": N_(
        "The eating table of Special Cake {variant} is not built on this machine, so this position was "
        "searched within the time cap instead of looked up, and a search that runs out proves only some "
        "moves. Built once (spheria tablebase build --variant {variant}: {disk} of disk, about {minutes} "
        "minutes on two cores), the table answers every eating position exactly at once."
    ),
}

# -- spheria solve ------------------------------------------------------------------------------
SOLVE_PROGRESS = N_("{positions:,} positions searched, {seconds:.1f} s; analysing {move} ({index}/{moves})")
BACKEND = N_("solver backend: {backend} ({about})")
BACKEND_ABOUT = {
    "compiled": N_("the compiled C search"),
    "python": N_("the pure-Python search, much slower; a C compiler at install builds the fast one"),
}
NO_RESULT = N_("no result within {time} s")
SPN_ERROR = N_("SPN: {error}")
ONLY_CAKE = N_("the solver solves Special Cake positions")
GAME_IS_OVER = N_("The game is over: {status}")
SOLVE_WON_PLACE = N_("{name} to place: won with perfect play.")
SOLVE_LOST_PLACE = N_("{name} to place: lost with perfect play.")
SOLVE_WON_EAT = N_("{name} to eat: won with perfect play.")
SOLVE_LOST_EAT = N_("{name} to eat: lost with perfect play.")
WINNING_MOVES = N_("Winning moves ({n}): {moves}")
EVERY_MOVE_LOSES = N_("Every move loses ({n}): {moves}")
A_WINNING_MOVE = N_("A winning move ({n}): {moves}")
LOOKED_UP = N_("{positions} set-up positions looked up in {seconds:.3f} s")
SEARCHED = N_("{positions} positions searched in {seconds:.3f} s")
EATING_LOOKED_UP = N_("{positions} eating positions looked up in the built eating table in {seconds:.3f} s")

# -- its help -------------------------------------------------------------------------------------
HELP_SOLVE = N_("solve a Special Cake eating position exactly")
HELP_SOLVE_DESCRIPTION = N_("Solve a Special Cake position in the eating phase: who wins with perfect play, and how.")
HELP_SPN = N_("the position, e.g. {example}")
HELP_TIME_LIMIT = N_("give up after S seconds")
HELP_FIRST = N_("stop at the first winning move (faster)")
HELP_ALL = N_("list the value of every legal move")
HELP_JSON_RESULT = N_("print the result as JSON")
HELP_VERBOSE = N_("also say which solver backend runs")
