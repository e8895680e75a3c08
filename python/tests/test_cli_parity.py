"""to_dict() gives exactly the JSON the CLI's --json prints for the same value.

The store is written through Python, closed, then read by the `engram` command with the same
configuration; each object's to_dict() must equal the CLI's object (for lists, each element of
the CLI's list). Recall results are compared without their timings (latency_ms and the stage
timings), the only fields that differ between two runs.
"""

import json
import pathlib
import subprocess

import pytest

import engram
from conftest import AT, CONVERSATION


@pytest.fixture
def store(tmp_path):
    config = tmp_path / "engram.toml"
    config.write_text('[embedder]\nkind = "none"\n')
    path = str(tmp_path / "parity.db")
    with engram.Engine(path, config=config) as engine:
        ids = engine.remember("user:alice", CONVERSATION).ids
        entities = {e.name: e.id for e in engine.entities("user:alice")}
        engine.propose_same(entities["Porto"], entities["Lisbon"], reason="parity test")
        engine.retire(ids[3], reason="parity")
    return path, str(config), ids


def run_cli(cli, store, *args):
    path, config, _ = store
    completed = subprocess.run([cli, "--store", path, "--config", config, "--json", *args],
                               capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr + completed.stdout
    return json.loads(completed.stdout)


def open_engine(store):
    path, config, _ = store
    return engram.Engine(path, config=pathlib.Path(config), create_if_missing=False)


def without_timings(data):
    data = dict(data)
    data.pop("latency_ms")
    data["diagnostics"] = dict(data["diagnostics"])
    data["diagnostics"]["timings"] = [t["stage"] for t in data["diagnostics"]["timings"]]
    return data


def test_recall(cli, store):
    cli_json = run_cli(cli, store, "recall", "--scope", "user:alice", "--at", AT,
                       "Where does Maya live?")
    with open_engine(store) as engine:
        result = engine.recall("user:alice", "Where does Maya live?", at=AT)
    assert result.items
    assert without_timings(result.to_dict()) == without_timings(cli_json)


def test_list_history_and_scopes(cli, store):
    _, _, ids = store
    with open_engine(store) as engine:
        listed = [m.to_dict() for m in engine.list("user:alice", kind=None, limit=0)]
        history = [e.to_dict() for e in engine.history(ids[3])]
        scopes = [s.to_dict() for s in engine.scopes()]
    assert listed == run_cli(cli, store, "list", "--scope", "user:alice", "--kind", "all",
                             "--limit", "100000")["memories"]
    assert history == run_cli(cli, store, "history", ids[3])["events"]
    assert scopes == run_cli(cli, store, "scopes")["scopes"]


def test_facts_entities_and_proposals(cli, store):
    with open_engine(store) as engine:
        facts = [f.to_dict() for f in engine.facts("user:alice")]
        all_facts = [f.to_dict() for f in engine.facts("user:alice", all=True)]
        entities = [e.to_dict() for e in engine.entities("user:alice")]
        proposals = [p.to_dict() for p in engine.proposals("user:alice")]
    assert facts and entities and proposals
    assert facts == run_cli(cli, store, "facts", "--scope", "user:alice")["facts"]
    assert all_facts == run_cli(cli, store, "facts", "--scope", "user:alice", "--all")["facts"]
    assert entities == run_cli(cli, store, "entities", "--scope", "user:alice")["entities"]
    assert proposals == run_cli(cli, store, "proposals", "--scope", "user:alice")["proposals"]


def test_a_derived_memory_and_erase(cli, store):
    with open_engine(store) as engine:
        fact = engine.facts("user:alice")[0]
        memory = engine.get(fact.id).to_dict()
    # `engram show` prints a non-turn memory exactly as Memory.to_dict().
    assert memory == run_cli(cli, store, "show", fact.id)
    with open_engine(store) as engine:
        engine.remember("user:bob", [{"text": "Bob plays chess."}])
        erased = engine.erase("user:bob").to_dict()
        engine.remember("user:bob", [{"text": "Bob plays chess."}])
    assert erased == run_cli(cli, store, "erase", "--scope", "user:bob", "--yes")["erased"]


def test_consolidation_listings(cli, store):
    with open_engine(store) as engine:
        result = engine.consolidate("user:alice")
        episodes = engine.episodes("user:alice")
        scenes = engine.scenes("user:alice", all=True)
        people = engine.profile("user:alice")
        foresight = engine.foresight("user:alice", at=AT, all=True)
    assert result["episodes"] == len(episodes) >= 1
    assert episodes == run_cli(cli, store, "episodes", "--scope", "user:alice")["episodes"]
    assert scenes == run_cli(cli, store, "scenes", "--scope", "user:alice", "--all")["scenes"]
    assert people == run_cli(cli, store, "profile", "--scope", "user:alice")["people"]
    assert foresight == run_cli(cli, store, "foresight", "--scope", "user:alice", "--at", AT,
                                "--all")["foresight"]
