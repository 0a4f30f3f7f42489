"""What Spagyric offers beyond its rules: the parts the generic layers ask for (see :mod:`spheria.kernel.kit`)."""

from __future__ import annotations

from spheria.games.spagyric import cli_messages
from spheria.games.spagyric import messages as M
from spheria.games.spagyric.agent import FixedColorAgent, SpagyricAgent
from spheria.games.spagyric.analysis import analyse
from spheria.games.spagyric.cli import add_commands
from spheria.games.spagyric.codec import SpagyricCodec
from spheria.games.spagyric.howto import HOWTO
from spheria.games.spagyric.levels import LEVELS
from spheria.games.spagyric.worlds import sample_origin
from spheria.kernel.kit import Analyser, GameKit, GameWords, MeasuredLevels

KIT = GameKit(
    levels=LEVELS,
    agents={"spagyric": SpagyricAgent, "fixed": FixedColorAgent},
    codec=SpagyricCodec,
    howto=HOWTO,
    words=GameWords(agents=M.AGENTS, fields=M.SPN_FIELDS),
    analyse=Analyser(analyse, cli_messages.METHODS),
    commands=add_commands,
    sample_origin=sample_origin,
    # docs/agents.md, "Measured ladders": the level table shipped, Elo with random at 0
    measured_levels=(MeasuredLevels({}, (97, 265, 408, 546, 664)),),
    vocabulary=frozenset({"bag of defeat"}),
)
