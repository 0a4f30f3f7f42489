"""Every sentence of Spagyric's own command (``spheria spagyric-solve``) and the words naming its
analysis methods, in one table for translation."""

from __future__ import annotations

from spheria.i18n import N_

# -- the methods of its analysis (``spheria analyse``'s "exact (...)") -----------------------------
METHODS = {
    "spagyric-solver": N_("the Spagyric solver"),
    "spagyric-agent": N_("the Spagyric agent"),
}

# -- spheria spagyric-solve -------------------------------------------------------------------------
HELP_SPAGYRIC_SOLVE = N_("solve small Spagyric games exactly and measure agents against them")
HELP_SPAGYRIC_DESCRIPTION = N_(
    "Solve Spagyric with a small supply exactly: its value, and how far agents fall short of it."
)
HELP_SUPPLY = N_("balls of each colour per seat (default 2)")
HELP_POLICY_AGENT = N_("an agent spec with a policy() (repeatable)")
HELP_SYMMETRIC = N_("walk canonical positions (equivariant agents)")
SUPPLY_RANGE = N_("--supply must be 1 to {most}: the exact solve of a larger supply would not finish; not {supply}")
POLICY_AGENT_ERROR = N_("--agent {spec}: {error}")
POLICY_AGENT_NO_POLICY = N_("--agent {spec}: this agent has no policy() to measure")
SPAGYRIC_VALUE = N_(
    "supply={supply}: value {value:+.6f} for Player 1; {reveals} canonical reveals, {placements} placements,"
    " {mixed} mixed matrix games, {seconds:.1f} s"
)
SPAGYRIC_DECIDED = N_("{decided} canonical reveals are won or lost with best play; the rest are draws")
SPAGYRIC_EXPLOITABILITY = N_(
    "{spec}: secures {first:+.6f} as Player 1, {second:+.6f} as Player 2; exploitability {exploitability:.6f}"
    " ({decisions} decisions, {seconds:.1f} s)"
)
