"""Which method answers a position: the game's own analysis (its kit's ``analyse``), else the
generic estimate; a game that hides information is analysed from one seat's view."""

from __future__ import annotations

from typing import Any

from spheria.analysis import messages as msg
from spheria.analysis.budget import Budget
from spheria.analysis.estimate import estimate
from spheria.analysis.result import Analysis, ProgressCallback, over
from spheria.i18n import gettext as _
from spheria.kernel.game import SIMULTANEOUS, Game, PlayerView, State
from spheria.kernel.registry import game_class


def analyse(
    state: State[Any] | PlayerView,
    time: float | None = 1.0,
    progress: ProgressCallback | None = None,
    *,
    seat: int | None = None,
    iterations: int | None = None,
    seed: int | None = 0,
) -> Analysis:
    """Analyse ``state`` within about ``time`` seconds (see :mod:`spheria.analysis`); ``None``
    lets an exact search run to the end (a search that only estimates then takes
    :data:`~spheria.analysis.budget.DEFAULT_TIME` unless ``iterations`` is given).

    ``state`` is an engine state, or one seat's view (``state.view(seat)``) of a game that hides
    information and analyses views. A live state of such a game is analysed from ``seat``'s view
    only; a finished one needs no seat. ``iterations`` fixes the MCTS budget (with ``seed``, the
    same answer every run; ``time`` still caps it). ``progress`` is called as the search runs.
    Raises ``ValueError`` for a bad argument.
    """
    budget = Budget.checked(time, iterations, seed, progress)
    if not isinstance(state, State):
        return _view(state, budget)
    if state.is_terminal():
        return over(state)
    game = state.game
    if not game.perfect_information and game.kit().analyse is not None:
        if seat is None:
            raise ValueError(_(msg.SEAT_NEEDED).format(game=game.name))
        if seat not in range(game.num_players) or isinstance(seat, bool):
            raise ValueError(_(msg.BAD_SEAT).format(game=game.name, last=game.num_players - 1, seat=seat))
        return _asked(game, state.view(seat), budget)
    return analyse_known(state, budget)


def analyse_known(state: State[Any], budget: Budget) -> Analysis:
    """The analysis of ``state`` using all of it, hidden information included (a perfect-information
    game, or a recorded game whose secrets are known): the game's own analysis if it answers,
    else the generic estimate, which a game that hides information or moves simultaneously
    cannot have (it would see the hidden data)."""
    if state.is_terminal():
        return over(state)
    game = state.game
    own = game.kit().analyse
    if own is not None:
        result: Analysis | None = own.analyse(state, budget)
        if result is not None:
            return result
    if not game.perfect_information or state.current_player() == SIMULTANEOUS:
        raise ValueError(_(msg.NOT_ANALYSED).format(game=game.name))
    if game.why_no_agents is not None:  # a game no agent plays: no search has a goal to estimate
        raise ValueError(_(msg.NO_AGENTS).format(game=_(game.title), why=_(game.why_no_agents)))
    return estimate(state, budget)


def _view(view: Any, budget: Budget) -> Analysis:
    """The analysis of one seat's view, by its game's own analysis (the view names its game)."""
    game = _game_of_view(view)
    if game is None:
        raise ValueError(_(msg.NOT_A_STATE).format(kind=type(view).__name__))
    return _asked(game, view, budget)


def _asked(game: Game | type[Game], view: PlayerView, budget: Budget) -> Analysis:
    own = game.kit().analyse
    result: Analysis | None = None if own is None else own.analyse(view, budget)
    if result is None:
        raise ValueError(_(msg.NOT_ANALYSED).format(game=game.name))
    return result


def _game_of_view(view: Any) -> type[Game] | None:
    """The game class of a seat's view: the game its seat's observation names; ``None`` for
    anything that is not a view (a view knows its seat as ``player``)."""
    seat = getattr(view, "player", None)
    observe = getattr(view, "observation", None)
    if not isinstance(seat, int) or isinstance(seat, bool) or not callable(observe):
        return None
    try:
        name = observe(seat)["game"]
        return game_class(name) if isinstance(name, str) else None
    except (ValueError, KeyError, TypeError):
        return None
