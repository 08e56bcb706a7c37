"""A TCP proxy in a thread, to take a server away from a client and give it back.

`cut()` closes every connection it carries and refuses new ones (accepts and closes at
once, as a server that went away would); `restore()` forwards again.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading


class TcpProxy:
    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._open = threading.Event()
        self._open.set()
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stopped.is_set():
            ready, _, _ = select.select([self._listener], [], [], 0.1)
            if not ready:
                continue
            client, _ = self._listener.accept()
            if not self._open.is_set():
                client.close()
                continue
            try:
                server = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets |= {client, server}
            threading.Thread(target=self._pipe, args=(client, server), daemon=True).start()

    def _pipe(self, client: socket.socket, server: socket.socket) -> None:
        pair = {client: server, server: client}
        try:
            while not self._stopped.is_set() and self._open.is_set():
                ready, _, _ = select.select(list(pair), [], [], 0.1)
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    pair[sock].sendall(data)
        except (OSError, ValueError):  # a socket closed under us by `cut`
            return
        finally:
            self._close(client, server)

    def _close(self, *socks: socket.socket) -> None:
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
            with self._lock:
                self._sockets.discard(sock)

    def cut(self) -> None:
        self._open.clear()
        with self._lock:
            carried = list(self._sockets)
        self._close(*carried)

    def restore(self) -> None:
        self._open.set()

    def stop(self) -> None:
        self.cut()
        self._stopped.set()
        self._thread.join(timeout=5)
        self._listener.close()
