"""Current state through Python: Iris lived in Berlin and moved to Munich. Asked today, the Munich
turn comes first and the Berlin turn says what superseded it; asked as of April, Berlin comes
first and nothing speaks of Munich."""

import datetime

import engram

from conftest import FAST_CONFIG

IRIS = [
    {"text": "I live in Berlin, I moved here in March.", "speaker": "Iris", "session_id": "s1",
     "event_time": "2024-03-10T10:00:00Z"},
    {"text": "Big news: I moved to Munich, I live in Munich now.", "speaker": "Iris",
     "session_id": "s2", "event_time": "2024-06-15T10:00:00Z"},
]
NOW = "2024-09-01T00:00:00Z"


def test_the_present_puts_munich_first_and_marks_berlin(tmp_path):
    with engram.Engine(str(tmp_path / "iris.db"), config=FAST_CONFIG) as engine:
        munich_id = engine.remember("user:iris", IRIS).ids[1]
        result = engine.recall("user:iris", "Where does Iris live?", at=NOW)
        assert "Munich" in result.items[0].text
        assert result.items[0].superseded_by is None
        berlin = next(item for item in result.items if "Berlin" in item.text)
        claim = berlin.superseded_by
        assert isinstance(claim, engram.RelatedClaim)
        assert claim.text == "Big news: I moved to Munich, I live in Munich now."
        assert "Munich" in claim.statement and "Berlin" in claim.claim
        assert claim.time == datetime.datetime(2024, 6, 15, 10, tzinfo=datetime.timezone.utc)
        assert claim.evidence == [munich_id]
        assert berlin.to_dict()["superseded_by"]["id"] == claim.id
        assert "(superseded 2024-06-15: Big news: I moved to Munich" in result.context
        assert result.diagnostics.superseded == 1
        assert result.sufficiency.verdict == "sufficient"
        oslo = engine.recall("user:iris", "Did Iris ever live in Oslo?", at=NOW, policy="strict")
        assert isinstance(oslo.sufficiency, engram.Sufficiency)
        assert oslo.sufficiency.verdict == "insufficient"
        assert "no packed item mentions Oslo" in oslo.sufficiency.reasons
        assert "own check found the context insufficient" in oslo.answer_instructions
        assert oslo.to_dict()["sufficiency"]["verdict"] == "insufficient"


def test_as_of_april_berlin_is_current(tmp_path):
    with engram.Engine(str(tmp_path / "iris.db"), config=FAST_CONFIG) as engine:
        engine.remember("user:iris", IRIS)
        result = engine.recall("user:iris", "Where does Iris live?", at=NOW,
                               valid_at="2024-04-01T00:00:00Z")
        assert "Berlin" in result.items[0].text
        assert all("Munich" not in item.text for item in result.items)
        assert all(item.superseded_by is None for item in result.items)
        assert "Munich" not in result.context
