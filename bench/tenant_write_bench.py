#!/usr/bin/env python3
"""tenant_write_bench: write throughput of one or more `engram serve` on one PostgreSQL store,
each client writing to a tenant of its own.

Starts --servers `engram serve` processes on --store (127.0.0.1, ephemeral ports), has --clients
client threads (one keep-alive connection each; client c talks to server c % servers and writes
one-turn remembers to scope "user:tenant<c>/run:bench"), first one untimed write per client (the
scopes are created), then --requests timed writes spread over the clients. Reports writes per
second, p50 / p95 latency, the CPU seconds the servers used (user + system, from /proc), how busy
the whole machine's cores were meanwhile (from /proc/stat: PostgreSQL, the clients and anything
else running count too) and, with
--sample-locks, the share of samples of the database's active backends (every 50 ms, through
psql) that were waiting for an advisory lock, and for which one (tenant or journal).

    scripts/pg-cluster start /tmp/pg && URL=$(cat /tmp/pg/url)   # a private cluster
    bench/tenant_write_bench.py --store "$URL_OF_A_FRESH_DATABASE" --servers 1 --clients 8
    bench/tenant_write_bench.py --store "$URL_OF_ANOTHER_ONE" --servers 2 --clients 8

Use a fresh database per run. Timings depend on the machine: record them in docs/BENCHMARKS.md
with the command and machine.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time

# The client loop and the helpers serve_bench.py measures the server with (this directory).
from serve_bench import cpu_seconds, percentile, run_phase, sentence, start_servers, stop_servers

# One row per sample: backends waiting for a tenant lock (two int4 keys: locktype advisory with
# objsubid 2), for the journal lock (one bigint key: objsubid 1), and all active backends.
LOCK_SAMPLE_SQL = (
    "SELECT count(*) FILTER (WHERE l.objsubid = 2), count(*) FILTER (WHERE l.objsubid = 1), "
    "(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
    "AND state = 'active' AND pid <> pg_backend_pid()) "
    "FROM pg_locks l WHERE l.locktype = 'advisory' AND NOT l.granted "
    "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())")


def cluster_cpu_seconds(data_dir):
    """CPU seconds of a PostgreSQL cluster's processes: its postmaster (the first line of
    postmaster.pid in its data directory) and every child, alive now (a backend that exited
    meanwhile is not counted)."""
    with open(os.path.join(data_dir, "postmaster.pid")) as pid_file:
        postmaster = int(pid_file.readline())
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry) == postmaster or int(fields[1]) == postmaster:
            total += cpu_seconds(int(entry))
    return total


def client_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def machine_busy():
    """(busy, total) jiffies of all cores since boot, from /proc/stat."""
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def libpq_args(url):
    """psql arguments for a postgresql:// URL (psql takes the URL as its dbname)."""
    return ["psql", "-X", "-A", "-t", "-q", "-d", url]


class LockSampler:
    """Samples LOCK_SAMPLE_SQL every 50 ms through one psql process until stopped."""

    def __init__(self, url):
        self.process = subprocess.Popen(libpq_args(url), stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, bufsize=1)
        self.samples = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stopping.is_set():
            self.process.stdin.write(LOCK_SAMPLE_SQL + ";\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline().strip()
            if not line:
                break
            tenant, journal, active = (int(x) for x in line.split("|"))
            self.samples.append((tenant, journal, active))
            time.sleep(0.05)

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=5)
        self.process.stdin.close()
        self.process.wait(timeout=10)
        active = sum(s[2] for s in self.samples)
        tenant = sum(s[0] for s in self.samples)
        journal = sum(s[1] for s in self.samples)
        return {"samples": len(self.samples), "active_backend_samples": active,
                "waiting_tenant_lock": tenant, "waiting_journal_lock": journal,
                "lock_wait_share": (tenant + journal) / active if active else 0.0}


