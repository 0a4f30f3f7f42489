"""What Spagyric offers beyond its rules: the parts the generic layers ask for (see :mod:`spheria.kernel.kit`)."""

from __future__ import annotations

from spheria.games.spagyric import cli_messages
from spheria.games.spagyric.analysis import analyse
from spheria.games.spagyric.cli import add_commands
from spheria.games.spagyric.howto import HOWTO
from spheria.kernel.kit import Analyser, GameKit

KIT = GameKit(
    howto=HOWTO,
    analyse=Analyser(analyse, cli_messages.METHODS),
    commands=add_commands,
)
