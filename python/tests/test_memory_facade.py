"""engram.Memory against mem0's documented Memory behaviour: argument names, return shapes
({"results": [...]}, {"message": ...}), the id requirement, what get / update / delete / history
do along an update chain, search's keyword arguments, delete_all by each kind of identifier and
add's ADD / UPDATE / NONE events (the cases of tests/mem0/delete_all_cases.json and
add_event_cases.json, which the REST routes run too) and list order."""

import hashlib
import json
import os
import pathlib

import pytest

import engram
from engram import Memory
from conftest import FAST_CONFIG

CHAT = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "I'm vegetarian and I can't eat peanuts."},
    {"role": "assistant", "content": "Noted: vegetarian, no peanuts."},
    {"role": "user", "content": "I live in Lisbon and I play the violin."},
]


@pytest.fixture
def memory(tmp_path):
    with Memory(path=str(tmp_path / "mem.db"), config=FAST_CONFIG) as opened:
        yield opened


def test_quick_start_runs_with_only_the_import_changed(tmp_path, monkeypatch):
    # A mem0 quick-start program: Memory() with defaults (engram's default sentence encoder,
    # a store in the working directory), add / search / get_all / delete_all for a user_id.
    monkeypatch.chdir(tmp_path)
    m = Memory()
    added = m.add(CHAT, user_id="alice", metadata={"category": "food"})
    assert [r["event"] for r in added["results"]] == ["ADD", "ADD", "ADD"]
    related = m.search("What should I cook for alice?", user_id="alice")
    assert related["results"]
    assert related["results"][0]["memory"] == "I'm vegetarian and I can't eat peanuts."
    assert m.engine.embedder_id.startswith("use-lite")
    everything = m.get_all(user_id="alice")
    assert [r["memory"] for r in everything["results"]] == [c["content"] for c in CHAT[1:]]
    assert m.delete_all(user_id="alice") == {"message": "Memories deleted successfully!"}
    assert m.get_all(user_id="alice") == {"results": []}
    assert (tmp_path / "engram.db").exists()
    m.close()


def test_add_shapes(memory):
    result = memory.add(CHAT, user_id="alice")
    entries = result["results"]
    assert len(entries) == 3  # the system message is not stored
    assert entries[0]["memory"] == "I'm vegetarian and I can't eat peanuts."
    assert entries[0]["event"] == "ADD" and entries[0]["role"] == "user"
    assert entries[1]["role"] == "assistant"
    assert all(len(e["id"]) == 32 for e in entries)
    single = memory.add("I have a dog called Rex.", user_id="alice", infer=False)
    assert single["results"][0]["memory"] == "I have a dog called Rex."
    named = memory.add({"role": "user", "content": "Hi there.", "name": "Al"}, user_id="alice")
    assert named["results"][0]["actor_id"] == "Al"
    assert memory.add([{"role": "system", "content": "only system"}], user_id="alice") == {
        "results": []}


def test_an_id_is_required(memory):
    for call in (lambda: memory.add("hello"), lambda: memory.search("hello"),
                 lambda: memory.get_all(), lambda: memory.delete_all()):
        with pytest.raises(ValueError, match="user_id"):
            call()


def test_bad_arguments(memory):
    with pytest.raises(TypeError, match="messages"):
        memory.add(42, user_id="alice")
    with pytest.raises(TypeError, match=r"messages\[0\]"):
        memory.add(["not a dict"], user_id="alice")
    with pytest.raises(ValueError, match="content"):
        memory.add([{"role": "user"}], user_id="alice")
    with pytest.raises(TypeError, match="user_id must be a str"):
        memory.add("x", user_id=7)
    with pytest.raises(TypeError, match="metadata"):
        memory.add("x", user_id="alice", metadata="tag")
    with pytest.raises(ValueError, match="top_k"):
        memory.search("x", user_id="alice", top_k=0)
    with pytest.raises(TypeError, match="query"):
        memory.search(None, user_id="alice")


def test_search_result_shape_and_limits(memory):
    memory.add(CHAT, user_id="alice", metadata={"category": "profile"})
    results = memory.search("Where does alice live?", user_id="alice")["results"]
    top = results[0]
    assert top["memory"] == "I live in Lisbon and I play the violin."
    assert top["hash"] == hashlib.md5(top["memory"].encode()).hexdigest()
    assert top["metadata"] == {"category": "profile"}
    assert top["user_id"] == "alice" and "agent_id" not in top
    assert top["score"] > 0
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)
    assert len(memory.search("Where does alice live?", user_id="alice", top_k=1)["results"]) == 1
    assert len(memory.search("Where does alice live?", user_id="alice", limit=2)["results"]) == 2
    high = memory.search("Where does alice live?", user_id="alice", threshold=top["score"])
    assert [r["id"] for r in high["results"]] == [top["id"]]
    assert memory.search("Lisbon", filters={"user_id": "alice"})["results"][0]["id"] == top["id"]
    assert memory.search("Lisbon", user_id="nobody") == {"results": []}


