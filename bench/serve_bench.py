#!/usr/bin/env python3
"""serve_bench: throughput and latency of `engram serve` for remember and recall.

Starts `build/engram serve` on a fresh store in a temporary directory (127.0.0.1, an ephemeral
port), then for each concurrency level (default 1, 8 and 32 clients) runs a fixed number of
remember requests (one turn each) and then of recall requests, and reports per phase: requests,
errors, requests per second, p50 / p95 / p99 latency in milliseconds, and the CPU seconds the
server process used (user + system, from /proc). Clients are Python threads with one keep-alive
connection each; at 32 clients the client side can become the limit on a small machine, which the
CPU column helps to see.

    bench/serve_bench.py                       # default configuration (the built-in encoder)
    bench/serve_bench.py --config engram.toml --requests 400 --levels 1,8,32 --json out.json
    bench/serve_bench.py --store 'postgresql:///bench?host=/run/postgresql' --servers 2

With --store the servers use that store (a PostgreSQL URL, or a SQLite file) instead of a fresh
file; with --servers N, N `engram serve` processes share it and client c talks to server c % N
(the CPU column is then the sum over the servers).

Timings depend on the machine: record them in docs/BENCHMARKS.md with the command and machine.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

WORDS = ("Maya Porto Lisbon coffee piano dentist Tuesday sister moved works engineer Acme "
         "garden bicycle concert Friday birthday Berlin recipe lasagna doctor").split()


def percentile(sorted_values, fraction):
    if not sorted_values:
        return 0.0
    index = min(len(sorted_values) - 1, int(round(fraction * (len(sorted_values) - 1))))
    return sorted_values[index]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf(os.sysconf_names["SC_CLK_TCK"])
    return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime


def sentence(client, index):
    words = [WORDS[(client * 7 + index * 3 + k) % len(WORDS)] for k in range(8)]
    return f"Client {client} note {index}: " + " ".join(words) + "."


def run_phase(ports, clients, requests, make_request):
    """Runs `requests` requests spread over `clients` threads; returns (latencies ms, errors)."""
    latencies = []
    errors = [0]
    lock = threading.Lock()

    def worker(client):
        port = ports[client % len(ports)]
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        mine = []
        failed = 0
        for index in range(client, requests, clients):
            path, body = make_request(client, index)
            started = time.perf_counter()
            try:
                connection.request("POST", path, body=body,
                                   headers={"Content-Type": "application/json"})
                response = connection.getresponse()
                response.read()
                ok = response.status in (200, 201)
            except (OSError, http.client.HTTPException):
                ok = False
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            mine.append((time.perf_counter() - started) * 1000.0)
            failed += 0 if ok else 1
        connection.close()
        with lock:
            latencies.extend(mine)
            errors[0] += failed

    threads = [threading.Thread(target=worker, args=(c,)) for c in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, errors[0]


def start_servers(command, count, servers):
    """Starts `count` servers with `command` (serve on 127.0.0.1:0), appending each process to
    `servers` as it starts (so the caller can stop those started if a later one fails); returns
    their ports, read from their "serving ... on http://127.0.0.1:PORT" line."""
    ports = []
    for _ in range(count):
        server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
        servers.append(server)
        port = None
        for line in server.stderr:
            match = re.search(r"serving .* on http://127\.0\.0\.1:(\d+)", line)
            if match:
                port = int(match.group(1))
                break
        if port is None:
            sys.exit("engram serve did not start")
        ports.append(port)
        threading.Thread(target=lambda server=server: [None for _ in server.stderr],
                         daemon=True).start()
    return ports


def stop_servers(servers):
    """SIGTERM to every server, then waits up to a minute each (SIGKILL after that)."""
    for server in servers:
        server.send_signal(signal.SIGTERM)
    for server in servers:
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engram", default="build/engram")
    parser.add_argument("--config", default="")
    parser.add_argument("--requests", type=int, default=200, help="per phase and level")
    parser.add_argument("--levels", default="1,8,32")
    parser.add_argument("--threads", type=int, default=8, help="server worker threads")
    parser.add_argument("--json", default="", help="also write the results here")
    parser.add_argument("--store", default="", help="store of the servers (default: a fresh file)")
    parser.add_argument("--servers", type=int, default=1, help="servers sharing the store")
    args = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="engram-serve-bench-")
    command = [args.engram, "--store", args.store or os.path.join(workdir, "bench.db")]
    if args.config:
        command += ["--config", args.config]
    command += ["serve", "--listen", "127.0.0.1:0", "--threads", str(args.threads),
                "--max-turns", "1000"]
    servers = []
    try:
        ports = start_servers(command, args.servers, servers)

        results = []
        print(f"{'phase':<9}{'clients':>8}{'requests':>9}{'errors':>7}{'req/s':>9}"
              f"{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'cpu s':>8}")
        for level in [int(x) for x in args.levels.split(",")]:
            scope = f"app:bench/run:c{level}"

            def remember(client, index, scope=scope):
                body = json.dumps({"turns": [{"text": sentence(client, index),
                                              "speaker": f"user{client}"}]})
                return f"/v1/scopes/{scope}/memories", body

            def recall(client, index, scope=scope):
                words = " ".join(WORDS[(client + index + k) % len(WORDS)] for k in range(3))
                return f"/v1/scopes/{scope}/recall", json.dumps({"query": words, "k": 10})

            for phase, make_request in (("remember", remember), ("recall", recall)):
                cpu_before = sum(cpu_seconds(server.pid) for server in servers)
                started = time.perf_counter()
                latencies, errors = run_phase(ports, level, args.requests, make_request)
                elapsed = time.perf_counter() - started
                cpu = sum(cpu_seconds(server.pid) for server in servers) - cpu_before
                latencies.sort()
                row = {"phase": phase, "clients": level, "requests": len(latencies),
                       "errors": errors, "requests_per_second": len(latencies) / elapsed,
                       "p50_ms": percentile(latencies, 0.50), "p95_ms": percentile(latencies, 0.95),
                       "p99_ms": percentile(latencies, 0.99), "server_cpu_seconds": cpu}
                results.append(row)
                print(f"{phase:<9}{level:>8}{row['requests']:>9}{errors:>7}"
                      f"{row['requests_per_second']:>9.1f}{row['p50_ms']:>9.2f}"
                      f"{row['p95_ms']:>9.2f}{row['p99_ms']:>9.2f}{cpu:>8.2f}")
        if args.json:
            with open(args.json, "w") as out:
                json.dump({"command": " ".join(sys.argv), "results": results}, out, indent=2)
    finally:
        stop_servers(servers)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
