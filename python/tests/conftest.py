"""Shared fixtures of the Python tests.

Run them against a build:  PYTHONPATH=build/python python3 -m pytest python/tests
(ctest does the same: `ctest -R python_tests`). Most tests open engines without an embedder
(``[embedder] kind = "none"``) or with the hashing embedder so they need no model files; one
test uses the default sentence encoder from the data directory scripts/setup fills.
"""

import datetime
import os
import pathlib
import shutil

import pytest

import engram

# No embedder: recall runs its lexical and graph routes only.
FAST_CONFIG = {"embedder": {"kind": "none"}}
# The hashing embedder: deterministic vectors without model files.
HASHING_CONFIG = {"embedder": {"kind": "hashing"}}

# A fixed "now" for recalls, so results do not depend on the day the tests run.
AT = "2024-06-01T12:00:00Z"

CONVERSATION = [
    {"text": "My sister Maya lives in Porto.", "speaker": "Alice", "session_id": "s1",
     "event_time": "2024-05-01T10:00:00Z", "metadata": {"source": "chat"}},
    {"text": "That sounds lovely. Do you visit her often?", "role": "assistant",
     "speaker": "Bot", "session_id": "s1", "event_time": "2024-05-01T10:00:05Z"},
    {"text": "I moved to Lisbon last month, so I see her every weekend.", "speaker": "Alice",
     "session_id": "s1", "event_time": "2024-05-01T10:01:00Z"},
    {"text": "My favourite food is grilled sardines.", "speaker": "Alice",
     "session_id": "s2", "event_time": "2024-05-03T09:00:00Z"},
]


@pytest.fixture
def store_path(tmp_path):
    return str(tmp_path / "engram.db")


@pytest.fixture
def engine(store_path):
    with engram.Engine(store_path, config=FAST_CONFIG) as opened:
        yield opened


@pytest.fixture
def filled(engine):
    """An engine holding CONVERSATION in user:alice; returns (engine, stored ids)."""
    stored = engine.remember("user:alice", CONVERSATION)
    return engine, stored.ids


@pytest.fixture
def cli():
    """The engram command: $ENGRAM_CLI (ctest sets it), else build/engram beside the source."""
    candidates = [os.environ.get("ENGRAM_CLI")]
    source_dir = pathlib.Path(__file__).resolve().parents[2]
    candidates.append(str(source_dir / "build" / "engram"))
    candidates.append(shutil.which("engram"))
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    pytest.fail("the engram command was not found: build it (scripts/build) or set ENGRAM_CLI")


def utc(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