def test_metadata_filters(memory):
    memory.add("I like green tea.", user_id="alice", metadata={"category": "drinks"})
    memory.add("I like jazz.", user_id="alice", metadata={"category": "music"})
    drinks = memory.get_all(user_id="alice", filters={"category": "drinks"})["results"]
    assert [r["memory"] for r in drinks] == ["I like green tea."]
    music = memory.search("What does alice like?", user_id="alice",
                          filters={"category": "music"})["results"]
    assert [r["memory"] for r in music] == ["I like jazz."]


def test_scopes_nest_by_user_agent_and_run(memory):
    memory.add("Alice prefers window seats.", user_id="alice")
    memory.add("Booked flight TP123 for alice.", user_id="alice", agent_id="travel", run_id="r1")
    memory.add("Bob prefers aisle seats.", user_id="bob")
    every = memory.get_all(user_id="alice")["results"]
    assert [r["memory"] for r in every] == ["Alice prefers window seats.",
                                           "Booked flight TP123 for alice."]
    assert every[1]["agent_id"] == "travel" and every[1]["run_id"] == "r1"
    run_only = memory.get_all(user_id="alice", agent_id="travel", run_id="r1")["results"]
    assert [r["memory"] for r in run_only] == ["Booked flight TP123 for alice."]
    assert memory.get_all(user_id="alice", limit=1)["results"][0]["memory"] == (
        "Alice prefers window seats.")


def test_get_update_delete_and_history(memory):
    memory_id = memory.add("I work at the bakery.", user_id="alice")["results"][0]["id"]
    record = memory.get(memory_id)
    assert record["id"] == memory_id and record["memory"] == "I work at the bakery."
    assert record["created_at"].endswith("Z") and record["updated_at"] is None
    assert memory.get("0" * 32) is None

    updated = memory.update(memory_id, "I work at the library.")
    assert updated["message"] == "Memory updated successfully!"
    new_id = updated["id"]
    assert memory.get(new_id)["memory"] == "I work at the library."
    assert [r["memory"] for r in memory.get_all(user_id="alice")["results"]] == [
        "I work at the library."]
    history = memory.history(memory_id)
    assert [h["event"] for h in history] == ["ADD", "UPDATE"]
    assert history[1]["old_memory"] == "I work at the bakery."
    assert history[1]["new_memory"] == "I work at the library."

    assert memory.delete(new_id) == {"message": "Memory deleted successfully!"}
    assert memory.get_all(user_id="alice") == {"results": []}
    assert memory.search("where does alice work", user_id="alice") == {"results": []}
    # History covers the whole update chain, whichever of its ids is asked.
    assert [h["event"] for h in memory.history(new_id)] == ["ADD", "UPDATE", "DELETE"]
    assert memory.history(new_id)[2]["is_deleted"] is True
    assert memory.history(memory_id) == memory.history(new_id)
    with pytest.raises(engram.NotFound):
        memory.delete("0" * 32)
    with pytest.raises(engram.NotFound):
        memory.history("0" * 32)


def test_reset_erases_everything(memory):
    memory.add("A.", user_id="alice")
    memory.add("B.", agent_id="helper")
    memory.reset()
    assert memory.engine.scopes() == []
    assert memory.get_all(user_id="alice") == {"results": []}


def test_from_config(tmp_path):
    path = tmp_path / "from_config.db"
    m = Memory.from_config({"vector_store": {"provider": "qdrant", "config": {"path": str(path)}},
                            "llm": {"provider": "openai"}, "engram": FAST_CONFIG})
    m.add("Hello.", user_id="alice")
    assert m.engine.embedder_id == "none"
    m.close()
    assert path.exists()


def test_an_updated_id_follows_its_chain_to_the_current_version(memory):
    first = memory.add("I work at the bakery.", user_id="alice")["results"][0]["id"]
    second = memory.update(first, "I work at the library.")["id"]
    # The old id names the memory, now in its current version, as in mem0.
    got = memory.get(first)
    assert got["id"] == second and got["memory"] == "I work at the library."
    # A second update through the old id updates the current version.
    third = memory.update(first, "I work at the zoo.")["id"]
    assert third not in (first, second)
    assert memory.get(second)["memory"] == "I work at the zoo."
    assert [r["memory"] for r in memory.get_all(user_id="alice")["results"]] == [
        "I work at the zoo."]
    history = memory.history(first)
    assert [(h["event"], h["memory_id"]) for h in history] == [
        ("ADD", first), ("UPDATE", second), ("UPDATE", third)]
    assert history[2]["old_memory"] == "I work at the library."
    # Deleting through the first id retires the current version.
    assert memory.delete(first) == {"message": "Memory deleted successfully!"}
    assert memory.engine.get(third).status == "retired"
    for memory_id in (first, second, third):
        assert memory.get(memory_id) is None
        with pytest.raises(engram.NotFound):
            memory.update(memory_id, "I work at the museum.")
        with pytest.raises(engram.NotFound):
            memory.delete(memory_id)
    assert [h["event"] for h in memory.history(second)] == ["ADD", "UPDATE", "UPDATE", "DELETE"]


