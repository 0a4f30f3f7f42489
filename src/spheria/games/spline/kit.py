"""What Spline offers beyond its rules: the parts the generic layers ask for (see :mod:`spheria.kernel.kit`)."""

from __future__ import annotations

from spheria.games.spline import messages as M
from spheria.games.spline.analysis import analyse
from spheria.games.spline.codec import SplineCodec
from spheria.games.spline.howto import HOWTO
from spheria.games.spline.knowledge import KNOWLEDGE
from spheria.games.spline.levels import LEVELS
from spheria.games.spline.puzzles import SplinePuzzles
from spheria.games.spline.search import SplineSearch
from spheria.kernel.kit import Analyser, GameKit, GameWords, MeasuredLevels

KIT = GameKit(
    knowledge=KNOWLEDGE,
    levels=LEVELS,
    search=SplineSearch,
    codec=SplineCodec,
    howto=HOWTO,
    words=GameWords(fields=M.SPN_FIELDS),
    analyse=Analyser(analyse, M.METHODS),
    # docs/agents.md, "Measured ladders": the level table shipped, Elo with random at 0
    measured_levels=(MeasuredLevels({}, (259, 360, 507, 740, 922)),),
    puzzles=SplinePuzzles,
)
