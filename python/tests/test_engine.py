"""engram.Engine: every method, round trips and the result objects."""

import datetime
import pathlib

import pytest

import engram
from conftest import AT, CONVERSATION, FAST_CONFIG, utc


def test_remember_returns_one_id_per_turn_in_order(engine):
    stored = engine.remember("user:alice", CONVERSATION)
    assert len(stored.ids) == len(CONVERSATION)
    assert len(set(stored.ids)) == len(CONVERSATION)
    assert all(len(i) == 32 and int(i, 16) >= 0 for i in stored.ids)
    assert (stored.first_sequence, stored.last_sequence) == (1, 4)
    assert stored.to_dict() == {"ids": stored.ids, "first_sequence": 1, "last_sequence": 4,
                                "already_stored": []}


def test_round_trip_keeps_every_field(filled):
    engine, ids = filled
    memory = engine.get(ids[0])
    assert isinstance(memory, engram.MemoryRecord)
    assert memory.id == ids[0]
    assert memory.kind == "turn"
    assert memory.scope == "user:alice"
    assert memory.text == "My sister Maya lives in Porto."
    assert memory.role == "user"
    assert memory.speaker == "Alice"
    assert memory.session_id == "s1"
    assert memory.sequence == 1
    assert memory.event_time == utc("2024-05-01T10:00:00Z")
    assert memory.time == memory.event_time
    assert memory.metadata == {"source": "chat"}
    assert memory.status == "active"
    assert memory.valid_to is None
    assert memory.provenance == [ids[0]]
    assert memory.ingested_at.tzinfo is not None
    assert engine.get(ids[1]).role == "assistant"


def test_turn_objects_and_single_dicts_are_accepted(engine):
    turn = engram.Turn("I adopted a cat named Miso.", speaker="Alice",
                       event_time=datetime.datetime(2024, 5, 2, 8, 30),
                       metadata={"mood": "happy"})
    assert turn.text == "I adopted a cat named Miso."
    assert turn.event_time == utc("2024-05-02T08:30:00Z")  # naive means UTC
    assert turn.to_dict() == {"role": "user", "speaker": "Alice", "session_id": "",
                              "event_time": "2024-05-02T08:30:00Z",
                              "text": "I adopted a cat named Miso.",
                              "metadata": {"mood": "happy"}}
    first = engine.remember("user:alice", [turn])
    second = engine.remember("user:alice", {"text": "Miso likes tuna."})
    assert (first.first_sequence, second.first_sequence) == (1, 2)
    assert engine.get(first.ids[0]).metadata == {"mood": "happy"}


def test_bytes_text_that_is_utf8_is_stored(engine):
    stored = engine.remember("user:alice", [{"text": "Caf\u00e9 au lait".encode("utf-8")}])
    assert engine.get(stored.ids[0]).text == "Caf\u00e9 au lait"


def test_recall_finds_the_turn_with_provenance(filled):
    engine, ids = filled
    result = engine.recall("user:alice", "Where does Maya live?", at=AT)
    assert isinstance(result, engram.ReadResult)
    assert result.query == "Where does Maya live?"
    assert result.policy == "balanced"
    assert result.items[0].id == ids[0]
    top = result.items[0]
    assert top.text == "My sister Maya lives in Porto."
    assert top.provenance == [ids[0]]
    assert top.kind == "turn"
    assert top.speaker == "Alice"
    assert top.time == utc("2024-05-01T10:00:00Z")
    assert "bm25" in top.ranks and top.ranks["bm25"] == 1
    assert top.route_scores["bm25"] > 0
    assert [r.route for r in top.routes] == list(top.ranks)
    assert "bm25 rank 1" in top.explanation
    assert "Porto" in result.context
    assert result.answer_instructions and result.answer_instructions not in result.context
    assert result.diagnostics.context_tokens > 0
    # A store this small is below the pools the learned ranker was trained on: fused order.
    assert result.diagnostics.ranker.startswith("fusion (")
    assert "fewer than the learned ranker was trained on" in result.diagnostics.ranker
    # The LLM loop is off by default: nothing to report.
    assert result.diagnostics.llm is None
    assert result.explanation == ""


