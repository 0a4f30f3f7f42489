"""The key of a rating: which game a rating is for — the game's name and the options that make it.

A player holds one rating per key. Every option a game declares changes the game to be good
at (a rule set, a seat count, a number of balls, what a player is shown), so the key holds them all, with
the values the game resolved: an option left out and the same option given at its default, or
given as text (``"3"``) and as a number, make one key. Options that make another game make
another key (another rule set, a third seat).

>>> import spheria
>>> game = spheria.load_game(spheria.default_game_name())
>>> rating_key(game) == rating_key(spheria.load_game(game.name, **game.options))
True
"""

from __future__ import annotations

from typing import Any

from spheria.kernel.game import Game


def option_text(value: Any) -> str:
    """An option's value in a key: ``true``/``false`` for a flag, else its text."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def rating_key(game: Game) -> str:
    """``<game>`` or ``<game>/<option>=<value>,...`` with every option as the game resolved it, in
    the order the game declares them (``name/players=3``, say)."""
    options = ",".join(f"{spec.name}={option_text(game.options[spec.name])}" for spec in game.option_specs)
    return f"{game.name}/{options}" if options else game.name
