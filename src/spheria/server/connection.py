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
from typing import TYPE_CHECKING, Any

from starlette.requests import HTTPConnection
from starlette.types import Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from spheria.i18n import gettext as _
from spheria.server import messages as M
from spheria.server.accounts import current_player
from spheria.server.chat import Member, chat_of
from spheria.server.clocks import LagMeter
from spheria.server.hints import check_hint_request, give_hint
from spheria.server.limits import Limits
from spheria.server.ownership import CLOSE_RESTART
from spheria.server.protocol import MAX_FRAME, ProtocolError, error_frame, parse_frame
from spheria.server.session import (
    CLOSE_TOO_SLOW,
    Client,
    GameError,
    GameSession,
    SessionManager,
    encode,
    quiet_log,
)

if TYPE_CHECKING:  # the lobby builds on this module (its socket is a FrameSocket)
    from spheria.server.challenges import Lobby

#: The rate limit's clock (tests stop it).
clock = time.monotonic
#: Close code when a limit refuses the connection (policy).
CLOSE_POLICY = 1008
#: Seconds over which a connection's refusals for the rate are counted (``Limits.frame_refusals``).
REFUSAL_WINDOW = 10.0


async def claim_seat(connection: HTTPConnection, session: GameSession, token: str) -> tuple[int, str]:
    """Claim the seat of an invite ``token`` for the player of this browser: a seat held by a player
    (a challenge's) is theirs alone (``not_your_seat``); a free one becomes held by the claimer."""
    player = await current_player(connection)
    seat = session.seat_for_token(token)
    held = None if seat is None else session.holders.get(seat)
    if held is not None and (player is None or player.id != held.id):
        raise GameError("not_your_seat", _(M.NOT_YOUR_SEAT))
    claimed, credential = await session.claim(token)
    if player is not None and held is None:
        lobby: Lobby = connection.app.state.lobby
        await lobby.hold(session, {claimed: player})
    return claimed, credential


class FrameSocket:
    """What every websocket endpoint of the server shares (one instance per connection): the
    connection limit per address, the handshake, a send queue (:class:`Client`) pumped by a task,
    frames of at most :data:`MAX_FRAME` bytes of JSON text, the frame rate with its flood refusal
    (1008), the close of a client too far behind (1013) and the clean-up.

    A subclass says what the socket is about (:meth:`open`), reads its own frames (:meth:`parse`,
    :meth:`handle`) and cleans up what it joined (:meth:`left`)."""

    def __init__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.ws = WebSocket(scope, receive, send)
        state = scope["app"].state
        self.limits: Limits = state.limits
        self.connections: Counter[str] = state.connections
        self.address = scope["client"][0] if scope.get("client") else "unknown"
        #: Frames to this socket alone (its queue is pumped from the handshake on).
        self.direct = Client(self._send, limit=self.limits.client_queue, on_drop=self._too_slow)
        self.burst = max(2 * self.limits.frame_rate, 10.0)
        self.allowance = self.burst
        self.last = clock()
        self.tasks: list[asyncio.Task[None]] = []  # the pumps, for the connection's life
        #: Frames refused for the rate in the window that began at ``refusals_since``.
        self.refusals = 0
        self.refusals_since = 0.0
        #: Refusals that never vary on this connection, by code: their frame's text, encoded once.
        self.refusal_texts: dict[str, str] = {}

    def __await__(self) -> Any:
        return self.run().__await__()

    async def run(self) -> None:
        if self.connections[self.address] >= self.limits.connections_per_address:
            await self.ws.close(code=CLOSE_POLICY, reason="too_many_connections")
            return
        self.connections[self.address] += 1
        try:
            await self.ws.accept()
            if await self.open():
                self.tasks.append(asyncio.create_task(self.direct.pump()))
                await self.serve()
        except WebSocketDisconnect:
            pass
        finally:
            self.connections[self.address] -= 1
            if self.connections[self.address] <= 0:
                del self.connections[self.address]
            self.cleanup()

    async def open(self) -> bool:
        """After the handshake: find what the socket is about and queue its first frames; False
        when it was refused (and closed)."""
        raise NotImplementedError

    def parse(self, text: str) -> dict[str, Any]:
        """One frame of this socket's protocol, or the :class:`GameError` naming what is wrong."""
        raise NotImplementedError

    async def handle(self, frame: dict[str, Any]) -> None:
        """Answer one parsed frame (a :class:`GameError` is answered as an error frame)."""
        raise NotImplementedError

    def left(self) -> None:
        """The socket closed: leave what it joined (called whether :meth:`open` got far or not)."""

    def running(self) -> list[asyncio.Task[None]]:
        """The tasks of this connection (its pumps, and any of its own)."""
        return self.tasks

    def outbox(self) -> Client:
        """The queue this socket's answers go through now."""
        return self.direct

    async def _send(self, text: str) -> None:
        await self.ws.send_text(text)

    def _too_slow(self) -> None:
        """Close a client too far behind (from a ``push``): the browser reconnects and catches up."""
        for task in self.running():
            task.cancel()
        asyncio.get_running_loop().create_task(self._close(CLOSE_TOO_SLOW, "too_slow"))

    async def _close(self, code: int, reason: str) -> None:
        if self.ws.application_state == WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):  # the socket is gone already
                await asyncio.wait_for(self.ws.close(code=code, reason=reason), 5)

    def reply(self, frame: dict[str, Any] | str) -> None:
        self.outbox().push(frame)

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
        self.outbox().queue.put_nowait(None)
        pump = self.tasks[-1]
        await asyncio.wait([pump], timeout=1.0)
        for task in self.running():
            task.cancel()
        await self._close(CLOSE_POLICY, "too_many_frames")

    async def answer(self, message: Message) -> None:
        """Answer one frame the rate allows: JSON text of at most :data:`MAX_FRAME` bytes."""
        text = message.get("text")
        if text is None:
            self.reply(error_frame("bad_frame", "send JSON text frames"))
            return
        if len(text.encode("utf-8", "surrogatepass")) > MAX_FRAME:
            self.reply(error_frame("bad_frame", f"frame too large: at most {MAX_FRAME} bytes"))
            return
        try:
            await self.handle(self.parse(text))
        except GameError as error:
            frame = error_frame(error.code, error.message)
            if error.kept is not None:
                frame["kept"] = error.kept
            self.reply(frame)

    def cleanup(self) -> None:
        self.left()
        self.direct.queue.put_nowait(None)
        for task in self.running():
            if not task.done():
                task.cancel()


