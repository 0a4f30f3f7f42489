"""What Special Cake offers beyond its rules: the parts the generic layers ask for (see :mod:`spheria.kernel.kit`)."""

from __future__ import annotations

from spheria.games.special_cake import cli_messages
from spheria.games.special_cake import messages as M
from spheria.games.special_cake.analysis import analyse
from spheria.games.special_cake.cli import add_commands
from spheria.games.special_cake.codec import SpecialCakeCodec
from spheria.games.special_cake.howto import HOWTO
from spheria.games.special_cake.knowledge import KNOWLEDGE
from spheria.games.special_cake.levels import LEVELS
from spheria.games.special_cake.planner import PlannerAgent
from spheria.games.special_cake.puzzles import SpecialCakePuzzles
from spheria.games.special_cake.solver_agent import SolverAgent
from spheria.kernel.kit import Analyser, GameKit, GameWords, MeasuredLevels

KIT = GameKit(
    knowledge=KNOWLEDGE,
    levels=LEVELS,
    agents={"solver": SolverAgent, "planner": PlannerAgent},
    codec=SpecialCakeCodec,
    howto=HOWTO,
    words=GameWords(agents=M.AGENTS, fields=M.SPN_FIELDS, phases=M.PHASES, turns=M.TURNS),
    analyse=Analyser(analyse, cli_messages.METHODS, cli_messages.NOTES),
    commands=add_commands,
    # docs/agents.md, "Measured ladders": the level tables shipped, Elo with random at 0
    measured_levels=(
        MeasuredLevels({"variant": "sugar"}, (125, 255, 407, 613, 744)),
        MeasuredLevels({"variant": "mint"}, (111, 295, 446, 593, 896)),
        MeasuredLevels({"variant": "poisoned"}, (111, 291, 469, 637, 846)),
    ),
    vocabulary=frozenset(
        {"cake", "cakes", "candy", "candies", "cherry", "mint", "liquorice", "sugar", "poisoned"}
        | {"variant", "line_rule", "line rule"}
    ),
    puzzles=SpecialCakePuzzles,
)