def test_recall_options(filled):
    engine, ids = filled
    result = engine.recall("user:alice", "Where does Maya live?", k=1, policy="strict",
                           routes=["bm25"], explain=True, at=AT)
    assert len(result.items) == 1
    assert result.policy == "strict"
    assert [r.route for r in result.items[0].routes] == ["bm25"]
    assert result.explanation.startswith("frame: ")
    assert "route bm25" in result.explanation
    budgeted = engine.recall("user:alice", "Maya Porto Lisbon sardines", token_budget=12, at=AT)
    assert budgeted.diagnostics.token_budget == 12
    assert budgeted.diagnostics.context_tokens <= 12
    by_rank = engine.recall("user:alice", "Where does Maya live?", k=2, packing="rank", at=AT)
    assert len(by_rank.items) == 2
    assert all(left["reason"] != "floor" for left in by_rank.diagnostics.unpacked)
    by_value = engine.recall("user:alice", "Where does Maya live?", packing="value", at=AT)
    packed = {item.id for item in by_value.items}
    assert all(left["id"] not in packed for left in by_value.diagnostics.unpacked)
    assert by_value.to_dict()["diagnostics"]["unpacked"] == by_value.diagnostics.unpacked


def test_recall_warns_when_the_word_vectors_it_asks_for_are_missing(tmp_path):
    # A data directory without the word vectors (nor the lexicons: write analysis is off).
    no_data = tmp_path / "no-data"
    no_data.mkdir()
    warnings = {}
    for match in (0.6, 0.0):
        config = {"embedder": {"kind": "none"},
                  "write": {"facts": False, "signals": False, "entities": False},
                  "recall": {"word_vector_match": match}}
        with engram.Engine(str(tmp_path / f"store-{match}.db"), config=config,
                           data_dir=str(no_data)) as engine:
            engine.remember("user:alice", CONVERSATION)
            result = engine.recall("user:alice", "Where does Maya live?", explain=True, at=AT)
        assert result.items[0].text == "My sister Maya lives in Porto."
        assert isinstance(result.diagnostics.warnings, list)
        assert result.to_dict()["diagnostics"]["warnings"] == result.diagnostics.warnings
        warnings[match] = (result.diagnostics.warnings, result.explanation)
    asked, explanation = warnings[0.6]
    assert len(asked) == 1
    assert asked[0].startswith("word-vector matches off: word vectors file ")
    assert "scripts/fetch-models" in asked[0]
    assert "\nwarning: " + asked[0] + "\n" in explanation
    not_asked, explanation = warnings[0.0]
    assert not_asked == []
    assert "warning:" not in explanation


def test_recall_with_the_installed_word_vectors_has_no_warnings(filled):
    engine, _ = filled
    result = engine.recall("user:alice", "Where does Maya live?", at=AT)
    assert result.diagnostics.warnings == []


def test_recall_to_dict_has_the_cli_shape(filled):
    engine, _ = filled
    result = engine.recall("user:alice", "Where does Maya live?", at=AT)
    data = result.to_dict()
    assert list(data) == ["query", "policy", "context", "answer_instructions", "items",
                          "diagnostics", "latency_ms", "mode", "chat", "sufficiency"]
    assert data["sufficiency"] == result.sufficiency.to_dict()
    assert data["items"][0] == result.items[0].to_dict()
    assert data["items"][0]["event_time"] == "2024-05-01T10:00:00Z"
    assert data["diagnostics"] == result.diagnostics.to_dict()


def test_recall_hides_retired_unless_asked(filled):
    engine, ids = filled
    engine.retire(ids[0], "wrong")
    assert ids[0] not in [i.id for i in engine.recall("user:alice", "Maya Porto", at=AT).items]
    shown = engine.recall("user:alice", "Maya Porto", include_retired=True, at=AT)
    assert ids[0] in [i.id for i in shown.items]


def test_recall_as_of_a_time(filled):
    engine, ids = filled
    # Valid before the turn was said: not shown, and the diagnostics say which filter hid it.
    before = engine.recall("user:alice", "Maya Porto", at=AT, explain=True,
                           valid_at=datetime.datetime(2024, 4, 1))
    assert ids[0] not in [i.id for i in before.items]
    assert before.diagnostics.to_dict()["filtered_by"]["valid_at"] >= 1
    after = engine.recall("user:alice", "Maya Porto", at=AT, valid_at="2024-05-02T00:00:00Z")
    assert ids[0] in [i.id for i in after.items]
    # Known before anything was ingested: nothing.
    unknown = engine.recall("user:alice", "Maya Porto", at=AT, known_at="2001-01-01T00:00:00Z")
    assert unknown.items == []