def run_writes(ports, clients, requests, first_index):
    """`requests` one-turn writes spread over `clients` threads; (latencies ms, errors)."""
    def write(client, index):
        body = json.dumps({"turns": [{"text": sentence(client, first_index + index),
                                      "speaker": f"user{client}"}]})
        return f"/v1/scopes/user:tenant{client}/run:bench/memories", body
    return run_phase(ports, clients, requests, write)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engram", default="build/engram")
    parser.add_argument("--config", default="")
    parser.add_argument("--store", required=True, help="a PostgreSQL URL (a fresh database)")
    parser.add_argument("--servers", type=int, default=1)
    parser.add_argument("--clients", type=int, default=8, help="one tenant each")
    parser.add_argument("--requests", type=int, default=400, help="timed writes in all")
    parser.add_argument("--threads", type=int, default=8, help="server worker threads")
    parser.add_argument("--sample-locks", action="store_true")
    parser.add_argument("--pg-data", default="",
                        help="the cluster's data directory: also report its CPU seconds")
    parser.add_argument("--json", default="", help="also write the result here")
    args = parser.parse_args()

    command = [args.engram, "--store", args.store]
    if args.config:
        command += ["--config", args.config]
    command += ["serve", "--listen", "127.0.0.1:0", "--threads", str(args.threads)]
    servers = []
    try:
        ports = start_servers(command, args.servers, servers)

        _, warmup_errors = run_writes(ports, args.clients, args.clients, 0)  # creates the scopes
        if warmup_errors:
            sys.exit(f"{warmup_errors} warm-up writes failed")
        sampler = LockSampler(args.store) if args.sample_locks else None
        cpu_before = sum(cpu_seconds(server.pid) for server in servers)
        busy_before, total_before = machine_busy()
        client_before = client_cpu_seconds()
        pg_before = cluster_cpu_seconds(args.pg_data) if args.pg_data else 0.0
        started = time.perf_counter()
        latencies, errors = run_writes(ports, args.clients, args.requests, args.clients)
        elapsed = time.perf_counter() - started
        cpu = sum(cpu_seconds(server.pid) for server in servers) - cpu_before
        client_cpu = client_cpu_seconds() - client_before
        pg_cpu = cluster_cpu_seconds(args.pg_data) - pg_before if args.pg_data else None
        busy_after, total_after = machine_busy()
        machine = (busy_after - busy_before) / max(1, total_after - total_before)
        locks = sampler.stop() if sampler else {}
        latencies.sort()
        result = {"servers": args.servers, "clients": args.clients, "requests": len(latencies),
                  "errors": errors, "seconds": elapsed,
                  "writes_per_second": len(latencies) / elapsed,
                  "p50_ms": percentile(latencies, 0.50), "p95_ms": percentile(latencies, 0.95),
                  "server_cpu_seconds": cpu, "client_cpu_seconds": client_cpu,
                  "postgres_cpu_seconds": pg_cpu, "machine_busy_share": machine, **locks}
        print(f"servers {args.servers}  clients {args.clients}  writes {len(latencies)}  "
              f"errors {errors}  {result['writes_per_second']:.1f} writes/s  "
              f"p50 {result['p50_ms']:.1f} ms  p95 {result['p95_ms']:.1f} ms  "
              f"cpu: servers {cpu:.2f} s, clients {client_cpu:.2f} s"
              + (f", postgres {pg_cpu:.2f} s" if pg_cpu is not None else "")
              + f"  machine busy {machine:.0%}", end="")
        if locks:
            print(f"  lock-wait share {locks['lock_wait_share']:.2f} "
                  f"(tenant {locks['waiting_tenant_lock']}, journal "
                  f"{locks['waiting_journal_lock']} of {locks['active_backend_samples']} "
                  f"active-backend samples)", end="")
        print()
        if args.json:
            with open(args.json, "w") as out:
                json.dump({"command": " ".join(sys.argv), "result": result}, out, indent=2)
    finally:
        stop_servers(servers)


if __name__ == "__main__":
    main()
