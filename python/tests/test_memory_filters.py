"""mem0's filter language in engram.Memory: the shared cases of tests/mem0/filter_cases.json
(which the REST routes' evaluator runs too, src/server/mem0_api_test.cc), then filters with
operators through search and get_all on a real store."""

import datetime
import json
import os
import pathlib
import types

import pytest

import engram
from engram import Memory
from engram.memory import Mem0Filter
from conftest import FAST_CONFIG


def _source_dir():
    given = os.environ.get("ENGRAM_SOURCE_DIR")
    return pathlib.Path(given) if given else pathlib.Path(__file__).resolve().parents[2]


SHARED = json.loads((_source_dir() / "tests" / "mem0" / "filter_cases.json").read_text())


def _time(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def _memory(given):
    """A case's memory with the attributes of an engram memory record."""
    return types.SimpleNamespace(id=given["id"], text=given["text"], role=given["role"],
                                 speaker=given["speaker"], scope=given["scope"],
                                 ingested_at=_time(given["ingested_at"]),
                                 updated_at=_time(given["updated_at"]),
                                 metadata=given["metadata"])


@pytest.mark.parametrize("case", SHARED["cases"], ids=[c["name"] for c in SHARED["cases"]])
def test_shared_filter_case(case):
    if "error" in case:
        with pytest.raises(engram.InvalidArgument) as raised:
            Mem0Filter(case["filters"])
        assert str(raised.value).startswith(case["error"])
        return
    compiled = Mem0Filter(case["filters"])
    matched = [name for name, given in SHARED["memories"].items()
               if compiled.matches(Mem0Filter.fields_of(_memory(given)))]
    assert sorted(matched) == sorted(case["matches"])


def test_an_unknown_operator_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match='unsupported operator "regex"'):
        Mem0Filter({"category": {"regex": "f.*"}})


@pytest.fixture
def notes(tmp_path):
    with Memory(path=str(tmp_path / "filters.db"), config=FAST_CONFIG) as memory:
        memory.add("Note one: ramen for lunch.", user_id="alice",
                   metadata={"category": "food", "priority": 1, "tags": ["a", "b"]})
        memory.add("Note two: train to Porto.", user_id="alice",
                   metadata={"category": "travel", "priority": 5})
        memory.add("Note three: the Food court closes early.", user_id="alice",
                   metadata={"category": "Food court", "priority": 3})
        yield memory


def _texts(response):
    return sorted(record["memory"] for record in response["results"])


ONE = "Note one: ramen for lunch."
TWO = "Note two: train to Porto."
THREE = "Note three: the Food court closes early."


def test_operators_filter_search(notes):
    def search(filters):
        return _texts(notes.search("note", user_id="alice", filters=filters))

    assert search({"category": {"in": ["food", "travel"]}}) == sorted([ONE, TWO])
    assert search({"category": {"nin": ["food", "travel"]}}) == [THREE]
    assert search({"priority": {"gte": 3}}) == sorted([TWO, THREE])
    assert search({"priority": {"gt": 1, "lte": 3}}) == [THREE]
    assert search({"priority": {"ne": 5}}) == sorted([ONE, THREE])
    assert search({"category": {"icontains": "FOOD"}}) == sorted([ONE, THREE])
    assert search({"tags": {"contains": "a"}}) == [ONE]
    assert search({"AND": [{"priority": {"gt": 1}}, {"category": {"ne": "travel"}}]}) == [THREE]
    assert search({"OR": [{"category": "food"}, {"priority": 5}]}) == sorted([ONE, TWO])
    assert search({"NOT": [{"category": "food"}]}) == sorted([TWO, THREE])
    assert search({"memory": {"icontains": "porto"}}) == [TWO]


def test_operators_filter_get_all(notes):
    listed = notes.get_all(user_id="alice", filters={"priority": {"lt": 5}})
    assert [record["memory"] for record in listed["results"]] == [ONE, THREE]
    assert _texts(notes.get_all(user_id="alice", filters={"category": {"eq": "travel"}})) == [TWO]


def test_identifiers_inside_filters_select_the_scope(notes):
    # Newer mem0 clients send the identifiers inside filters only, under AND.
    found = notes.search("note", filters={"AND": [{"user_id": "alice"},
                                                  {"priority": {"gte": 5}}]})
    assert _texts(found) == [TWO]
    assert _texts(notes.search("note", filters={"user_id": {"eq": "alice"},
                                                "category": "food"})) == [ONE]


def test_a_bad_filter_is_refused_before_searching(notes):
    with pytest.raises(engram.InvalidArgument, match=r'filters\.category: unsupported operator '
                                                     r'"regex"'):
        notes.search("note", user_id="alice", filters={"category": {"regex": "f.*"}})
    with pytest.raises(ValueError, match=r"filters\.OR: needs a non-empty array"):
        notes.get_all(user_id="alice", filters={"OR": []})
