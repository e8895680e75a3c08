"""Consolidation from Python: Engine.consolidate builds episodes, scenes and profiles
(idempotent), the listings return them as dicts citing their turns, foresight is filtered by
time, and bad input names the problem without storing anything."""

import datetime

import pytest

import engram
from conftest import CONVERSATION


def test_consolidate_is_idempotent_and_lists_cite_turns(filled):
    engine, ids = filled
    first = engine.consolidate("user:alice")
    assert first["scope"] == "user:alice"
    assert first["turns"] == len(ids)
    assert first["written"] >= first["episodes"] >= 1
    again = engine.consolidate("user:alice")
    assert again["written"] == 0
    episodes = engine.episodes("user:alice")
    assert len(episodes) == first["episodes"]
    covered = [turn for episode in episodes for turn in episode["turns"]]
    assert covered == ids  # every turn in exactly one episode, in order
    assert episodes[0]["status"] == "active"
    scenes = engine.scenes("user:alice")
    assert len(scenes) == first["scenes"]
    members = sorted(member for scene in scenes for member in scene["episodes"])
    assert members == sorted(episode["id"] for episode in episodes)
    assert len(engine.profile("user:alice")) == first["profiles"]


def test_foresight_is_filtered_by_time(engine):
    # 10 May 2024 is a Friday: the plan for next Friday is valid until 18 May.
    engine.remember("user:mia", [{"text": "I am going to visit my sister in Lyon next Friday.",
                                  "speaker": "Mia", "event_time": "2024-05-10T12:00:00Z"}])
    planned = engine.foresight("user:mia", at="2024-05-12T09:00:00Z")
    assert len(planned) == 1
    assert planned[0]["validity"] == "valid"
    assert planned[0]["turns"]
    later = datetime.datetime(2024, 5, 20, 9, 0, tzinfo=datetime.timezone.utc)
    assert engine.foresight("user:mia", at=later) == []
    expired = engine.foresight("user:mia", at=later, all=True)
    assert [entry["validity"] for entry in expired] == ["expired"]


def test_recall_in_chat_mode_attaches_the_profile_and_valid_foresight(engine):
    ids = engine.remember("user:mia", [
        {"text": "I moved to Berlin last March.", "speaker": "Mia",
         "event_time": "2024-05-01T12:00:00Z"},
        {"text": "I actually live in Munich now.", "speaker": "Mia",
         "event_time": "2024-05-10T09:00:00Z"},
        {"text": "I am going to visit my sister in Lyon next Friday.", "speaker": "Mia",
         "event_time": "2024-05-10T09:01:00Z"}]).ids
    engine.consolidate("user:mia")
    result = engine.recall("user:mia", "What is coming up?", at="2024-05-12T09:00:00Z",
                           mode="chat")
    assert result.mode == "chat"
    profile = [line for line in result.chat if line["section"] == "profile"]
    foresight = [line for line in result.chat if line["section"] == "foresight"]
    residence = [line for line in profile if "Munich" in line["text"]]
    assert len(residence) == 1 and residence[0]["evidence"] == [ids[1]]
    assert "Berlin" in residence[0]["text"]
    assert len(foresight) == 1 and foresight[0]["evidence"] == [ids[2]]
    assert result.context.startswith("Profile of Mia:")
    later = engine.recall("user:mia", "What is coming up?", at="2024-05-20T09:00:00Z",
                          mode="chat")
    assert [line["section"] for line in later.chat if line["section"] == "foresight"] == []
    assert engine.recall("user:mia", "What is coming up?").chat == []
    with pytest.raises(engram.InvalidArgument, match="unknown context mode"):
        engine.recall("user:mia", "x", mode="gossip")


def test_unknown_scope_is_not_found(engine):
    with pytest.raises(engram.NotFound, match="user:nobody"):
        engine.consolidate("user:nobody")
    for listing in (engine.episodes, engine.scenes, engine.profile, engine.foresight):
        with pytest.raises(engram.NotFound):
            listing("user:nobody")


def test_bad_arguments_name_the_problem(filled):
    engine, _ = filled
    with pytest.raises(engram.InvalidArgument, match="scope"):
        engine.consolidate("planet:x")
    with pytest.raises(TypeError, match="scope"):
        engine.consolidate(42)
    with pytest.raises(engram.InvalidArgument, match="at"):
        engine.foresight("user:alice", at="tomorrow")
    with pytest.raises(TypeError):
        engine.foresight("user:alice", at=1714557600)
    with pytest.raises(TypeError):
        engine.episodes("user:alice", "extra positional")
    with pytest.raises(engram.InvalidArgument, match="scope"):
        engine.scenes("user:" + "x" * 100000)
    assert engine.episodes("user:alice") == []  # nothing was consolidated by the failures
