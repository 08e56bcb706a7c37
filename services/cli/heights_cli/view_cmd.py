"""`heights view REPLAY`: a replay file in the platform's viewer, on the author's machine.

Either served from 127.0.0.1 (stdlib http.server, a free port by default) until Ctrl-C,
answering the paths the viewer asks the platform for, or written as one self-contained
HTML file (`--html OUT`) that opens from disk with no server.
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
import webbrowser
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from heights_platform.viewer.assets import asset_bytes
from heights_platform.viewer.local import (
    ASSET_PATH,
    REPLAY_PATH,
    LocalReplay,
    served_page,
    standalone_page,
)
from heights_rules import ReplayError

HOST = "127.0.0.1"  # the author's machine only: never another interface
_STEP = re.compile(rf"^{re.escape(REPLAY_PATH)}steps/(\d{{1,7}})/$")


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "view", help="show a replay file in the viewer (local server, or --html for one file)"
    )
    p.add_argument("replay", type=Path, metavar="REPLAY", help="a replay file (.replay.gz, .rhr)")
    add_view_options(p)
    p.set_defaults(run=run)


def add_view_options(p: argparse.ArgumentParser) -> None:
    """--html, --port and --open: shared with `heights match --view`."""
    p.add_argument(
        "--html",
        type=Path,
        default=None,
        metavar="OUT",
        help="write a self-contained page to OUT (opens from disk, no server) instead of serving",
    )
    p.add_argument(
        "--port", type=_port, default=0, help=f"port on {HOST} to serve on (default: a free one)"
    )
    p.add_argument("--open", action="store_true", help="open the page in the web browser")


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0-65535)") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} is outside 0-65535 (0: a free one)")
    return port


def run(args: argparse.Namespace) -> int:
    return show(args.replay, html=args.html, port=args.port, open_browser=args.open)


def show(path: Path, *, html: Path | None, port: int, open_browser: bool) -> int:
    """Write the page (`html`) or serve it until Ctrl-C; 2 when the replay is unusable."""
    try:
        replay = LocalReplay.read(path)
        if html is not None:
            return _write(replay, html, open_browser)
        server = make_server(replay, port)
    except ReplayError as err:
        print(f"heights view: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"heights view: cannot listen on {HOST}:{port}: {err.strerror}", file=sys.stderr)
        return 2
    # "Ctrl-C stops" whatever SIGINT's disposition was inherited: a shell that starts a
    # command in the background without job control starts it with SIGINT ignored, and
    # Python then installs no KeyboardInterrupt handler, so the server never stopped.
    # Set before the URL is printed: whoever reads that line may send SIGINT at once.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    url = f"http://{HOST}:{server.server_address[1]}/"
    try:  # from the line that invites Ctrl-C on
        print(f"viewing {path} at {url}  (Ctrl-C stops)", flush=True)
        if open_browser:
            webbrowser.open(url)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def _write(replay: LocalReplay, out: Path, open_browser: bool) -> int:
    page = standalone_page(replay)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(page, encoding="utf-8")
    except OSError as err:
        print(f"heights view: cannot write {out}: {err.strerror or err}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({len(page.encode()) // 1024} kB): open it in a browser, no server needed")
    if open_browser:
        webbrowser.open(out.resolve().as_uri())
    return 0


def make_server(replay: LocalReplay, port: int = 0) -> ThreadingHTTPServer:
    """A server for `replay` on HOST (`port` 0: a free one); the caller serves and closes."""
    shared = {"replay": replay, "meta": replay.meta(), "page": served_page(replay)}
    handler = type("ReplayHandler", (_Handler,), shared)
    return ThreadingHTTPServer((HOST, port), handler)


class _Handler(BaseHTTPRequestHandler):
    """GET only: the page, the replay's metadata and steps, the viewer's fixed assets."""

    replay: LocalReplay
    meta: dict[str, Any]
    page: str

    def do_GET(self) -> None:  # the name http.server dispatches to
        path = self.path.split("?", 1)[0]
        routes: dict[str, Callable[[], None]] = {
            "/": lambda: self._send(200, self.page.encode(), "text/html; charset=utf-8"),
            REPLAY_PATH: lambda: self._json(200, self.meta),
        }
        if path in routes:
            routes[path]()
        elif (found := _STEP.match(path)) is not None:
            self._step(int(found[1]))
        elif path.startswith(ASSET_PATH) and (asset := asset_bytes(path[len(ASSET_PATH) :])):
            self._send(200, asset[0], asset[1])
        else:
            self._error(404, "not_found", f"nothing at {path}", {})

    def _step(self, step: int) -> None:
        steps = len(self.replay.record.actions)
        if step > steps:
            self._error(404, "not_found", f"step {step} is outside 0..{steps}", {"steps": steps})
            return
        try:
            self._json(200, self.replay.step(step))
        except ReplayError as err:
            self._error(409, "conflict", f"the replay cannot be simulated: {err}", {})

    def _error(self, status: int, code: str, message: str, details: dict[str, Any]) -> None:
        """The platform's error shape, so the viewer reports it the same way."""
        self._json(status, {"code": code, "message": message, "details": details})

    def _json(self, status: int, body: dict[str, Any]) -> None:
        self._send(status, json.dumps(body).encode(), "application/json")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(HTTPStatus(status))
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: one line per request would bury the URL printed above."""
