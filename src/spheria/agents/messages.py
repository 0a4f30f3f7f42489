"""Every sentence the agent layer shows people, in one place so a catalogue can translate it.

Logic never inspects these texts; it raises ``ValueError`` with them and callers show them.
"""

from __future__ import annotations

from typing import Any

from spheria.i18n import N_, gettext

MESSAGES: dict[str, str] = {
    # options (an option's own refusals are the kernel's: spheria.kernel.messages)
    "one_budget": N_("{agent} takes iterations= or time=, not both"),
    "max_time": N_("the longest an agent may think must be a number of seconds from {low} to {high}, not {value}"),
    # specs
    "spec_text": N_("an agent spec is text such as 'mcts:time=1', not {value}"),
    "spec_empty": N_("the agent spec is empty: name an agent ({agents})"),
    "spec_long": N_("agent spec {spec} is {length} characters long; the most is {most}"),
    "spec_control": N_("agent spec {spec} holds a control character ({char}); write only printable text"),
    "spec_pair": N_("agent option {pair} in {spec} must be written key=value"),
    "spec_repeat": N_("agent option {option} is given twice in {spec}"),
    "unknown_agent": N_("unknown agent {agent} (agents: {agents}; or a level: level:1 to level:5)"),
    # what agents play
    "misfit": N_("{agent} does not play {game}: it plays {plays}. Agents for {game}: {fitting}"),
    "no_agents": N_("{agent} does not play {game}, nor does any agent: {why}; every seat is a person's"),
    "seat_count": N_("{seats} seats"),
    "needs_state": N_(
        "{agent} looks at the whole position, so it plays perfect-information games only; "
        "it was given a view of a game with hidden information"
    ),
    # levels (spheria.agents.levels): the words people choose a level by
    "level_1": N_("beginner"),
    "level_2": N_("easy"),
    "level_3": N_("medium"),
    "level_4": N_("hard"),
    "level_5": N_("strongest"),
    "level_range": N_("there are levels {low} to {high} (level:{low} ... level:{high}), not {value}"),
    "level_game": N_("no levels are defined for {game}"),
}


def message(key: str, **fields: Any) -> str:
    """The sentence ``key`` in the current language, with its fields filled in."""
    return gettext(MESSAGES[key]).format(**fields)
