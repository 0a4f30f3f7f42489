"""What every request passes before the app sees it: the Host allow-list, the Origin check on
websockets and POSTs, JSON-only POSTs and the security headers on every response; and an HTTP
protocol for uvicorn that closes connections whose request headers do not arrive in time, holds
each address to its share of half-sent requests, and closes silent connections first when the
server is full.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
_RAW_HEADERS = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in SECURITY_HEADERS.items()]

#: The detail of a request refused for coming from another site (the page words the code itself).
FOREIGN_ORIGIN = "requests from other sites are refused"


def host_name(host: str) -> str:
    """The host of a ``Host`` header or URL netloc, lower case, without the port."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a URL, lower case (how browsers send ``Origin``)."""
    parts = urlsplit(url.strip())
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


class Guard:
    """ASGI middleware: refuses what a browser-facing server must not answer, marks every response."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str], allowed_origins: Iterable[str]) -> None:
        self.app = app
        self.hosts = {host_name(h) for h in allowed_hosts}
        self.origins = {origin_of(o) for o in allowed_origins}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        problem = self.refusal(scope, headers)
        if problem is not None:
            status, code, message = problem
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008, "reason": code})
                return
            await self._refuse(send, status, code, message)
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return

        async def marked(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                message = {
                    **message,
                    "headers": [*message.get("headers", []), *(h for h in _RAW_HEADERS if h[0] not in present)],
                }
            await send(message)

        await self.app(scope, receive, marked)

    def refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str, str] | None:
        """Why this request is refused (status, code, message), or None."""
        if host_name(headers.get("host", "")) not in self.hosts:
            return 421, "bad_host", "this server does not answer to that host name"
        is_post = scope["type"] == "http" and scope.get("method") not in ("GET", "HEAD", "OPTIONS")
        origin = headers.get("origin")
        if (is_post or scope["type"] == "websocket") and origin is not None and not self.same_origin(origin, headers):
            return 403, "bad_origin", FOREIGN_ORIGIN
        if is_post:
            kind = headers.get("content-type", "").split(";", 1)[0].strip().lower()
            if kind != "application/json":
                return 415, "bad_content_type", "send the body as application/json"
        return None

    def same_origin(self, origin: str, headers: dict[str, str]) -> bool:
        if origin_of(origin) in self.origins:
            return True
        netloc = urlsplit(origin).netloc.lower()
        return bool(netloc) and netloc == headers.get("host", "").strip().lower()

    @staticmethod
    async def _refuse(send: Send, status: int, code: str, message: str) -> None:
        body = json.dumps({"error": {"code": code, "message": message}}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *_RAW_HEADERS]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def guarded_http_protocol(header_timeout: float, max_connections: int, per_address: int = 64) -> Any:
    """uvicorn's h11 protocol with three defences against sockets that hold the server without asking
    anything (uvicorn alone waits forever for the first request):

    * one address has at most ``per_address`` requests whose headers have begun but not ended; a
      connection that would make one more is closed, so that requests sent slowly a byte at a time
      from one address (slowloris) can never fill the table that everyone else needs (an honest
      client sends its headers at once, so a storm of a thousand websockets from one address is
      never counted against it);

    * a connection must send its request headers within ``header_timeout`` seconds, counted from
      the request's first byte (a connection that sends nothing at all is closed that long after
      it opened, or after its last response) — so a slow but honest client is never cut off
      because the server was too busy to read it sooner;
    * when ``max_connections`` are open, the connection silent for the longest (no byte of a request
      yet) is closed to make room, so idle sockets never cost an honest request a ``503``.
    """
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    silent: OrderedDict[Any, None] = OrderedDict()  # connections waiting for a request's first byte, oldest first
    half_sent: dict[str, set[Any]] = {}  # per address: connections whose request headers have begun, not ended

    class GuardedH11Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _armed_cycle: Any = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._await_request()
            self._make_room()

        @property
        def _address(self) -> str:
            return str(self.client[0]) if self.client else ""

        def _count_half_sent(self) -> None:
            """After bytes arrive: while this request's headers are unfinished it counts against its
            address, and a connection past the address's share is closed."""
            waiting = self.transport.get_protocol() is self and not self.transport.is_closing()
            if waiting and self.conn.their_state == h11.IDLE:
                mine = half_sent.setdefault(self._address, set())
                mine.add(self)
                if len(mine) > per_address:
                    self._forget_half_sent()
                    self.transport.close()
            else:
                self._forget_half_sent()

        def _forget_half_sent(self) -> None:
            mine = half_sent.get(self._address)
            if mine is not None:
                mine.discard(self)
                if not mine:
                    del half_sent[self._address]

        def _await_request(self) -> None:
            """Before a request's first byte: silent (closed when room is needed), on a deadline."""
            silent[self] = None
            silent.move_to_end(self)
            self._arm()

        def _make_room(self) -> None:
            while len(self.connections) >= max_connections and silent:
                oldest = next(iter(silent))
                if oldest is self:
                    return
                del silent[oldest]
                oldest.transport.close()
                oldest.connections.discard(oldest)

        def data_received(self, data: bytes) -> None:
            if self in silent:  # the request's first byte: its headers have header_timeout from now
                del silent[self]
                self._arm()
            super().data_received(data)
            self._count_half_sent()

        def _arm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._armed_cycle = self.cycle
            self._deadline = self.loop.call_later(header_timeout, self._expire)

        def _expire(self) -> None:
            self._deadline = None
            upgraded = self.transport.get_protocol() is not self
            if not upgraded and self.cycle is self._armed_cycle and not self.transport.is_closing():
                self.transport.close()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._await_request()

        def connection_lost(self, exc: Exception | None) -> None:
            self._forget_half_sent()
            silent.pop(self, None)
            if self._deadline is not None:
                self._deadline.cancel()
            super().connection_lost(exc)

    return GuardedH11Protocol
