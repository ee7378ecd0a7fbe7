"""Slow and idle clients for the hostile-traffic tests (tests/decklist/test_hostile.py), and a real nginx."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
NGINX_CONF = ROOT / "deploy" / "nginx" / "deckcheck.conf"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
KINDS = ("slow-head", "slow-body", "idle")


class SlowClients:
    """``n`` connections that each hold a request open: a head sent a line at a time, a body sent a
    byte at a time, or nothing at all (a third of each). Bounded: :meth:`drip` sends one piece each."""

    def __init__(self, port: int, n: int):
        self.socks: list[tuple[str, socket.socket]] = []
        for i in range(n):
            kind = KINDS[i % 3]
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            if kind == "slow-head":
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: slow\r\n")
            elif kind == "slow-body":
                s.sendall(
                    b"POST /api/v1/validate HTTP/1.1\r\nHost: slow\r\nContent-Type: text/plain\r\n"
                    b"Content-Length: 5000\r\n\r\n4 Nest Ball SVI 181\n"
                )
            self.socks.append((kind, s))

    def drip(self) -> int:
        """One more header line or body byte on each slow connection; how many were still open."""
        open_ = 0
        for kind, s in self.socks:
            try:
                if kind == "slow-head":
                    s.sendall(b"X-Slow: 1\r\n")
                elif kind == "slow-body":
                    s.sendall(b"x")
                open_ += 1
            except OSError:
                pass
        return open_

    def close(self) -> None:
        for _, s in self.socks:
            s.close()


def probe(base: str, deck: str) -> tuple[int, int]:
    """One health probe and one check: their status codes (0 when there was no answer in 5 s)."""
    codes = []
    for method, path, kwargs in (
        ("GET", "/healthz", {}),
        ("POST", "/api/v1/validate", {"data": deck.encode(), "headers": {"Content-Type": "text/plain"}}),
    ):
        try:
            codes.append(requests.request(method, base + path, timeout=5, **kwargs).status_code)
        except requests.RequestException:
            codes.append(0)
    return codes[0], codes[1]


def hold_and_probe(port: int, base: str, clients: int, seconds: float, deck: str) -> tuple[list, int]:
    """Hold ``clients`` slow connections for ``seconds`` (dripping every second) while probing ``base``."""
    slow = SlowClients(port, clients)
    answers = []
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            slow.drip()
            answers.append(probe(base, deck))
            time.sleep(0.5)
        still_open = slow.drip()
    finally:
        slow.close()
    return answers, still_open


def nginx_config(tmp: Path, listen: int, upstream: str) -> Path:
    """The committed site config pointed at ``upstream``, inside a minimal main config of its own."""
    site = NGINX_CONF.read_text(encoding="utf-8")
    assert site.count("listen 8080;") == 1 and site.count("server app:8000;") == 1
    site = site.replace("listen 8080;", f"listen 127.0.0.1:{listen};").replace(
        "server app:8000;", f"server {upstream};"
    )
    (tmp / "deckcheck.conf").write_text(site, encoding="utf-8")
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (tmp / sub).mkdir(exist_ok=True)
        os.chmod(tmp / sub, 0o777)
    os.chmod(tmp, 0o755)
    user = "user root;" if os.geteuid() == 0 else ""
    main = f"""{user}
worker_processes 1;
pid {tmp}/nginx.pid;
error_log stderr warn;
events {{ worker_connections 2048; }}
http {{
    access_log off;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {tmp}/deckcheck.conf;
}}
"""
    path = tmp / "nginx.conf"
    path.write_text(main, encoding="utf-8")
    return path


def start_nginx(tmp: Path, listen: int, upstream: str) -> subprocess.Popen:
    conf = nginx_config(tmp, listen, upstream)
    proc = subprocess.Popen(
        [NGINX, "-p", str(tmp), "-e", "stderr", "-c", str(conf), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"nginx exited {proc.returncode}: {proc.stderr.read().decode()[-2000:]}")
        try:
            socket.create_connection(("127.0.0.1", listen), timeout=1).close()
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("nginx did not listen within 15 s")


def nginx_setting(name: str) -> str:
    """A directive's value in the committed config (it must occur once)."""
    found = re.findall(rf"^\s*{re.escape(name)}\s+([^;]+);", NGINX_CONF.read_text(encoding="utf-8"), re.M)
    assert len(found) == 1, (name, found)
    return found[0].strip()
