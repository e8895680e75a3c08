#!/usr/bin/env python3
"""http_attack_probe.py ENGRAM_BIN: the attacks of the server-hardening issue against a real
`engram serve` on 127.0.0.1 (a port the kernel picks), with and without keys. Prints one JSON
object: the status line each attack got, the server's resident memory (MiB) before and after,
how long a slow client kept its connection, and the slowest of 20 ordinary requests sent while
8 slow and 50 idle connections are open. Figures in docs/RELIABILITY.md.

    python3 bench/http_attack_probe.py build/engram
"""
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zlib

ENGRAM = sys.argv[1] if len(sys.argv) > 1 else "build/engram"
WORK = tempfile.mkdtemp(prefix="engram-probe-")
CONFIG = os.path.join(WORK, "config.toml")
KEYS = os.path.join(WORK, "keys.json")


def start(extra):
    """engram serve on a fresh port; returns (process, port)."""
    process = subprocess.Popen(
        [ENGRAM, "--store", os.path.join(WORK, "probe.db"), "--config", CONFIG, "serve",
         "--listen", "127.0.0.1:0"] + extra,
        stderr=subprocess.PIPE, text=True)
    for _ in range(100):
        found = re.search(r"on http://127\.0\.0\.1:(\d+)", process.stderr.readline())
        if found:
            return process, int(found.group(1))
    raise RuntimeError("engram serve did not say where it listens")


def rss_mib(process):
    with open(f"/proc/{process.pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return -1


def exchange(port, data):
    """Sends `data` on a new connection; returns the status line of the answer."""
    connection = socket.create_connection(("127.0.0.1", port))
    connection.settimeout(30)
    try:
        connection.sendall(data)
    except OSError:
        pass  # the server answered and closed before taking everything
    received = b""
    try:
        while True:
            chunk = connection.recv(65536)
            if not chunk:
                break
            received += chunk
    except OSError:
        pass
    connection.close()
    return received.split(b"\r\n")[0].decode(errors="replace")


def with_keys(results, key):
    process, port = start(["--keys", KEYS])
    time.sleep(0.5)
    results["rss_start_mib"] = rss_mib(process)

    # 512 MiB of zeros, gzip-compressed, sent without and with a key.
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    bomb = compressor.compress(b"\0" * (512 << 20)) + compressor.flush()
    results["gzip_bomb_bytes"] = len(bomb)
    head = (b"POST /v1/scopes/user:alice/memories HTTP/1.1\r\nHost: localhost\r\n"
            b"Content-Type: application/json\r\nContent-Encoding: gzip\r\n"
            b"Content-Length: %d\r\n" % len(bomb))
    results["gzip_bomb_without_key"] = exchange(port, head + b"\r\n" + bomb)
    results["rss_after_bomb_without_key_mib"] = rss_mib(process)
    authorization = b"Authorization: Bearer " + key.encode() + b"\r\n"
    results["gzip_bomb_with_key"] = exchange(port, head + authorization + b"\r\n" + bomb)
    results["rss_after_bomb_with_key_mib"] = rss_mib(process)

    # A 12 MB body in 64 KiB chunks (the limit is 8 MiB).
    body = json.dumps({"turns": [{"text": "x" * 12_000_000}]}).encode()
    chunked = b"".join(b"%x\r\n" % len(body[at:at + 65536]) + body[at:at + 65536] + b"\r\n"
                       for at in range(0, len(body), 65536)) + b"0\r\n\r\n"
    results["chunked_12_mb_with_key"] = exchange(
        port, b"POST /v1/scopes/user:alice/memories HTTP/1.1\r\nHost: localhost\r\n"
        b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n" + authorization +
        b"\r\n" + chunked)

    # Up to 80 MB of header fields without a key.
    flood = socket.create_connection(("127.0.0.1", port))
    flood.settimeout(30)
    flood.sendall(b"GET /v1/scopes HTTP/1.1\r\nHost: localhost\r\n")
    field = b"X-Flood: " + b"a" * 8000 + b"\r\n"
    sent = 0
    try:
        while sent < 80_000_000:
            flood.sendall(field)
            sent += len(field)
    except OSError:
        pass
    try:
        answer = flood.recv(200)
    except OSError:
        answer = b""
    flood.close()
    results["header_flood_bytes_sent_before_cut"] = sent
    results["header_flood_answer"] = answer.split(b"\r\n")[0].decode(errors="replace")
    results["rss_after_floods_mib"] = rss_mib(process)

    # 8 clients sending one byte a second and 50 idle connections; then 20 ordinary requests.
    slow = []
    for _ in range(8):
        connection = socket.create_connection(("127.0.0.1", port))
        connection.sendall(b"G")
        slow.append(connection)
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(50)]
    stop = threading.Event()

    def drip():
        while not stop.is_set():
            for connection in slow:
                try:
                    connection.sendall(b"E")
                except OSError:
                    pass
            time.sleep(1)

    dripper = threading.Thread(target=drip)
    dripper.start()
    opened = time.time()
    time.sleep(2)
    slowest = 0.0
    for _ in range(20):
        began = time.time()
        status = exchange(port, b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n"
                                b"Connection: close\r\n\r\n")
        slowest = max(slowest, (time.time() - began) * 1000)
        assert status.startswith("HTTP/1.1 200"), status
    results["healthz_slowest_ms_under_slow_and_idle_clients"] = round(slowest, 1)
    slow[0].settimeout(30)
    try:
        answer = slow[0].recv(100)
    except OSError:
        answer = b""
    results["slow_client_cut_after_s"] = round(time.time() - opened, 1)
    results["slow_client_answer"] = answer.split(b"\r\n")[0].decode(errors="replace")
    stop.set()
    dripper.join()
    for connection in slow + idle:
        connection.close()
    process.terminate()
    process.wait()


def without_keys(results):
    process, port = start([])
    results["keyless_cross_site_reset"] = exchange(
        port, b"POST /reset HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\n"
              b"Content-Type: text/plain\r\nContent-Length: 0\r\n\r\n")
    results["keyless_loopback_reset_without_allow_admin"] = exchange(
        port, b"POST /reset HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
    results["keyless_rebound_read"] = exchange(
        port, b"GET /v1/scopes HTTP/1.1\r\nHost: evil.example:8420\r\n\r\n")
    body = b'{"turns": [{"text": "hi"}]}'
    results["keyless_cross_site_text_plain_write"] = exchange(
        port, b"POST /v1/scopes/user:a/memories HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              b"Origin: http://evil.example\r\nContent-Type: text/plain\r\n"
              b"Content-Length: %d\r\n\r\n" % len(body) + body)
    process.terminate()
    process.wait()


def main():
    with open(CONFIG, "w") as config:
        config.write('[embedder]\nkind = "hashing"\n')
    created = subprocess.run(
        [ENGRAM, "keys", "create", "--keys", KEYS, "--scope", "user:alice", "--rights",
         "read,write"], capture_output=True, text=True, check=True)
    key = re.search(r"egk_[0-9a-f]{64}", created.stdout + created.stderr).group(0)
    results = {}
    with_keys(results, key)
    without_keys(results)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