def test_amend_supersedes_and_keeps_the_old_turn(engine):
    old_id = engine.remember("user:alice", [{"text": "My sister Lena lives in Berlin.",
                                             "speaker": "Alice", "session_id": "s1"}]).ids[0]
    amended = engine.amend(old_id, "My sister Lena lives in Munich.", reason="moved")
    assert amended["superseded_id"] == old_id and amended["sequence"] == 2
    fresh = engine.get(amended["id"])
    assert fresh.text == "My sister Lena lives in Munich."
    assert fresh.speaker == "Alice" and fresh.session_id == "s1"
    assert engine.get(old_id).status == "superseded"
    texts = [i.text for i in engine.recall("user:alice", "Where does Lena live?", at=AT).items]
    assert "My sister Lena lives in Munich." in texts
    assert "My sister Lena lives in Berlin." not in texts
    with pytest.raises(engram.FailedPrecondition):
        engine.amend(old_id, "again")
    with pytest.raises(engram.InvalidArgument):
        engine.amend(amended["id"], "")
    with pytest.raises(TypeError):
        engine.amend(amended["id"], 42)


def test_recall_nested_scopes(engine):
    engine.remember("user:alice/run:1", [{"text": "The parcel arrives on Tuesday."}])
    assert engine.recall("user:alice", "When does the parcel arrive?", at=AT).items
    with pytest.raises(engram.NotFound):
        engine.recall("user:alice/run:2", "parcel")
    assert not engine.recall("user:alice", "parcel", include_nested=False, at=AT).items


def test_list_and_paging(filled):
    engine, ids = filled
    assert [m.id for m in engine.list("user:alice")] == ids
    assert [m.id for m in engine.list("user:alice", limit=2)] == ids[:2]
    assert [m.id for m in engine.list("user:alice", after=2)] == ids[2:]
    facts = engine.list("user:alice", kind="fact", limit=0)
    assert facts and all(m.kind == "fact" for m in facts)
    every = engine.list("user:alice", kind=None, limit=0)
    assert {m.kind for m in every} >= {"turn", "fact", "entity", "signal"}
    # Paging every kind by the last entry's sequence: a turn shares its sequence number with
    # what was derived from it, and no page ends inside one, so nothing is skipped or repeated.
    for limit in (1, 2, 3):
        paged, after = [], 0
        for _ in range(len(every) + 1):
            page = engine.list("user:alice", kind=None, limit=limit, after=after)
            if not page:
                break
            paged += [m.id for m in page]
            after = page[-1].sequence
        assert paged == [m.id for m in every], limit


def test_history_retire_and_retire_all(filled):
    engine, ids = filled
    engine.retire(ids[3], reason="no longer true")
    assert engine.get(ids[3]).status == "retired"
    actions = [e.action for e in engine.history(ids[3])]
    assert actions[0] == "created"
    last = engine.history(ids[3])[-1]
    assert last.status == "retired" and "no longer true" in last.detail
    assert last.to_dict()["status"] == "retired"
    with pytest.raises(engram.FailedPrecondition):
        engine.retire(ids[3])
    retired = engine.retire_all("user:alice")
    assert retired > 0
    assert all(m.status != "active" for m in engine.list("user:alice", kind=None, limit=0))


def test_links_of_a_turn(filled):
    engine, ids = filled
    links = engine.links(ids[0])
    assert links
    types = {link.type for link in links}
    assert "derived_from" in types and "mentions" in types
    assert all(ids[0] in (link.src, link.dst) for link in links)
    assert isinstance(links[0].attrs, dict)
    assert list(links[0].to_dict()) == ["id", "type", "src", "dst", "status", "attrs"]


def test_scopes_and_erase(filled):
    engine, _ = filled
    engine.remember("user:bob", [{"text": "Bob likes chess."}])
    assert [s.scope for s in engine.scopes()] == ["user:alice", "user:bob"]
    assert engine.scopes()[1].to_dict() == {"scope": "user:bob", "memories":
                                            engine.scopes()[1].memories, "last_sequence": 1}
    erased = engine.erase("user:bob")
    assert erased.scopes == 1 and erased.nodes > 1
    assert [s.scope for s in engine.scopes()] == ["user:alice"]
    with pytest.raises(engram.NotFound):
        engine.erase("user:bob")


