"""The world graph from Python: neighbours, paths and identity classes as of a time, client edges
of the types declared in [graph] edge_types (added, superseded by a single-valued type, retired),
bad input raising the error class that names the problem, and another user's memories being "not
found" exactly as an unknown id is."""

import pytest

import engram

GRAPH_CONFIG = {"embedder": {"kind": "none"},
                "graph": {"edge_types": "owns:single_valued, sibling_of:symmetric, knows"}}

TURNS = [
    {"text": "My sister Lena lives in Porto.", "speaker": "Mia", "session_id": "s1"},
    {"text": "Lena and Tom went hiking in the Alps.", "speaker": "Mia", "session_id": "s1"},
    {"text": "I sold my old bicycle last week.", "speaker": "Mia", "session_id": "s1"},
    {"text": "The blue car needs new tyres.", "speaker": "Mia", "session_id": "s1"},
]


@pytest.fixture
def graph(tmp_path):
    """An engine holding TURNS in user:mia; returns (engine, turn ids, {entity name: id})."""
    with engram.Engine(str(tmp_path / "engram.db"), config=GRAPH_CONFIG) as engine:
        ids = engine.remember("user:mia", TURNS).ids
        entities = {entity.name: entity.id for entity in engine.entities("user:mia")}
        yield engine, ids, entities


def test_neighbours_are_the_turns_naming_an_entity(graph):
    engine, ids, entities = graph
    result = engine.neighbours(entities["Lena"], types=["mentions"], direction="in")
    assert result["node"]["id"] == entities["Lena"]
    assert result["node"]["kind"] == "entity"
    assert [n["node"]["id"] for n in result["neighbours"]] == [ids[0], ids[1]]
    assert all(n["direction"] == "in" and n["edge"]["type"] == "mentions"
               for n in result["neighbours"])
    assert result["truncated"] is False
    cut = engine.neighbours(entities["Lena"], types=["mentions"], direction="in", limit=1)
    assert cut["count"] == 1 and cut["truncated"] is True


def test_single_valued_edge_answers_as_of_its_time(graph):
    engine, ids, entities = graph
    lena = entities["Lena"]
    bicycle = engine.add_edge("user:mia", "owns", lena, ids[2], attrs={"note": "hers"})
    assert bicycle["status"] == "active" and bicycle["attrs"] == {"note": "hers"}
    car = engine.add_edge("user:mia", "owns", lena, ids[3])

    def owned(**as_of):
        result = engine.neighbours(lena, types=["owns"], direction="out", **as_of)
        return [n["node"]["id"] for n in result["neighbours"]]

    assert owned() == [ids[3]]
    assert owned(valid_at=bicycle["ingested_at"]) == [ids[2]]
    assert owned(known_at=bicycle["ingested_at"]) == [ids[2]]
    assert owned(known_at="2000-01-01") == []
    assert engine.get_edge(bicycle["id"])["status"] == "superseded"
    assert engine.retire_edge(car["id"])["status"] == "retired"
    assert owned() == []
    assert owned(valid_at=car["ingested_at"]) == [ids[3]]
    with pytest.raises(engram.FailedPrecondition):
        engine.retire_edge(car["id"])


def test_symmetric_edge_is_stored_once_and_paths_follow_it(graph):
    engine, ids, entities = graph
    lena, tom = entities["Lena"], entities["Tom"]
    edge = engine.add_edge("user:mia", "sibling_of", tom, lena)
    assert (edge["src"], edge["dst"]) == tuple(sorted([lena, tom]))
    with pytest.raises(engram.AlreadyExists):
        engine.add_edge("user:mia", "sibling_of", lena, tom)
    paths = engine.paths(ids[0], ids[1], types=["mentions"], max_depth=2)
    assert [ids[0], lena, ids[1]] in [path["nodes"] for path in paths["paths"]]
    assert engine.paths(ids[0], ids[1], types=["mentions"], max_depth=1)["count"] == 0
    identity = engine.identity(lena)
    assert [member["id"] for member in identity["members"]] == [lena]
    types = {t["name"]: t for t in engine.edge_types()}
    assert types["owns"]["single_valued"] and types["sibling_of"]["symmetric"]
    assert types["mentions"]["builtin"]


def test_bad_input_raises_and_stores_nothing(graph):
    engine, ids, entities = graph
    lena = entities["Lena"]
    with pytest.raises(engram.InvalidArgument, match="no_such_type"):
        engine.neighbours(lena, types=["no_such_type"])
    with pytest.raises(engram.InvalidArgument, match="max_depth"):
        engine.paths(ids[0], ids[1], max_depth=5)
    with pytest.raises(engram.InvalidArgument, match="limit"):
        engine.neighbours(lena, limit=5000)
    with pytest.raises(engram.InvalidArgument):
        engine.neighbours("not-an-id")
    with pytest.raises(engram.InvalidArgument, match="direction"):
        engine.neighbours(lena, direction="sideways")
    with pytest.raises(engram.InvalidArgument, match="not an entity"):
        engine.identity(ids[0])
    with pytest.raises(engram.InvalidArgument, match="engram's own"):
        engine.add_edge("user:mia", "mentions", ids[2], lena)
    with pytest.raises(engram.InvalidArgument, match="not declared"):
        engine.add_edge("user:mia", "likes", lena, ids[2])
    with pytest.raises(engram.InvalidArgument, match="attrs"):
        engine.add_edge("user:mia", "knows", lena, ids[2], attrs={"x": "x" * 20000})
    with pytest.raises(TypeError):
        engine.add_edge("user:mia", "knows", lena, ids[2], attrs=[1, 2])
    with pytest.raises(TypeError):
        engine.neighbours(lena, types="mentions")
    assert engine.neighbours(lena, types=["knows", "owns"])["count"] == 0


def test_another_users_memory_is_not_found_like_an_unknown_id(graph):
    engine, ids, entities = graph
    bob = engine.remember("user:bob", [{"text": "Bob likes chess.", "speaker": "Bob"}]).ids[0]
    unknown = "0123456789abcdef0123456789abcdef"
    with pytest.raises(engram.NotFound) as theirs:
        engine.add_edge("user:mia", "knows", entities["Lena"], bob)
    with pytest.raises(engram.NotFound) as none:
        engine.add_edge("user:mia", "knows", entities["Lena"], unknown)
    assert str(theirs.value).replace(bob, unknown) == str(none.value)
    with pytest.raises(engram.NotFound):
        engine.neighbours(unknown)
    with pytest.raises(engram.NotFound):
        engine.get_edge(unknown)
    assert engine.neighbours(bob)["count"] == 0 or all(
        n["node"]["scope"] == "user:bob" for n in engine.neighbours(bob)["neighbours"])


def test_undeclared_or_colliding_types_fail_the_open(tmp_path):
    for spec in ["mentions", "owns:sometimes", "owns, owns"]:
        with pytest.raises(engram.InvalidArgument, match="edge_types"):
            engram.Engine(str(tmp_path / "bad.db"),
                          config={"embedder": {"kind": "none"}, "graph": {"edge_types": spec}})
