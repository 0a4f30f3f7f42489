"""The ASGI tunnel over Redis pub/sub: a request or websocket served by the process that owns its game.

The **relay** (the process the client reached) publishes the scope (JSON-safe) and then every ASGI
message it receives to the owner's inbox ``spheria:inbox:<owner>``, each tagged with a connection
id; the **owner** runs the app for it, unchanged, with ``receive`` fed from those messages and
``send`` publishing to the relay's inbox; the relay turns those into real ASGI sends. Each side
watches the other's heartbeat: a relay whose owner is gone closes its socket with 1012 (the browser
reconnects and lands on whichever process takes the game); an owner whose relay is gone tells the
app the client disconnected. Inboxes are Redis channels only: no client text reaches them but as
the payload of a message.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import secrets
from typing import TYPE_CHECKING, Any

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from spheria.i18n import gettext as _
from spheria.i18n import using
from spheria.server.endpoints import error_response, spoken_language
from spheria.server.messages import CLUSTER_UNAVAILABLE
from spheria.server.ownership import CLOSE_RESTART, PREFIX

if TYPE_CHECKING:
    from redis.asyncio.client import PubSub

    from spheria.server.cluster import RedisCluster

log = logging.getLogger("spheria.server.cluster")

#: The scope keys that cross the tunnel (the rest is the owner's own: its app, its state).
SCOPE_KEYS = (
    "type",
    "asgi",
    "http_version",
    "method",
    "scheme",
    "path",
    "raw_path",
    "root_path",
    "query_string",
    "headers",
    "client",
    "server",
    "subprotocols",
)
#: The scope mark of a tunnelled connection: served where it arrives, never relayed again.
TUNNELLED = "spheria.tunnelled"
_GONE: dict[str, Any] = {"op": "gone"}


def pack(value: Any) -> Any:
    """``value`` as JSON-safe data: bytes as ``{"b": base64}``, tuples as lists."""
    if isinstance(value, bytes):
        return {"b": base64.b64encode(value).decode("ascii")}
    if isinstance(value, (list, tuple)):
        return [pack(item) for item in value]
    if isinstance(value, dict):
        return {key: pack(item) for key, item in value.items()}
    return value


def unpack(value: Any) -> Any:
    """The inverse of :func:`pack`."""
    if isinstance(value, dict):
        if value.keys() == {"b"}:
            return base64.b64decode(value["b"])
        return {key: unpack(item) for key, item in value.items()}
    if isinstance(value, list):
        return [unpack(item) for item in value]
    return value


def _finished(message: Message) -> bool:
    kind = message["type"]
    return kind == "websocket.close" or (kind == "http.response.body" and not message.get("more_body", False))


class Tunnel:
    """One process's end of the tunnel: its inbox, the connections it relays and those it serves."""

    def __init__(self, cluster: RedisCluster, app: ASGIApp) -> None:
        self.cluster = cluster
        self.app = app
        #: Messages waiting for each connection id (relayed or served here).
        self.waiting: dict[str, asyncio.Queue[dict[str, Any]]] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.pubsub: PubSub | None = None
        #: The queues of the connections that end when each other process stops beating, and the one
        #: task per such process that watches it (a Redis call a process, not one a connection).
        self.watched: dict[str, set[asyncio.Queue[dict[str, Any]]]] = {}
        self.watchers: dict[str, asyncio.Task[None]] = {}

    def inbox(self, process: str) -> str:
        return f"{PREFIX}inbox:{process}"

    async def start(self) -> None:
        self.pubsub = self.cluster.redis.pubsub(ignore_subscribe_messages=True)
        await self.pubsub.subscribe(self.inbox(self.cluster.me))
        self._spawn(self._listen())

    async def stop(self) -> None:
        for task in [*self.tasks, *self.watchers.values()]:
            task.cancel()
        if self.pubsub is not None:
            with contextlib.suppress(Exception):
                await self.pubsub.aclose()

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def publish(self, process: str, envelope: dict[str, Any]) -> None:
        await self.cluster.redis.publish(self.inbox(process), json.dumps(envelope, separators=(",", ":")))

    async def _listen(self) -> None:
        from redis.exceptions import RedisError

        assert self.pubsub is not None
        while True:
            try:
                message = await self.pubsub.get_message(timeout=1.0)
            except RedisError as error:
                self.cluster.went_down(error)
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "message":
                continue
            try:
                self.dispatch(json.loads(message["data"]))
            except Exception:
                log.warning("a tunnel message could not be read", exc_info=True)

    def dispatch(self, envelope: dict[str, Any]) -> None:
        connection = envelope["cid"]
        if envelope["op"] == "open":
            if connection not in self.waiting:
                self.waiting[connection] = asyncio.Queue()
                self._spawn(self._serve(connection, envelope["from"], envelope["scope"]))
            return
        queue = self.waiting.get(connection)
        if queue is not None:
            queue.put_nowait(envelope)

    def _watch(self, process: str, queue: asyncio.Queue[dict[str, Any]]) -> None:
        """Put :data:`_GONE` in ``queue`` when ``process`` stops beating (until :meth:`_unwatch`)."""
        self.watched.setdefault(process, set()).add(queue)
        if process not in self.watchers:
            task = asyncio.get_running_loop().create_task(self._watch_process(process))
            self.watchers[process] = task

    def _unwatch(self, process: str, queue: asyncio.Queue[dict[str, Any]]) -> None:
        self.watched.get(process, set()).discard(queue)

    async def _watch_process(self, process: str) -> None:
        try:
            while self.watched.get(process):
                await asyncio.sleep(self.cluster.lease_ms / 3000)
                if not await self.cluster.is_alive(process):
                    for queue in self.watched.pop(process, set()):
                        queue.put_nowait(_GONE)
                    return
        finally:  # nothing to watch (no await since the loop's test), or the process gone
            self.watchers.pop(process, None)
            if not self.watched.get(process):
                self.watched.pop(process, None)

    # -- the relay: a client of this process, its game owned by another ---------------------------
    async def relay(self, owner: str, scope: Scope, receive: Receive, send: Send) -> None:
        from redis.exceptions import RedisError

        connection = secrets.token_hex(8)
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.waiting[connection] = queue
        crossing = {key: pack(scope[key]) for key in SCOPE_KEYS if key in scope}
        started = done = False
        helpers: list[asyncio.Task[None]] = []
        try:
            try:
                await self.publish(owner, {"op": "open", "cid": connection, "from": self.cluster.me, "scope": crossing})
            except RedisError as error:
                self.cluster.went_down(error)
                await refuse_unavailable(scope, send)
                return
            helpers = [asyncio.get_running_loop().create_task(self._forward(owner, connection, receive, queue))]
            self._watch(owner, queue)
            while not done:
                envelope = await queue.get()
                if envelope["op"] != "out":
                    break  # the owner ended the connection, or is gone
                message = unpack(envelope["msg"])
                await send(message)
                started = True
                done = _finished(message)
        finally:
            for helper in helpers:
                helper.cancel()
            self._unwatch(owner, queue)
            self.waiting.pop(connection, None)
        if not done:  # the owner went away mid-way: the client starts again (and lands on a live owner)
            with contextlib.suppress(Exception):
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": CLOSE_RESTART, "reason": "service_restart"})
                elif not started:
                    await refuse_unavailable(scope, send)

    async def _forward(
        self, owner: str, connection: str, receive: Receive, queue: asyncio.Queue[dict[str, Any]]
    ) -> None:
        from redis.exceptions import RedisError

        while True:
            message = await receive()
            try:
                await self.publish(owner, {"op": "in", "cid": connection, "msg": pack(message)})
            except RedisError as error:
                self.cluster.went_down(error)
                queue.put_nowait(_GONE)
                return
            if message["type"] in ("websocket.disconnect", "http.disconnect"):
                return

    # -- the owner: a client of another process, its game owned here ---------------------------------
    async def _serve(self, connection: str, relay: str, crossing: dict[str, Any]) -> None:
        queue = self.waiting[connection]
        scope: dict[str, Any] = {key: unpack(crossing[key]) for key in SCOPE_KEYS if key in crossing}
        for key in ("client", "server"):
            if isinstance(scope.get(key), list):
                scope[key] = tuple(scope[key])
        scope.update({"state": {}, "extensions": {}, TUNNELLED: True})
        gone = {"type": "websocket.disconnect", "code": 1006} if scope["type"] == "websocket" else None
        gone = gone or {"type": "http.disconnect"}
        ended = False

        async def receive() -> Message:
            nonlocal ended
            if ended:
                return gone
            envelope = await queue.get()
            if envelope["op"] != "in":
                ended = True
                return gone
            message: Message = unpack(envelope["msg"])
            if message["type"] == gone["type"]:
                ended = True
            return message

        in_order = asyncio.Lock()  # the app may send from several tasks: published in the order sent

        async def send(message: Message) -> None:
            async with in_order:
                await self.publish(relay, {"op": "out", "cid": connection, "msg": pack(message)})

        self._watch(relay, queue)
        try:
            await self.app(scope, receive, send)
        except Exception:
            log.warning("a tunnelled connection failed", exc_info=True)
        finally:
            self._unwatch(relay, queue)
            self.waiting.pop(connection, None)
            with contextlib.suppress(Exception):
                await self.publish(relay, {"op": "end", "cid": connection})


async def refuse_unavailable(scope: Scope, send: Send) -> None:
    """``cluster_unavailable``: a websocket closed with 1012 (its reason the code), a request 503."""
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": CLOSE_RESTART, "reason": "cluster_unavailable"})
        return
    with using(spoken_language(HTTPConnection(scope))):
        response = error_response(503, "cluster_unavailable", _(CLUSTER_UNAVAILABLE), {"Retry-After": "5"})

    async def nothing() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    await response(scope, nothing, send)
