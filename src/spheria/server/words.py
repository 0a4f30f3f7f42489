"""Each game's own words for the pages, translated: what :func:`spheria.server.views.words` adds
to ``GET /api/words`` for the games.

A game declares its words where it declares what they name: an option's ``label`` and its
choices' ``words`` on the :class:`~spheria.kernel.options.Option`, the names of its analysis
methods on its kit's :class:`~spheria.kernel.kit.Analyser`, its own agents, the fields of its
position notation and its phases in its kit's :class:`~spheria.kernel.kit.GameWords` (each
``N_``-marked in its messages module and translated in the gettext catalogue). The pages read
them from here, so a new game needs no edit of a page catalogue.
"""

from __future__ import annotations

from typing import Any

from spheria.i18n import gettext as _
from spheria.kernel.registry import game_class, game_names

__all__ = ["game_words"]


def game_words() -> dict[str, Any]:
    """Every game's words in the current language.

    * ``options``: by option name, ``{"label": ..., "choices": {choice: words}}`` for each option
      a game labels (an option's name means one thing in every game that has it);
    * ``agents``: each game's own agents' names by spec name;
    * ``methods``: each game's analysis methods' words by method code;
    * ``notes``: each game's analysis notes' words by note code (``{param}`` templates);
    * ``fields``: by game, the names of its position notation's fields after the board;
    * ``phases``: by game, its phases as it says them (a value of one of those fields);
    * ``turns``: by game and phase, what the player to move does (``{name}``: the player).
    """
    options: dict[str, dict[str, Any]] = {}
    agents: dict[str, str] = {}
    methods: dict[str, str] = {}
    notes: dict[str, str] = {}
    fields: dict[str, list[str]] = {}
    phases: dict[str, dict[str, str]] = {}
    turns: dict[str, dict[str, str]] = {}
    for name in game_names():
        cls = game_class(name)
        for spec in cls.option_specs:
            if spec.label:
                choices = {str(choice): _(word) for choice, word in zip(spec.choices, spec.words, strict=False)}
                options[spec.name] = {"label": _(spec.label), "choices": choices}
        kit = cls.kit()
        agents.update((agent, _(words)) for agent, words in kit.words.agents.items())
        if kit.analyse is not None:
            methods.update((method, _(words)) for method, words in kit.analyse.methods.items())
            notes.update((note, _(words)) for note, words in kit.analyse.notes.items())
        fields[name] = [_(words) for words in kit.words.fields]
        phases[name] = {phase: _(words) for phase, words in kit.words.phases.items()}
        turns[name] = {phase: _(words) for phase, words in kit.words.turns.items()}
    return {
        "options": options,
        "agents": agents,
        "methods": methods,
        "notes": notes,
        "fields": fields,
        "phases": phases,
        "turns": turns,
    }
