"""What the sandbox offers beyond its rules: its how-to text and its position field's name
(see :mod:`spheria.kernel.kit`).

No agents, levels, knowledge, codec or analysis: the sandbox sets the players no goal, so no agent
has anything to play for (``Sandbox.why_no_agents`` says so wherever one is asked for), and its
free-form actions have no fixed action space for OpenSpiel or PettingZoo.
"""

from __future__ import annotations

from spheria.games.sandbox import messages as M
from spheria.games.sandbox.howto import HOWTO
from spheria.kernel.kit import GameKit, GameWords

KIT = GameKit(howto=HOWTO, words=GameWords(fields=M.FIELD_NAMES))
