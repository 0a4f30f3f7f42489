"""The position editor's endpoints: every answer comes from the game's rules (:mod:`spheria.server.positions`).

HTTP (JSON bodies of at most ``MAX_BODY`` bytes; ``game`` and ``options`` as for ``POST /api/check``)::

    GET  /editor                    the editor page
    POST /api/position/check        {"game", "options", "spn"?} -> the position, or why it is impossible
    POST /api/position/random       {"game", "options", "full"?, "seed"?} -> a random position reached by play
    POST /api/position/transform    {"game", "options", "spn", "symmetry": 0..7} -> the position moved

A position answer is ``{"ok": true, "spn" (normalized), "board", "locked", "fields", "to_move",
"to_move_name", "simultaneous", "terminal", "status", "legal_moves"}`` or ``{"ok": false,
"code", "reason"}`` (``code`` the kind of fault, the same in every language; ``reason`` the rules'
words for it in the request's language: ``?lang=``, else ``Accept-Language``), always with
``"choices"`` (per SPN field after the board: the values the game's positions take, or null for a
typed field), ``"players"``, ``"agents"`` (those that fit the game with these options) and
``"start"`` (the game's own start).
A malformed request (not JSON, wrong types, too long) is refused with 400 and an ``error``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from spheria.i18n import speaking_now
from spheria.kernel.game import Game
from spheria.kernel.registry import load_game
from spheria.server.endpoints import fitting_agents, json_response, options_of, read_json, refused
from spheria.server.positions import (
    PositionError,
    check_position,
    describe_position,
    field_choices,
    random_position,
    transform_position,
)
from spheria.server.session import GameError

_FIELDS = {
    "check": {"game", "options", "spn"},
    "random": {"game", "options", "full", "seed"},
    "transform": {"game", "options", "spn", "symmetry"},
}


def _request_game(data: Any, kind: str) -> Game:
    if not isinstance(data, dict):
        raise GameError("bad_game", "the body must be a JSON object")
    unknown = sorted(set(data) - _FIELDS[kind])
    if unknown:
        raise GameError("bad_game", f"unexpected field {unknown[0]!r}")
    if not isinstance(data.get("game"), str) or len(data["game"]) > 100:
        raise GameError("bad_game", "give the game's name as 'game'")
    try:
        return load_game(data["game"], **options_of(data))
    except (ValueError, TypeError) as error:
        raise GameError("bad_game", str(error)) from None


def _with_facts(game: Game, answer: dict[str, Any]) -> dict[str, Any]:
    answer["game"] = game.name
    answer["options"] = dict(game.options)
    answer["players"] = game.player_names()
    answer["start"] = game.new_initial_state(0).to_spn()
    answer["choices"] = field_choices(game)
    answer["agents"] = fitting_agents(game)
    return answer


def _check(data: Any) -> dict[str, Any]:
    game = _request_game(data, "check")
    spn = data.get("spn")
    if spn is None:
        spn = game.new_initial_state(0).to_spn()
    return _with_facts(game, check_position(game, spn))


def _random(data: Any) -> dict[str, Any]:
    game = _request_game(data, "random")
    full, seed = data.get("full", False), data.get("seed")
    if not isinstance(full, bool):
        raise GameError("bad_position", "full must be true or false")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63):
        raise GameError("bad_position", "seed must be a whole number ≥ 0")
    return _with_facts(game, describe_position(random_position(game, seed, full)))


def _transform(data: Any) -> dict[str, Any]:
    game = _request_game(data, "transform")
    try:
        moved = transform_position(game, data.get("spn"), data.get("symmetry"))
    except PositionError as error:
        raise GameError("bad_position", str(error)) from None
    answer = check_position(game, moved)
    answer.setdefault("spn", moved)  # an impossible position is still shown as moved
    return _with_facts(game, answer)


def _endpoint(work: Any) -> Any:
    async def endpoint(request: Request) -> Response:
        try:
            data = await read_json(request)
            answer = await asyncio.get_running_loop().run_in_executor(None, speaking_now(work), data)
        except GameError as error:
            return refused(error)
        return json_response(answer)

    return endpoint


api_check_position = _endpoint(_check)
api_random_position = _endpoint(_random)
api_transform_position = _endpoint(_transform)
