"""What each client is shown: one seat's observation, or the public view for spectators.

Everything the server sends about a game goes through :func:`seat_frame` or
:func:`public_frame`, so this is the one place that decides what leaves the server:

* a seat gets ``state.observation(seat)``, its own legal moves (as text and as a click tree),
  ``status_lines(seat)`` and, at a simultaneous node, its own pending choice — never another
  seat's;
* a spectator gets ``state.public_observation()``: everything in a perfect-information game;
  in a hidden-information game the game's own public view, or by default only what is public
  by construction (the board, whose turn it is and the resolved moves), never a seat's
  observation.

The browser knows no rules: what it may click, what a reveal showed and who won it, the colour
each seat places now, and the state of the game as a code with parameters all come from here as
data. The names the server sends in English (game titles, seat and side names, option help) and
the words for colours and levels come translated from :func:`words`, in the page's language.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Mapping
from typing import Any

from spheria.agents.levels import LEVEL_NUMBERS, level_words
from spheria.engine.board import SITE_NAMES, iter_sites
from spheria.i18n import current_language, using
from spheria.i18n import gettext as _
from spheria.kernel import messages as K
from spheria.kernel.game import (
    PICK_RELOCATE,
    PICK_SET,
    SEAT_COLOR_CODES,
    SIMULTANEOUS,
    TERMINAL,
    Game,
    State,
)
from spheria.kernel.registry import game_class, game_names, load_game
from spheria.server.words import game_words

#: One click of a move's text: a site (``0a1``), a word (a colour such as ``w``) or a number (a
#: word's argument: ``offer 2`` is the click ``offer`` then the click ``2``).
TOKEN_RE = re.compile(r"[0-3][a-d][1-4]|[A-Za-z]+|[0-9]+")
#: How the sites of a move are picked: in the written order, or as a set in any order.
ORDERED, ANY_ORDER = "ordered", "any_order"
#: Most sites of a set whose every order is entered in a click tree (a bound far above any line).
MAX_SET_SIZE = 6
_SITES = frozenset(SITE_NAMES)


def board_of(observation: Mapping[str, Any]) -> str:
    """The board string (SPN's first field: ``w``/``b``/``r``/``.`` by site) of an observation."""
    board = observation.get("board")
    if isinstance(board, str):
        return board
    spn = observation.get("spn")
    if isinstance(spn, str) and spn.strip():
        return spn.split()[0]
    return "/".join("." * n * n for n in (4, 3, 2, 1))


def public_observation(state: State[Any]) -> Mapping[str, Any]:
    """What anyone may see: no seat's hidden data (the game's own :meth:`State.public_observation`)."""
    return state.public_observation()


def last_move(history: list[str]) -> str | None:
    return history[-1] if history else None


def clicks_of(text: str) -> list[str]:
    """The clicks that make a move, in its written order: its sites and words."""
    return TOKEN_RE.findall(text)


def choosers(state: State[Any]) -> list[int]:
    """The seats that must choose at a simultaneous node (seats with a legal move there)."""
    if state.current_player() != SIMULTANEOUS:
        return []
    return [seat for seat in range(state.game.num_players) if state.legal_moves(seat)]


# -- picking a move by clicks --------------------------------------------------------------


def picking_order(state: State[Any]) -> str:
    """Whether a move's sites may be clicked in any order: the game's picking mode is a set."""
    return ANY_ORDER if state.picking_mode() == PICK_SET else ORDERED


def _relocation_boards(state: State[Any], seat: int, moves: list[str], tree: dict[str, Any]) -> None:
    """Give each relocation node (a ball to move, then where it goes) the board it leaves, as ``board``.

    In the relocate picking mode a move ends with one placement on its last site, so the board
    after the relocation is the board after any move through the node without the move's placement.
    """
    for moved in tree.get("next", {}).values():
        for node in moved.get("next", {}).values():
            if "move" in node or not node.get("next"):
                continue
            last, leaf = next(iter(node["next"].items()))
            child = state.child(state.parse_move(moves[leaf["move"]], seat))
            node["board"] = _without(board_of(child.observation(seat)), last)


def _without(board: str, site: str) -> str:
    """``board`` (levels joined by ``/``) with ``site`` emptied."""
    position = SITE_NAMES.index(site)
    chars = list(board)
    seen = -1
    for i, char in enumerate(chars):
        if char != "/":
            seen += 1
            if seen == position:
                chars[i] = "."
                break
    return "".join(chars)


def _insert(tree: dict[str, Any], clicks: list[str] | tuple[str, ...], index: int, order: str | None = None) -> None:
    node = tree
    for click in clicks:
        node = node.setdefault("next", {}).setdefault(click, {})
    node["move"] = index
    if order is not None:
        node["order"] = order


def click_tree(state: State[Any], seat: int, moves: list[str]) -> dict[str, Any]:
    """The moves of ``seat`` as a tree of clicks: what a page may highlight after any picks.

    A node is ``{"move": i, "order": text, "next": {click: node}}``: ``move`` (when present) is
    the index in ``moves`` of the move these clicks make, ``order`` (when present) the text to
    send instead (a legal spelling of that move in the order clicked), ``next`` the clicks
    that lead on. Every path ends in a move, so a page that offers only ``next`` never reaches
    a dead end.

    Ordered games: each move's clicks in written order. Any-order games (a line of
    sites): every order of a listed move's sites leads to a move — an order that is legal
    plays itself (``order``; ``move`` is the listed move with the same outcome), any other
    order plays the first listed move of that set of sites — so the player clicks the sites
    in any order and the page shows the order used.
    """
    tree: dict[str, Any] = {}
    if picking_order(state) != ANY_ORDER:
        for index, text in enumerate(moves):
            _insert(tree, clicks_of(text), index)
        if state.picking_mode() == PICK_RELOCATE:
            _relocation_boards(state, seat, moves, tree)
        return tree
    index_of = {text: i for i, text in enumerate(moves)}
    by_clicks = {tuple(clicks_of(text)): i for i, text in enumerate(moves)}
    by_set: dict[frozenset[str], list[int]] = {}
    for index, text in enumerate(moves):
        by_set.setdefault(frozenset(clicks_of(text)), []).append(index)
    for sites, indices in by_set.items():
        if len(sites) == 1 or len(sites) > MAX_SET_SIZE:
            for i in indices:
                _insert(tree, clicks_of(moves[i]), i)
            continue
        for order in itertools.permutations(sorted(sites)):
            listed = by_clicks.get(order)
            if listed is not None:
                _insert(tree, order, listed)
                continue
            text = " ".join(order)  # the clicks as typed, which the game reads in that order
            try:
                spelled = str(state.parse_move(text, seat))
            except ValueError:  # a MoveError (a ValueError) or any bad input
                _insert(tree, order, indices[0])
                continue
            _insert(tree, order, index_of[spelled], order=text)
    return tree


def picking_kind(state: State[Any], tree: dict[str, Any]) -> str:
    """What kind of clicking the page asks for (its hint is worded from this):

    ``choose`` (a secret choice at a simultaneous node: words such as a colour), ``words`` (buttons
    as well as sites: a word, then what it needs), ``set`` (sites in any order), ``place`` (one
    site), ``sequence`` (sites in order, e.g. a relocation then a placement), or ``none``.
    """
    first = tree.get("next", {})
    if not first:
        return "none"
    if any(click not in _SITES for click in first):
        return "choose" if state.current_player() == SIMULTANEOUS else "words"
    if picking_order(state) == ANY_ORDER:
        return "set"
    deeper = any("next" in node for node in first.values())
    return "sequence" if deeper else "place"


# -- what happened and what is shown -------------------------------------------------------


def last_reveal(state: State[Any]) -> dict[str, Any] | None:
    """The balls shown at the reveal just resolved (by seat) and the seat that won it, or None.

    A reveal is public once resolved: every seat saw both balls.
    """
    reveal = state.last_reveal()
    if reveal is None:
        return None
    return {"colors": list(reveal.colors), "winner": reveal.winner, "stunned": reveal.stunned}


def result_sites(state: State[Any]) -> list[str]:
    """The sites a finished game's result points at (the game's :meth:`State.result_mask`)."""
    if not state.is_terminal():
        return []
    return [SITE_NAMES[s] for s in iter_sites(state.result_mask())]


def placing_colors(state: State[Any]) -> list[str | None]:
    """The colour of the ball each seat would place now (``None``: it places none now), by seat."""
    return [state.placing_color(seat) for seat in range(state.game.num_players)]


def status_code(state: State[Any], seat: int | None, pending: dict[int, str]) -> dict[str, Any]:
    """The state of play as a code with parameters; the page words it (no prose to parse).

    ``over`` (``winners``), ``choose`` (``waiting``: seats still to choose in secret, ``chosen``:
    whether this seat has), ``turn`` (``seat`` to move); ``choose`` and ``turn`` also carry
    ``phase``, the game's phase name or None (:meth:`State.phase_name`).
    """
    to_move = state.current_player()
    if to_move == TERMINAL:
        return {"code": "over", "winners": state.winners()}
    phase = state.phase_name()
    if to_move == SIMULTANEOUS:
        waiting = [s for s in choosers(state) if s not in pending]
        return {"code": "choose", "waiting": waiting, "chosen": seat is not None and seat in pending, "phase": phase}
    return {"code": "turn", "seat": to_move, "phase": phase}


def result_of(state: State[Any]) -> dict[str, Any] | None:
    """The result of a finished game, as stored and shown."""
    if not state.is_terminal():
        return None
    names = state.game.player_names()
    winners = state.winners()
    lines = state.status_lines(None)
    text = lines[0] if lines else ("Draw." if not winners else f"{' and '.join(names[w] for w in winners)} won.")
    reason = state.result_reason()
    return {
        "returns": state.returns(),
        "winners": winners,
        "text": text,
        # Why it ended, as the game's code with parameters (the page words it), and the sites that decided it.
        "reason": reason.to_json() if reason is not None else None,
        "sites": result_sites(state),
    }


def open_as(state: State[Any]) -> list[dict[str, str]]:
    """The other games whose positions this board is (each game's :meth:`Game.read_board`, with
    its default options): ``game`` and the position's ``spn``, for the page's "Open as …" links;
    only for a game whose boards are set up freely (:attr:`Game.free_board`)."""
    if not state.game.free_board:
        return []
    return [
        {"game": name, "spn": spn}
        for name, spn in _readings(board_of(state.public_observation()))
        if name != state.game.name
    ]


@functools.lru_cache(maxsize=256)
def _readings(board: str) -> tuple[tuple[str, str], ...]:
    readings = ((name, load_game(name).read_board(board)) for name in game_names())
    return tuple((name, read.to_spn()) for name, read in readings if read is not None)


def _common(state: State[Any], pending: dict[int, str], version: int, seat: int | None) -> dict[str, Any]:
    to_move = state.current_player()
    need = choosers(state)
    return {
        "type": "state",
        "version": version,
        "to_move": to_move,
        "simultaneous": to_move == SIMULTANEOUS,
        "terminal": to_move == TERMINAL,
        # Who has still to choose at a simultaneous node: whether a seat has chosen, never what.
        "waiting_for": [seat for seat in need if seat not in pending],
        "result": result_of(state),
        "code": status_code(state, seat, pending),
        "reveal": last_reveal(state),
        # The colour each seat would place now, by seat: the page draws the ball under a target.
        "placing": placing_colors(state),
        "open_as": open_as(state),
    }


def seat_frame(state: State[Any], seat: int, pending: dict[int, str], version: int) -> dict[str, Any]:
    """The frame sent to the clients of ``seat``: only what that seat may know."""
    observation = state.observation(seat)
    frame = _common(state, pending, version, seat)
    own_choice = pending.get(seat)
    moves = [] if own_choice is not None else [str(m) for m in state.legal_moves(seat)]
    history = observation.get("history")
    tree = click_tree(state, seat, moves) if moves else {}
    frame.update(
        seat=seat,
        observation=observation,
        board=board_of(observation),
        legal_moves=moves,
        clicks=tree,
        picking=picking_kind(state, tree),
        status=state.status_lines(seat),
        hint=state.move_hint(seat) if moves else "",
        your_choice=own_choice,
        last_move=last_move(history) if isinstance(history, list) else None,
    )
    return frame


def public_frame(state: State[Any], pending: dict[int, str], version: int) -> dict[str, Any]:
    """The frame sent to spectators."""
    observation = public_observation(state)
    frame = _common(state, pending, version, None)
    history = observation.get("history")
    frame.update(
        seat=None,
        observation=observation,
        board=board_of(observation),
        legal_moves=[],
        clicks={},
        picking="none",
        status=state.status_lines(None),
        hint="",
        your_choice=None,
        last_move=last_move(history) if isinstance(history, list) else None,
    )
    return frame


def ended_frame(
    frame: dict[str, Any], status: str, result: dict[str, Any] | None, outcome: Mapping[str, Any]
) -> dict[str, Any]:
    """``frame`` of a game that ended off the board (a resignation, an abort: ``result`` as stored,
    with its ``reason``), nothing left to play; and what the end changed (``outcome``: the ratings,
    :mod:`spheria.server.profiles`) in its result."""
    if not frame["terminal"] and status != "active" and result is not None:
        winners = list(result.get("winners", []))
        frame.update(terminal=True, result=result, legal_moves=[], clicks={}, picking="none", hint="")
        frame["code"] = {"code": "over", "winners": winners}
    if frame["result"] is not None and outcome:
        frame["result"] = {**frame["result"], **outcome}
    return frame


# -- the server's words for the pages ----------------------------------------------------------


def _every_variant(name: str) -> list[Game]:
    """The game ``name`` with each combination of its options' choices (those it accepts)."""
    specs = [spec for spec in game_class(name).option_specs if spec.choices]
    games = []
    for values in itertools.product(*(spec.choices for spec in specs)):
        try:
            games.append(load_game(name, **{spec.name: value for spec, value in zip(specs, values, strict=True)}))
        except ValueError:
            continue  # a combination the game refuses
    return games


def words() -> dict[str, Any]:
    """The words of the server's catalogue that the pages show, in the current language.

    The server sends names in English (``Game.describe()`` does not change with the language);
    a page words them from here: ``games`` (title by game id), ``names`` (each seat's and side's
    name and each option's help, by its English text, for every game with every choice of its
    options), ``colors`` (the colour words by code) and ``levels`` (the level words by number).
    Each of these sentences lives in the server's catalogue only.
    """
    return _words(current_language())


@functools.cache
def _words(lang: str) -> dict[str, Any]:
    with using(lang):
        return _words_now()


def _words_now() -> dict[str, Any]:
    games: dict[str, str] = {}
    names: dict[str, str] = {}
    for name in game_names():
        cls = game_class(name)
        games[name] = _(cls.title)
        names.update((spec.help, _(spec.help)) for spec in cls.option_specs)
        for game in _every_variant(name):
            info = game.info()
            names.update((text, _(text)) for text in (*(seat.name for seat in info.seats), *info.sides))
    return {
        "lang": current_language(),
        "games": games,
        "names": names,
        "colors": {code: _(word) for code, word in zip(SEAT_COLOR_CODES, K.COLOR, strict=True)},
        "levels": {str(level): level_words(level) for level in LEVEL_NUMBERS},
        **game_words(),  # each game's own words (spheria.server.words)
    }