def test_facts_and_entities(filled):
    engine, ids = filled
    facts = engine.facts("user:alice")
    lives = [f for f in facts if f.subject == "Maya" and f.predicate == "lives_in"]
    assert len(lives) == 1 and lives[0].object == "Porto"
    assert lives[0].provenance == [ids[0]]
    assert lives[0].to_dict()["status"] == "active"
    assert len(engine.facts("user:alice", all=True)) >= len(facts)
    names = {e.name: e for e in engine.entities("user:alice")}
    assert names["Maya"].kind == "person"
    assert names["Porto"].kind == "place"
    assert names["Maya"].mentions >= 1


def test_facts_as_of_a_time(filled):
    engine, ids = filled
    # Nothing was said before May 2024 (the conversation's first turn), nor recorded in 2000.
    assert engine.facts("user:alice", valid_at="2024-01-01T00:00:00Z") == []
    assert engine.facts("user:alice", known_at=datetime.datetime(2000, 1, 1)) == []
    valid = engine.facts("user:alice", valid_at="2024-05-02T00:00:00Z")
    assert any(f.subject == "Maya" and f.object == "Porto" for f in valid)
    assert all(f.valid_from <= datetime.datetime(2024, 5, 2, tzinfo=datetime.timezone.utc)
               for f in valid)
    with pytest.raises(engram.InvalidArgument, match="valid_at"):
        engine.facts("user:alice", valid_at="yesterday")


def test_proposals_accept_and_reject(filled):
    engine, _ = filled
    entities = {e.name: e.id for e in engine.entities("user:alice")}
    proposal = engine.propose_same(entities["Maya"], entities["Alice"], reason="test")
    assert proposal.status == "pending"
    assert [p.id for p in engine.proposals("user:alice")] == [proposal.id]
    engine.reject(proposal.id)
    assert engine.proposals("user:alice")[0].status == "rejected"
    second = engine.propose_same(entities["Porto"], entities["Lisbon"])
    engine.accept(second.id)
    statuses = {p.id: p.status for p in engine.proposals("user:alice")}
    assert statuses[second.id] == "accepted"
    assert second.to_dict()["a"] == entities["Porto"]


def test_rebuild_index_matches_live(filled):
    engine, _ = filled
    report = engine.rebuild_index()
    assert report.matched_live_index is True
    assert report.documents >= 4


def test_engine_closes_and_reopens(store_path):
    engine = engram.Engine(pathlib.Path(store_path), config=FAST_CONFIG)
    assert engine.path == store_path
    ids = engine.remember("user:alice", [{"text": "Remember the milk."}]).ids
    engine.close()
    engine.close()  # twice is fine
    assert engine.closed
    with pytest.raises(engram.FailedPrecondition, match="closed"):
        engine.get(ids[0])
    with engram.Engine(store_path, config=FAST_CONFIG, create_if_missing=False) as again:
        assert again.get(ids[0]).text == "Remember the milk."
    assert again.closed


def test_config_forms(tmp_path):
    toml = tmp_path / "engram.toml"
    toml.write_text('[embedder]\nkind = "hashing"\n')
    with engram.Engine(str(tmp_path / "a.db"), config=toml) as engine:
        assert engine.embedder_id == "hashing-256"
    with engram.Engine(str(tmp_path / "b.db"), config='[embedder]\nkind = "none"\n') as engine:
        assert engine.embedder_id == "none"
    with engram.Engine(str(tmp_path / "c.db"),
                       config={"embedder": {"kind": "hashing", "hashing_dimension": 64}}) as e:
        assert e.embedder_id == "hashing-64"
    with pytest.raises(engram.InvalidArgument):
        engram.Engine(str(tmp_path / "d.db"), config={"embedder": {"no_such_key": 1}})


def test_help_explains_recall():
    doc = engram.Engine.recall.__doc__
    assert "token_budget" in doc and "ReadResult" in doc
    assert "scope" in engram.Engine.remember.__doc__


def test_count_tokens():
    # "hello" and "world" are 5 bytes each: two started runs of 4 bytes; the comma is one.
    assert engram.count_tokens("hello, world") == 5
