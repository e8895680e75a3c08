"""The module leaks nothing across 10,000 open / remember / recall / close cycles.

Resident memory is read from /proc/self/statm after a warm-up of 500 cycles and again at the
end; it may not grow by more than 16 MiB (a leak of 2 KiB per cycle would exceed it). The store
lives in /dev/shm when it exists, so the cycles are not bound by disk syncs, and each cycle uses
its own scope so every recall searches one turn.
"""

import os
import tempfile

import pytest

import engram

CYCLES = 10_000
WARM_UP = 500
BOUND = 16 << 20
CONFIG = '[embedder]\nkind = "none"\n'


def resident_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs Linux /proc")
def test_ten_thousand_cycles_keep_resident_memory_flat(tmp_path):
    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(dir=base or str(tmp_path)) as directory:
        path = os.path.join(directory, "leak.db")
        before = None
        for cycle in range(CYCLES):
            if cycle == WARM_UP:
                before = resident_bytes()
            scope = f"user:u{cycle}"
            with engram.Engine(path, config=CONFIG) as engine:
                stored = engine.remember(scope, [{"text": f"I had coffee with Maya, visit {cycle}."}])
                result = engine.recall(scope, "Who did I have coffee with?")
                assert result.items[0].id == stored.ids[0]
        after = resident_bytes()
    growth = after - before
    assert growth < BOUND, f"resident memory grew by {growth} bytes over {CYCLES - WARM_UP} cycles"
