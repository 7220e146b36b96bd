"""Security and cache headers on every response of the web server.

The content security policy allows scripts, styles, images and connections from the server's own
origin only, no inline script, and no framing by any other site. Inline `style` attributes stay
allowed (`style-src-attr`): the boards colour each seat with a CSS variable. The server's HTML
that the viewer inserts into the page is therefore inert even if a name slipped through escaping.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "style-src-attr 'unsafe-inline'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
SECURITY = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
}
"""Set on every response."""
STATIC_LIFETIME = "public, max-age=600"
"""Scripts, styles and icons: unversioned names, so ten minutes, then revalidated by ETag."""
DEFAULT_CACHE = "no-cache"
"""Any response that does not say otherwise: kept, but revalidated before each use."""


class SecurityHeaders:
    """Adds the security headers, and a Cache-Control where a response has none."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = str(scope.get("path", "")).startswith("/static/")

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY.items():
                    headers[name] = value
                if "cache-control" not in headers:
                    status = int(message["status"])
                    if status >= 500:
                        headers["Cache-Control"] = "no-store"
                    else:
                        headers["Cache-Control"] = STATIC_LIFETIME if static else DEFAULT_CACHE
            await send(message)

        await self.app(scope, receive, sending)
