"""The web table's limits and protections: what one request may cost, who may call it.

:class:`Limits` gathers every bound the server enforces (``create_app`` arguments and
``pasur serve`` flags, documented in docs/web.md): request body size, record length
(actions, rounds), player-name length, frames per replay page, live games by count
and by estimated memory, idle expiry.

Two pure ASGI middlewares sit in front of the app: :class:`BodyLimit` refuses a body
larger than ``max_body_bytes`` with 413 before anything parses it (from its
``Content-Length`` header, and by counting the bytes of a streamed body), and
:class:`SecurityHeaders` adds the page's security headers to every response (a
Content-Security-Policy fitting the page: scripts and styles from the server itself,
the table drawn as inline SVG, no framing). Allowed ``Host`` names (against DNS
rebinding) are :func:`allowed_hosts`, checked by Starlette's ``TrustedHostMiddleware``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any

from pasur_env.core.args import check_int

__all__ = ["Limits", "BodyLimit", "SecurityHeaders", "allowed_hosts", "LOCAL_HOSTS",
           "PAGE_CSP"]

#: the names a server on this host is always reachable by
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]")
#: the page's policy: its own scripts and styles (the table's SVG carries style
#: attributes, hence 'unsafe-inline' for styles only), images drawn inline (data:)
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
            "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
            "form-action 'self'; frame-ancestors 'none'")
#: the API docs page (/api/docs) loads Swagger UI from its CDN with an inline script
DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "img-src 'self' data: https://fastapi.tiangolo.com; frame-ancestors 'none'")


@dataclass(frozen=True)
class Limits:
    """Every bound of the web server (module docstring); all must be positive."""

    #: live games at most
    max_games: int = 200
    #: estimated memory of the live games at most (MB; each table's ``footprint``)
    max_memory_mb: int = 512
    #: forget a game idle this long (seconds)
    idle_seconds: float = 1800.0
    #: a full server evicts games idle at least this long (oldest first) before refusing
    evict_after: float = 300.0
    #: request body size at most (bytes); a record of a long game is a few KB
    max_body_bytes: int = 256 * 1024
    #: actions in a record sent to /api/replay
    max_record_actions: int = 10_000
    #: rounds in a record sent to /api/replay
    max_record_rounds: int = 200
    #: characters of a player name in a record
    max_name_chars: int = 40
    #: frames per /api/replay answer (a page of positions)
    max_replay_frames: int = 100

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "float":
                if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                    raise ValueError(f"{f.name} must be a non-negative number, got {value!r}")
            else:
                check_int(value, f.name, 1)


def allowed_hosts(bound: str = "127.0.0.1", extra: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The ``Host`` names the server answers: the local names, the bound address (unless
    it is a wildcard such as 0.0.0.0) and ``extra`` (``--allow-host``; ``*`` allows any)."""
    hosts = list(LOCAL_HOSTS)
    if bound not in ("", "0.0.0.0", "::", "*"):
        hosts.append(bound)
    hosts += [h.strip().lower() for h in extra if h.strip()]
    return list(dict.fromkeys(hosts))


async def _refuse(send: Any, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """Refuse request bodies over ``max_bytes`` with 413, before they are parsed."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app, self.max_bytes = app, int(max_bytes)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_big = (f"the request body is larger than this server's limit of "
                   f"{self.max_bytes:,} bytes")
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None:
            if not length.strip().isdigit():
                await _refuse(send, 400, "the Content-Length header must be a number")
                return
            if int(length) > self.max_bytes:
                await _refuse(send, 413, too_big)
                return
        chunks: list[bytes] = []
        size = 0
        while True:  # read the body (a chunked one too), counting, before the app runs
            msg = await receive()
            if msg["type"] != "http.request":
                break
            size += len(msg.get("body", b""))
            if size > self.max_bytes:
                await _refuse(send, 413, too_big)
                return
            chunks.append(msg.get("body", b""))
            if not msg.get("more_body", False):
                break
        sent = False

        async def replay() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class SecurityHeaders:
    """Add the security headers (module docstring) to every HTTP response."""

    def __init__(self, app: Any, docs_path: str = "/api/docs") -> None:
        self.app, self.docs_path = app, docs_path

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        csp = DOCS_CSP if scope.get("path") == self.docs_path else PAGE_CSP

        async def with_headers(msg: dict[str, Any]) -> None:
            if msg["type"] == "http.response.start":
                headers = [(k, v) for k, v in msg.get("headers", [])
                           if k.lower() not in _ADDED]
                headers += [(b"content-security-policy", csp.encode()),
                            (b"x-content-type-options", b"nosniff"),
                            (b"x-frame-options", b"DENY"),
                            (b"referrer-policy", b"no-referrer"),
                            (b"cross-origin-opener-policy", b"same-origin")]
                msg = {**msg, "headers": headers}
            await send(msg)

        await self.app(scope, receive, with_headers)


_ADDED = {b"content-security-policy", b"x-content-type-options", b"x-frame-options",
          b"referrer-policy", b"cross-origin-opener-policy"}