class GameSocket(FrameSocket):
    """The ASGI endpoint of ``/ws/{game_id}``: one instance per connection."""

    def __init__(self, scope: Scope, receive: Receive, send: Send) -> None:
        super().__init__(scope, receive, send)
        self.manager: SessionManager = scope["app"].state.manager
        self.session: GameSession | None = None
        self.client: Client | None = None
        self.hints: set[asyncio.Task[None]] = set()  # hints being worked out; each leaves when done
        #: The game has no hints (learnt from the first hint asked; a game never gains them).
        self.hints_off = False
        self.chat_member: Member | None = None  # its room in the game's chat, once joined
        self.lag = LagMeter()  # a seat's round trip in a timed game (docs/server.md, Clocks)
        self.probe: asyncio.Task[None] | None = None  # kept apart from the pumps: the last pump is the outbox's

    async def open(self) -> bool:
        self.session = await self.manager.get(self.ws.path_params["game_id"])
        if self.session is None:
            await self.ws.send_json(error_frame("unknown_game", _(M.NO_GAME_WITH_ID)))
            await self.ws.close(code=4404)
            return False
        return True

    def running(self) -> list[asyncio.Task[None]]:
        return [*self.tasks, *self.hints, *([self.probe] if self.probe else [])]

    def _restart(self) -> None:
        """The game moved to another process (its lease was lost): close with 1012, the browser
        reconnects and reaches the new owner (:mod:`spheria.server.cluster`)."""
        for task in self.running():
            task.cancel()
        asyncio.get_running_loop().create_task(self._close(CLOSE_RESTART, "service_restart"))

    def outbox(self) -> Client:
        return self.client or self.direct

    def parse(self, text: str) -> dict[str, Any]:
        try:
            return parse_frame(text)
        except ProtocolError as error:
            raise GameError(error.code, str(error)) from None

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
        client = Client(
            self._send, seat, limit=self.limits.client_queue, on_drop=self._too_slow, on_restart=self._restart
        )
        self.direct.push({"type": "welcome", "seat": seat, "game": session.info()})
        self.direct.queue.put_nowait(None)  # the direct queue drains, then the client's takes over
        await self.tasks[0]
        self.client = client
        self.tasks.append(asyncio.create_task(client.pump()))
        self.chat_member = await chat_of(self.ws.app).joined(self.ws, session, client)
        if self.manager.sessions.get(session.id) is not session and not session.is_over():
            # The session left memory while this connection joined (a cluster process let go an
            # adopted game nobody was connected to): a seat attached to it would play alone, and
            # its lease may be another process's now. Start again, as when a game moves.
            self._restart()
            return
        session.attach(client)
        if seat is not None and self.manager.clocks is not None and self.manager.clocks.timed(session):
            self.probe = asyncio.create_task(self.lag.probing(client.push))  # its round trip, measured

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

    def left(self) -> None:
        chat_of(self.ws.app).left(self.chat_member)
        if self.client is not None and self.session is not None:
            self.session.detach(self.client)
            self.client.queue.put_nowait(None)
