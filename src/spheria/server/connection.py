"""One websocket client of a game (``/ws/{game_id}``): the handshake, the join, the rate limit
and the frames it sends (protocol in :mod:`spheria.server.protocol`).

A connection is refused before its handshake when its address already holds
``connections_per_address`` sockets; a spectator is refused (``spectators_full``) when the game
has ``spectators_per_game``. A client that falls ``client_queue`` frames behind is closed with
code 1013, on which the browser reconnects and is sent the current position.

A frame over the connection's rate (``frame_rate``) is refused (``rate_limited``); a connection
refused ``frame_refusals`` times within :data:`REFUSAL_WINDOW` seconds is flooding and is closed
with code 1008, reason ``too_many_frames``, instead of being answered frame by frame. Frames
that will be refused cost no task: a hint in a game without hints, or while this connection's
hint is being worked out, is refused at once with a reply encoded once per connection (its text
is in the connection's language). The frame loop yields to the event loop after each frame, so
a connection whose frames arrive many to a read never holds up the other games.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from typing import Any

from starlette.types import Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from spheria.i18n import gettext as _
from spheria.server import messages as M
from spheria.server.challenges import claim_seat
from spheria.server.chat import Member, chat_of
from spheria.server.clocks import LagMeter
from spheria.server.hints import check_hint_request, give_hint
from spheria.server.limits import Limits
from spheria.server.protocol import ProtocolError, error_frame, parse_frame
from spheria.server.session import (
    CLOSE_TOO_SLOW,
    Client,
    GameError,
    GameSession,
    SessionManager,
    encode,
    quiet_log,
)

#: The rate limit's clock (tests stop it).
clock = time.monotonic
#: Close code when a limit refuses the connection (policy).
CLOSE_POLICY = 1008
#: Seconds over which a connection's refusals for the rate are counted (``Limits.frame_refusals``).
REFUSAL_WINDOW = 10.0


class GameSocket:
    """The ASGI endpoint of ``/ws/{game_id}``: one instance per connection."""

    def __init__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.ws = WebSocket(scope, receive, send)
        state = scope["app"].state
        self.manager: SessionManager = state.manager
        self.limits: Limits = state.limits
        self.connections: Counter[str] = state.connections
        self.address = scope["client"][0] if scope.get("client") else "unknown"
        self.session: GameSession | None = None
        self.client: Client | None = None
        self.direct = Client(self._send, limit=self.limits.client_queue, on_drop=self._too_slow)
        self.burst = max(2 * self.limits.frame_rate, 10.0)
        self.allowance = self.burst
        self.last = clock()
        self.tasks: list[asyncio.Task[None]] = []  # the pumps, for the connection's life
        self.hints: set[asyncio.Task[None]] = set()  # hints being worked out; each leaves when done
        #: Frames refused for the rate in the window that began at ``refusals_since``.
        self.refusals = 0
        self.refusals_since = 0.0
        #: Refusals that never vary on this connection, by code: their frame's text, encoded once.
        self.refusal_texts: dict[str, str] = {}
        #: The game has no hints (learnt from the first hint asked; a game never gains them).
        self.hints_off = False
        self.chat_member: Member | None = None  # its room in the game's chat, once joined
        self.lag = LagMeter()  # a seat's round trip in a timed game (docs/server.md, Clocks)

    def __await__(self) -> Any:
        return self.run().__await__()

    async def run(self) -> None:
        if self.connections[self.address] >= self.limits.connections_per_address:
            await self.ws.close(code=CLOSE_POLICY, reason="too_many_connections")
            return
        self.connections[self.address] += 1
        try:
            await self.ws.accept()
            self.session = await self.manager.get(self.ws.path_params["game_id"])
            if self.session is None:
                await self.ws.send_json(error_frame("unknown_game", _(M.NO_GAME_WITH_ID)))
                await self.ws.close(code=4404)
                return
            self.tasks.append(asyncio.create_task(self.direct.pump()))
            await self.serve()
        except WebSocketDisconnect:
            pass
        finally:
            self.connections[self.address] -= 1
            if self.connections[self.address] <= 0:
                del self.connections[self.address]
            self.cleanup()

    async def _send(self, text: str) -> None:
        await self.ws.send_text(text)

    def _too_slow(self) -> None:
        """Close a client too far behind (from a ``push``): the browser reconnects and catches up."""
        for task in [*self.tasks, *self.hints]:
            task.cancel()
        asyncio.get_running_loop().create_task(self._close(CLOSE_TOO_SLOW, "too_slow"))

    async def _close(self, code: int, reason: str) -> None:
        if self.ws.application_state == WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):  # the socket is gone already
                await asyncio.wait_for(self.ws.close(code=code, reason=reason), 5)

    def reply(self, frame: dict[str, Any] | str) -> None:
        (self.client or self.direct).push(frame)

    def refuse(self, code: str, message: str) -> None:
        """Refuse a frame with ``code`` and the (untranslated) ``message``, a refusal that never
        varies on this connection: its frame is translated and encoded once, then reused."""
        text = self.refusal_texts.get(code)
        if text is None:
            text = self.refusal_texts[code] = encode(error_frame(code, _(message)))
        self.reply(text)

    def allowed(self) -> bool:
        """The connection's token bucket: ``frame_rate`` frames a second, bursts of twice as many."""
        rate = self.limits.frame_rate
        now = clock()
        self.allowance = min(self.burst, self.allowance + (now - self.last) * rate)
        self.last = now
        if rate > 0 and self.allowance < 1:
            return False
        self.allowance -= 1
        return True

    def flooding(self) -> bool:
        """Count one more refusal for the rate: whether it is past ``frame_refusals`` in the window."""
        most = self.limits.frame_refusals
        now = clock()
        if now - self.refusals_since > REFUSAL_WINDOW:
            self.refusals, self.refusals_since = 0, now
        self.refusals += 1
        return 0 < most < self.refusals

    async def serve(self) -> None:
        while True:
            message = await self.ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            if not self.allowed():
                if self.flooding():
                    await self.close_flooding()
                    return
                self.refuse("rate_limited", M.TOO_MANY_FRAMES)
            else:
                await self.answer(message)
            await asyncio.sleep(0)  # frames that came in one read are not served in one go: others too

    async def close_flooding(self) -> None:
        """Close a flooding connection (1008): what it was answered goes first (for a second at most:
        its refusals are each one short text), then no more frames are read."""
        (self.client or self.direct).queue.put_nowait(None)
        pump = self.tasks[-1]
        await asyncio.wait([pump], timeout=1.0)
        for task in [*self.tasks, *self.hints]:
            task.cancel()
        await self._close(CLOSE_POLICY, "too_many_frames")

    async def answer(self, message: Message) -> None:
        """Answer one frame the rate allows."""
        text = message.get("text")
        if text is None:
            self.reply(error_frame("bad_frame", "send JSON text frames"))
            return
        try:
            frame = parse_frame(text)
        except ProtocolError as error:
            self.reply(error_frame(error.code, str(error)))
            return
        try:
            await self.handle(frame)
        except GameError as error:
            frame = error_frame(error.code, error.message)
            if error.kept is not None:
                frame["kept"] = error.kept
            self.reply(frame)

    async def handle(self, frame: dict[str, Any]) -> None:
        kind = frame["type"]
        if kind == "ping":
            self.reply({"type": "pong"})
        elif kind == "clock_pong":
            self.lag.answered(frame["id"])  # this connection's round trip (docs/server.md, Clocks)
        elif kind == "join":
            await self.join(frame)
        elif kind == "chat":
            await chat_of(self.ws.app).said(self.chat_member, frame, self._close, self.manager)
        elif self.client is None:
            raise GameError("not_joined", "join first: send {'type': 'join', 'token': ...}")
        elif self.client.seat is None:
            raise GameError("spectator", _(M.SPECTATOR))
        else:
            await self.play(self.client, kind, frame)

    async def join(self, frame: dict[str, Any]) -> None:
        session = self.session
        assert session is not None
        if self.client is not None:
            raise GameError("already_joined", "this connection has already joined")
        seat: int | None = None
        credential = frame.get("credential")
        token = frame.get("token")
        if credential is not None:
            seat = session.seat_for_credential(credential)
            if seat is None:
                raise GameError("bad_credential", _(M.NOT_A_SEAT_HOLDER))
        elif token is not None:
            seat, fresh = await claim_seat(self.ws, session, token)
            self.direct.push({"type": "claimed", "seat": seat, "credential": fresh})
        elif session.spectators() >= self.limits.spectators_per_game:
            self.direct.push(error_frame("spectators_full", _(M.SPECTATORS_FULL)))
            await asyncio.sleep(0)
            await self._close(CLOSE_POLICY, "spectators_full")
            return
        client = Client(self._send, seat, limit=self.limits.client_queue, on_drop=self._too_slow)
        self.direct.push({"type": "welcome", "seat": seat, "game": session.info()})
        self.direct.queue.put_nowait(None)  # the direct queue drains, then the client's takes over
        await self.tasks[0]
        self.client = client
        self.tasks.append(asyncio.create_task(client.pump()))
        self.chat_member = await chat_of(self.ws.app).joined(self.ws, session, client)
        session.attach(client)
        if seat is not None and self.manager.clocks is not None and self.manager.clocks.timed(session):
            self.tasks.append(asyncio.create_task(self.lag.probing(client.push)))  # its round trip, measured

    async def play(self, client: Client, kind: str, frame: dict[str, Any]) -> None:
        session = self.session
        assert session is not None and client.seat is not None
        try:
            if kind == "move":
                await session.submit(client.seat, frame["move"], frame.get("version"), self.lag.credit())
            elif kind == "preview":
                client.push(await session.preview(client.seat, frame["move"]))
            elif kind == "hint":
                self.ask_hint(client)
        except GameError:
            raise
        except Exception:  # a fault in the rules or the store must not take the connection down
            quiet_log.warning(f"frame:{kind}", "game %s: %s frame failed", session.id, kind, exc_info=True)
            raise GameError("server_error", _(M.SERVER_ERROR)) from None

    def ask_hint(self, client: Client) -> None:
        """Start working out a hint, unless it is refused: a refusal is decided here, with no task."""
        assert self.session is not None and client.seat is not None
        if self.hints_off:
            self.refuse("hints_off", M.HINTS_OFF)
            return
        if self.hints:  # this connection's hint is being worked out
            self.refuse("hint_busy", M.HINT_BUSY)
            return
        try:
            check_hint_request(self.session, client.seat)
        except GameError as error:
            self.hints_off = error.code == "hints_off"
            raise
        task = asyncio.create_task(self.hint(client))
        self.hints.add(task)
        task.add_done_callback(self.hints.discard)

    async def hint(self, client: Client) -> None:
        """Work out a hint off the frame loop (the connection keeps reading); errors go to the client."""
        assert self.session is not None and client.seat is not None

        def started(seconds: float) -> None:
            client.push({"type": "hint_thinking", "seconds": seconds})

        def searched(positions: int) -> None:
            client.push({"type": "hint_progress", "positions": positions})

        try:
            client.push(await give_hint(self.session, client.seat, started, searched))
        except GameError as error:
            client.push(error_frame(error.code, error.message))
        except Exception:
            quiet_log.warning("frame:hint", "game %s: a hint failed", self.session.id, exc_info=True)
            client.push(error_frame("server_error", _(M.HINT_FAILED)))

    def cleanup(self) -> None:
        chat_of(self.ws.app).left(self.chat_member)
        if self.client is not None and self.session is not None:
            self.session.detach(self.client)
            self.client.queue.put_nowait(None)
        self.direct.queue.put_nowait(None)
        for task in [*self.tasks, *self.hints]:
            if not task.done():
                task.cancel()
