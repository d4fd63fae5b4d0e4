"""``memcli ui``: the memory page, served by the standard library's HTTP server on 127.0.0.1.

Safe by construction (a page on localhost is reachable from any site the browser visits):
every request needs the random token of the URL printed at start (the page sends it back in a
header), a Host that is not 127.0.0.1/localhost at our port is refused (DNS rebinding), a write
is a JSON POST whose Origin must be the page's own, and every answer forbids inline script and
other hosts (Content-Security-Policy).  The page builds its DOM from text (``textContent``),
never from HTML, so nothing from memory runs.  Everything served ships in ``memcli/ui/static``.
"""

from __future__ import annotations

import hmac
import json
import secrets
import socket
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import parse_qsl, urlsplit

from memcli.errors import MemcliError
from memcli.storage.store import Store

TYPE_CHECKING = False  # names for annotations only
if TYPE_CHECKING:
    from typing import Any, Callable

SERVER_NAME = "memcli-ui"
MAX_BODY = 1 << 20  # a write's JSON: an entry holds at most 64 KB
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/app.css": ("app.css", "text/css; charset=utf-8"),
}


def static_file(name: str) -> bytes:
    return resources.files("memcli.ui").joinpath("static", name).read_bytes()


class UIServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True  # a restart right after a stop binds again; a live listener still refuses

    def __init__(self, open_store: Callable[[], Store], port: int, read_only: bool = False, token: str | None = None):
        self.open_store = open_store  # a Store a request: the config and the files as they are then
        self.read_only = read_only
        self.token = token or secrets.token_urlsafe(24)
        super().__init__(("127.0.0.1", port), Handler)
        self.port = self.server_address[1]
        self.hosts = {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}
        self.origins = {f"http://{h}" for h in self.hosts}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?token={self.token}"


class Handler(BaseHTTPRequestHandler):
    server: UIServer
    server_version = SERVER_NAME
    timeout = 60  # a connection that sends nothing for a minute is closed
    sys_version = ""
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # Headers and body leave in two writes: without this, Nagle's algorithm and the client's
        # delayed ACK hold the second one back 40 ms on every kept-alive request.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass  # a page that searches as you type would fill the terminal

    # -- answers -----------------------------------------------------------------------------

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")  # the token is in the page's URL
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data, ensure_ascii=False).encode(), "application/json; charset=utf-8")

    def _refuse(self, status: int, message: str) -> None:
        self.close_connection = True  # a refused write's body is left unread
        self._json(status, {"error": message})

    # -- guards ------------------------------------------------------------------------------

    def _allowed(self, query: dict[str, str]) -> bool:
        host = self.headers.get("Host", "")
        if host not in self.server.hosts:
            self._refuse(403, f"refused: Host {host!r} is not this server (127.0.0.1:{self.server.port})")
            return False
        given = self.headers.get("X-Memcli-Token") or query.get("token") or ""
        if not hmac.compare_digest(given.encode(), self.server.token.encode()):
            self._refuse(403, "refused: a missing or wrong token (open the URL memcli ui printed)")
            return False
        return True

    # -- routes ------------------------------------------------------------------------------

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        parts = urlsplit(self.path)
        query = dict(parse_qsl(parts.query))
        if not self._allowed(query):
            return
        if parts.path in STATIC:
            name, content_type = STATIC[parts.path]
            body = static_file(name)
            if name == "index.html":
                body = body.replace(b"{{TOKEN}}", self.server.token.encode())  # url-safe: [A-Za-z0-9_-]
            self._send(200, body, content_type)
            return
        from memcli.ui import data

        reads = {
            "/api/overview": lambda s, q: {**data.overview(s), "read_only": self.server.read_only},
            "/api/entries": data.page,
            "/api/entry": data.entry,
            "/api/search": data.search,
            "/api/preview": data.preview,
            "/api/timeline": lambda s, q: data.timeline(s),
            "/api/review": data.review,
        }
        handler = reads.get(parts.path)
        if handler is None:
            self._refuse(404, f"no such page: {parts.path}")
            return
        self._answer(lambda: handler(self.server.open_store(), query))

    do_HEAD = do_GET

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        self.close_connection = True  # whatever of the body is not read never reaches the next request
        parts = urlsplit(self.path)
        if not self._allowed({}):  # a write takes the token from the header only
            return
        origin = self.headers.get("Origin", "")
        if origin not in self.server.origins:
            self._refuse(403, f"refused: a write from origin {origin or 'none'!r}")
            return
        if self.server.read_only:
            self._refuse(403, "refused: memcli ui runs --read-only; nothing written")
            return
        if not self.headers.get("Content-Type", "").startswith("application/json"):
            self._refuse(415, "refused: a write is JSON")
            return
        action = parts.path.removeprefix("/api/")
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            self._refuse(413, "refused: the request is too large")
            return
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except (ValueError, RecursionError):
            self._refuse(400, "the request is not JSON")
            return
        if not isinstance(body, dict):
            self._refuse(400, "the request is not a JSON object")
            return
        from memcli.ui import data

        self._answer(lambda: data.write(self.server.open_store(), action, body))

    def _answer(self, produce) -> None:
        try:
            result = produce()
        except MemcliError as exc:
            self._refuse(400, exc.message)
            return
        except Exception as exc:  # the page shows it; the server goes on
            self._refuse(500, f"{type(exc).__name__}: {exc}")
            return
        self._json(200, result)


def running_elsewhere(port: int) -> bool:
    """Whether a memcli ui answers on 127.0.0.1:port (to say so rather than 'port in use')."""
    import http.client

    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        conn.request("HEAD", "/")
        server = conn.getresponse().getheader("Server", "")
        conn.close()
    except (OSError, http.client.HTTPException):
        return False
    return server.startswith(SERVER_NAME)


def serve(open_store: Callable[[], Store], port: int, open_browser: bool, read_only: bool) -> int:
    open_store()  # a missing .memory/ is said before anything listens
    try:
        server = UIServer(open_store, port, read_only)
    except OSError as exc:
        import errno

        if exc.errno == errno.EADDRINUSE:
            if running_elsewhere(port):
                raise MemcliError(
                    f"memcli ui is already running on port {port} (its URL was printed where it started);"
                    " stop it, or choose another port with --port"
                ) from None
            raise MemcliError(f"port {port} is in use by another program; choose another with --port") from None
        raise MemcliError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}") from None
    mode = " (read-only)" if read_only else ""
    try:  # a Ctrl-C at any moment from here stops it cleanly
        sys.stdout.write(f"memcli ui{mode}: {server.url}\n(Ctrl-C stops it)\n")
        sys.stdout.flush()
        if open_browser:
            import webbrowser

            try:
                webbrowser.open(server.url)
            except Exception:
                pass  # the URL is printed
        server.serve_forever()
    except KeyboardInterrupt:
        sys.stdout.write("memcli ui stopped\n")
    finally:
        server.server_close()
    return 0