def test_get_after_delete_is_none(memory):
    memory_id = memory.add("I have a dog called Rex.", user_id="alice")["results"][0]["id"]
    memory.delete(memory_id)
    assert memory.get(memory_id) is None
    assert memory.engine.get(memory_id).status == "retired"  # kept, for history
    assert memory.get("not-an-id") is None


def test_search_accepts_mem0s_keyword_arguments(memory):
    memory.add(CHAT, user_id="alice")
    plain = memory.search("Where does alice live?", user_id="alice")
    assert plain["results"]
    options = memory.search("Where does alice live?", user_id="alice", rerank=True,
                            keyword_search=True, fields=["memory", "score"], version="v2",
                            output_format="v1.1", enable_graph=False)
    assert options == plain
    with pytest.raises(TypeError):
        memory.search("Where does alice live?", user_id="alice", rerank_model="x")
    # threshold is honoured: nothing below it.
    top = plain["results"][0]["score"]
    high = memory.search("Where does alice live?", user_id="alice", threshold=top, rerank=True)
    assert high["results"] and all(r["score"] >= top for r in high["results"])
    assert memory.search("Where does alice live?", user_id="alice",
                         threshold=top * 2) == {"results": []}


def test_get_all_lists_one_calls_messages_in_the_order_added(memory):
    texts = [f"Message number {index} of the call." for index in range(1, 13)]
    memory.add([{"role": "user", "content": text} for text in texts], user_id="alice")
    memory.add("A later message.", user_id="alice", run_id="r2")
    listed = [r["memory"] for r in memory.get_all(user_id="alice")["results"]]
    assert listed == texts + ["A later message."]


def _source_dir():
    given = os.environ.get("ENGRAM_SOURCE_DIR")
    return pathlib.Path(given) if given else pathlib.Path(__file__).resolve().parents[2]


DELETE_ALL = json.loads((_source_dir() / "tests" / "mem0" / "delete_all_cases.json").read_text())


@pytest.mark.parametrize("case", DELETE_ALL["cases"],
                         ids=["&".join(f"{k}={v}" for k, v in c["delete"].items())
                              for c in DELETE_ALL["cases"]])
def test_delete_all_by_each_kind_of_identifier(memory, case):
    ids = {}
    for given in DELETE_ALL["memories"]:
        ids[given["text"]] = memory.add(given["text"], **given["ids"])["results"][0]["id"]
    listed = memory.get_all(**case["delete"])["results"]
    assert sorted(r["memory"] for r in listed) == sorted(case["deleted"])
    assert memory.delete_all(**case["delete"]) == {"message": "Memories deleted successfully!"}
    assert memory.get_all(**case["delete"]) == {"results": []}
    for text, memory_id in ids.items():
        assert (memory.get(memory_id) is None) == (text in case["deleted"]), text


ADD_EVENTS = json.loads((_source_dir() / "tests" / "mem0" / "add_event_cases.json").read_text())


def test_add_reports_add_update_and_none_deterministically(memory):
    ids = []  # per step, per message
    for step, given in enumerate(ADD_EVENTS["steps"]):
        ids.append([])
        if "delete" in given:
            memory.delete(ids[given["delete"][0]][given["delete"][1]])
            continue
        added = memory.add(given["messages"], user_id="iris", metadata=given.get("metadata"),
                           infer=given.get("infer", True))["results"]
        assert len(added) == len(given["results"]), (step, added)
        for result, expected, message in zip(added, given["results"], given["messages"]):
            ids[-1].append(result["id"])
            assert result["event"] == expected["event"], (step, result)
            assert result["memory"] == message["content"]
            if "id_of" in expected:
                assert result["id"] == ids[expected["id_of"][0]][expected["id_of"][1]], step
            assert result.get("previous_memory") == expected.get("previous_memory"), (step, result)
    # A NONE stores nothing: each stored message is there once (one was deleted).
    stored = sum(1 for given in ADD_EVENTS["steps"] for expected in given.get("results", [])
                 if expected["event"] != "NONE")
    assert len(memory.get_all(user_id="iris")["results"]) == stored - 1
