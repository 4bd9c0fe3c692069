"""A small HTTP server on 127.0.0.1 for the download tests: files at paths, each path with a behaviour
(serve, answer an HTTP status, cut the body short, stall), optionally only for its first requests.
It honours ``Range: bytes=N-`` and records every request, so tests can count attempts and see resumes.
Nothing here ever contacts another address.
"""

from __future__ import annotations

import http.server
import threading
from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Route:
    body: bytes
    mode: str = "ok"  # ok | status | truncate | stall
    status: int = 500
    times: int | None = None  # the mode applies to the first `times` requests only (None: to all)
    ranges: bool = True  # honour Range requests


@dataclass
class LocalServer:
    routes: dict[str, Route] = field(default_factory=dict)
    hits: Counter = field(default_factory=Counter)
    ranges: list[tuple[str, str]] = field(default_factory=list)  # (path, Range header) per request

    def __post_init__(self) -> None:
        self._release = threading.Event()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - the http.server interface
                server._serve(self)

        self._http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}/"

    def url(self, path: str) -> str:
        return self.base + path.lstrip("/")

    def add(self, path: str, body: bytes, **how: object) -> str:
        self.routes[path.lstrip("/")] = Route(body, **how)  # type: ignore[arg-type]
        return self.url(path)

    def close(self) -> None:
        self._release.set()
        self._http.shutdown()
        self._http.server_close()

    def _serve(self, h: http.server.BaseHTTPRequestHandler) -> None:
        path = h.path.split("?")[0].lstrip("/")
        self.hits[path] += 1
        rng = h.headers.get("Range")
        if rng:
            self.ranges.append((path, rng))
        route = self.routes.get(path)
        if route is None:
            h.send_error(404, "Not Found")
            return
        mode = route.mode if route.times is None or self.hits[path] <= route.times else "ok"
        if mode == "status":
            h.send_error(route.status)
            return
        start = 0
        if rng and route.ranges and rng.startswith("bytes=") and rng.endswith("-"):
            start = int(rng[len("bytes="):-1])
        body = route.body[start:]
        h.send_response(206 if start else 200)
        if start:
            h.send_header("Content-Range", f"bytes {start}-{len(route.body) - 1}/{len(route.body)}")
        h.send_header("Content-Type", "application/octet-stream")
        h.send_header("Content-Length", str(len(body)))
        if mode != "ok":
            h.send_header("Connection", "close")
        h.end_headers()
        if mode == "ok":
            h.wfile.write(body)
        elif mode == "truncate":
            h.wfile.write(body[: len(body) // 2])
            h.wfile.flush()
            h.close_connection = True
        elif mode == "stall":
            h.wfile.write(body[: len(body) // 4])
            h.wfile.flush()
            self._release.wait(20)
            h.close_connection = True
