"""Threads: the GIL is released inside engine calls, so two threads' recalls run at once.

The test records, inside each thread, when each recall started and finished
(time.perf_counter) and asserts that a recall of one thread ran while a recall of the other was
in progress. Were the GIL held during a call, no other thread could even start a call until it
returned. It asserts no speed ratio: wall-clock comparisons do not belong in tests
(docs/BENCHMARKS.md is where timings go).
"""

import threading
import time

import engram
from conftest import AT, FAST_CONFIG

TOPICS = ["coffee", "Porto", "Lisbon", "sardines", "chess", "parcel", "garden", "violin",
          "marathon", "Maya", "bicycle", "recipe"]


def fill(engine):
    turns = []
    for n in range(3000):
        topic, other = TOPICS[n % len(TOPICS)], TOPICS[(n * 7) % len(TOPICS)]
        turns.append({"text": f"Entry {n}: we talked about {topic} and then about {other}, "
                              f"and I wrote down note number {n * 13 % 997}.",
                      "speaker": "Alice", "session_id": f"s{n // 50}"})
    engine.remember("user:alice", turns)


def test_two_threads_recall_at_the_same_time(tmp_path):
    with engram.Engine(str(tmp_path / "threads.db"), config=FAST_CONFIG) as engine:
        fill(engine)
        query = " ".join(f"what about {topic}?" for topic in TOPICS)
        engine.recall("user:alice", query, at=AT)  # builds the scope's index once
        intervals = {0: [], 1: []}
        barrier = threading.Barrier(2)
        errors = []

        def worker(index):
            try:
                barrier.wait()
                for _ in range(8):
                    start = time.perf_counter()
                    result = engine.recall("user:alice", query, at=AT)
                    end = time.perf_counter()
                    assert result.items
                    intervals[index].append((start, end))
            except Exception as error:  # reported below; a thread's exception is otherwise lost
                errors.append(error)

        threads = [threading.Thread(target=worker, args=(index,)) for index in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert len(intervals[0]) == len(intervals[1]) == 8
        overlapping = [(a, b) for a in intervals[0] for b in intervals[1]
                       if a[0] < b[1] and b[0] < a[1]]
        assert overlapping, "no recall of one thread ran while the other thread's was running"


def test_threads_writing_and_reading_keep_every_turn(tmp_path):
    with engram.Engine(str(tmp_path / "writers.db"), config=FAST_CONFIG) as engine:
        engine.remember("user:shared", [{"text": "The shared scope exists."}])
        errors = []

        def writer(index):
            try:
                for n in range(20):
                    engine.remember("user:shared", [{"text": f"Writer {index} note {n}."}])
                    engine.recall("user:shared", f"writer {index} note", at=AT)
            except Exception as error:
                errors.append(error)

        threads = [threading.Thread(target=writer, args=(index,)) for index in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        texts = {m.text for m in engine.list("user:shared", limit=0)}
        assert len(texts) == 1 + 4 * 20
        assert "Writer 3 note 19." in texts
        sequences = [m.sequence for m in engine.list("user:shared", limit=0)]
        assert sequences == list(range(1, 82))
