"""The websocket protocol: client frames are checked here against a small schema.

Client → server (JSON text frames, at most :data:`MAX_FRAME` bytes)::

    {"type": "join"}                          watch as a spectator
    {"type": "join", "token": "<invite>"}     claim the seat the invite token belongs to (once)
    {"type": "join", "credential": "<cred>"}  take the seat this browser claimed
    {"type": "move", "move": "0a1+0b1", "version": 12}    play (version: optional guard)
    {"type": "preview", "move": "0a1+0b1"}    the board a candidate move would leave
    {"type": "hint"}                          the engine's best move (games created with hints)
    {"type": "ping"}
    {"type": "chat", "room": "players", "text": "..."}   a message (:mod:`spheria.server.chat`)
    {"type": "clock_pong", "id": 3}            the answer to a clock_ping (:mod:`spheria.server.clocks`)

Server → client::

    {"type": "claimed", "seat": 0, "credential": "..."}   the seat is this browser's: keep the credential
    {"type": "welcome", "seat": 0 | null, "game": {...public facts...}}
    {"type": "state", "version": n, "seat": ..., "board": "...", "observation": {...},
     "legal_moves": [...], "status": [...], "to_move": ..., "waiting_for": [...],
     "your_choice": ..., "last_move": ..., "result": ..., "players": [...]}
    {"type": "preview", "move": ..., "ok": true, "board": ...}  or  {"ok": false, "error": ...}
    {"type": "presence", "players": [...], "spectators": n}   who is connected (once per burst)
    {"type": "error", "code": "illegal_move", "message": "..."}
    {"type": "thinking", "thinking": [{"seat": 1, "elapsed": 0.0}]}   agent seats thinking now
    {"type": "thinking", "thinking": [{"seat": 1, "elapsed": 1.2, "positions": 131072}]}   ... and searching
    {"type": "hint_thinking", "seconds": 2.0}  a hint is being worked out (its deadline)
    {"type": "hint_progress", "positions": 131072}   ... the positions its search has reached, to that seat only
    {"type": "hint", "version": n, "move": "0a1", "clicks": ["0a1"], "used": 1}   to that seat only
    {"type": "pong"}
    {"type": "clock_ping", "id": 3}   a timed game times its seat's round trip (:mod:`spheria.server.clocks`)
    {"type": "rematch_offer", "game_id": ..., "seats": [0]}   seats asking for a rematch (server/profiles.py)
    {"type": "rematch", "game_id": new, "seat": 1, "invite": "/game/new#..."}   to that old seat only

>>> parse_frame('{"type": "move", "move": "0a1"}')
{'type': 'move', 'move': '0a1'}
>>> parse_frame('{"type": "move"}')
Traceback (most recent call last):
...
spheria.server.protocol.ProtocolError: field 'move' is required in a 'move' frame
"""

from __future__ import annotations

from typing import Any

from spheria.server.jsontext import BadJson, parse_json

#: The largest client frame the server reads, in bytes.
MAX_FRAME = 4096
MAX_TEXT = 400

# type -> {field: (python type, required)}
_SCHEMA: dict[str, dict[str, tuple[type, bool]]] = {
    "join": {"token": (str, False), "credential": (str, False)},
    "move": {"move": (str, True), "version": (int, False)},
    "preview": {"move": (str, True)},
    "ping": {},
    "clock_pong": {"id": (int, True)},  # the answer to the server's clock_ping (docs/server.md, Clocks)
    "hint": {},
    "chat": {"room": (str, True), "text": (str, True)},  # spheria.server.chat
}


class ProtocolError(ValueError):
    """A client frame that breaks the protocol; the message says how."""

    code = "bad_frame"


def parse_frame(text: str) -> dict[str, Any]:
    """Decode and check one client frame; raises :class:`ProtocolError` naming the fault."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FRAME:
        raise ProtocolError(f"frame too large: at most {MAX_FRAME} bytes")
    try:
        data = parse_json(text)
    except BadJson as error:
        raise ProtocolError(f"frame: {error}") from None
    if not isinstance(data, dict):
        raise ProtocolError("frame must be a JSON object")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _SCHEMA:
        raise ProtocolError(f"unknown frame type {kind!r} (types: {', '.join(_SCHEMA)})")
    fields = _SCHEMA[kind]
    extra = sorted(set(data) - set(fields) - {"type"})
    if extra:
        raise ProtocolError(f"unexpected field {extra[0]!r} in a {kind!r} frame")
    for name, (kind_of, required) in fields.items():
        if name not in data:
            if required:
                raise ProtocolError(f"field {name!r} is required in a {kind!r} frame")
            continue
        value = data[name]
        if not isinstance(value, kind_of) or (isinstance(value, bool) and kind_of is not bool):
            raise ProtocolError(f"field {name!r} must be a {kind_of.__name__}")
        if isinstance(value, str) and len(value) > MAX_TEXT:
            raise ProtocolError(f"field {name!r} is too long")
    return data


def error_frame(code: str, message: str) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message}
