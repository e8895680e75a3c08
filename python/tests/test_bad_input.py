"""Bad input: wrong types name the argument (TypeError), bad values are engram.InvalidArgument
(a ValueError) with the engine's message, and a rejected batch stores nothing."""

import re

import pytest

import engram


def turn_count(engine, scope="user:alice"):
    return len(engine.list(scope, limit=0)) if any(
        s.scope == scope for s in engine.scopes()) else 0


@pytest.mark.parametrize("turns, message", [
    ("just a string", "turns must be a list"),
    (42, "turns must be a list"),
    ([42], r"turns\[0\] must be a dict or an engram.Turn"),
    ([{"text": "ok"}, ["not", "a", "dict"]], r"turns\[1\] must be a dict"),
    ([{1: "x"}], r"turns\[0\]: keys must be str"),
    ([{"text": "x", "metadata": {"blob": b"\x00"}}], r"turns\[0\]: .*bytes"),
    ([{"text": "x", "event_time": 1714557600}], r"turns\[0\].event_time must be a datetime"),
])
def test_wrong_turn_types_are_type_errors(engine, turns, message):
    with pytest.raises(TypeError, match=message):
        engine.remember("user:alice", turns)
    assert turn_count(engine) == 0


@pytest.mark.parametrize("turn, message", [
    ({"text": ""}, "text"),
    ({"speaker": "Alice"}, "text"),
    ({"text": "x", "speker": "typo"}, 'unknown field "speker"'),
    ({"text": "x", "role": "bot"}, "role"),
    ({"text": "x", "event_time": "yesterday-ish"}, "event_time"),
    ({"text": "x", "metadata": ["not", "an", "object"]}, "metadata"),
])
def test_bad_turn_values_are_invalid_argument(engine, turn, message):
    with pytest.raises(engram.InvalidArgument, match=message):
        engine.remember("user:alice", [{"text": "A good turn."}, turn])
    assert turn_count(engine) == 0  # all or nothing


def test_invalid_utf8_bytes_are_rejected_by_the_engine(engine):
    with pytest.raises(engram.InvalidArgument, match="not valid UTF-8"):
        engine.remember("user:alice", [{"text": b"caf\xe9 (latin-1)"}])
    engine.remember("user:alice", [{"text": "A good turn."}])
    with pytest.raises(engram.InvalidArgument, match="not valid UTF-8"):
        engine.recall("user:alice", b"\xc3\x28")


def test_lone_surrogates_are_rejected(engine):
    with pytest.raises(engram.InvalidArgument, match=r"turns\[0\].text is not valid Unicode"):
        engine.remember("user:alice", [{"text": "broken \udcff text"}])
    engine.remember("user:alice", [{"text": "A good turn."}])
    with pytest.raises(engram.InvalidArgument, match="query is not valid Unicode"):
        engine.recall("user:alice", "broken \udcff query")


def test_huge_inputs_are_refused_with_the_limit(engine):
    with pytest.raises(engram.InvalidArgument, match=r"max_turn_bytes"):
        engine.remember("user:alice", [{"text": "x" * (4 << 20)}])
    engine.remember("user:alice", [{"text": "A good turn."}])
    with pytest.raises(engram.InvalidArgument, match=r"max_query_bytes"):
        engine.recall("user:alice", "why " * (1 << 18))


def test_a_large_batch_is_stored_in_one_call(engine):
    stored = engine.remember("user:alice", [{"text": f"Note number {n}."} for n in range(2000)])
    assert (stored.first_sequence, stored.last_sequence) == (1, 2000)


@pytest.mark.parametrize("call, message", [
    (lambda e: e.remember(7, [{"text": "x"}]), "scope must be a str"),
    (lambda e: e.recall("user:alice", 3.5), "query must be str or bytes"),
    (lambda e: e.recall("user:alice", "x", k="3"), "k must be an int"),
    (lambda e: e.recall("user:alice", "x", k=True), "k must be an int"),
    (lambda e: e.recall("user:alice", "x", token_budget=2.0), "token_budget must be an int"),
    (lambda e: e.recall("user:alice", "x", routes="bm25"), "routes must be a list of str"),
    (lambda e: e.recall("user:alice", "x", routes=[1]), "routes must be a list of str"),
    (lambda e: e.recall("user:alice", "x", policy=1), "policy must be a str"),
    (lambda e: e.recall("user:alice", "x", mode=None), "mode must be a str"),
    (lambda e: e.recall("user:alice", "x", packing=1), "packing must be None or a str"),
    (lambda e: e.recall("user:alice", "x", route_weights=[1]), "route_weights must be a dict"),
    (lambda e: e.recall("user:alice", "x", at=5), "at must be a datetime"),
    (lambda e: e.recall("user:alice", "x", valid_at=5), "valid_at must be a datetime"),
    (lambda e: e.recall("user:alice", "x", known_at=[]), "known_at must be a datetime"),
    (lambda e: e.get(123), "id must be a str"),
    (lambda e: e.history(None), "id must be a str"),
    (lambda e: e.retire("0" * 32, reason=5), "reason must be a str"),
    (lambda e: e.list("user:alice", limit="10"), "limit must be an int"),
    (lambda e: e.list("user:alice", kind=3), "kind must be a str"),
])
def test_wrong_argument_types_name_the_argument(engine, call, message):
    with pytest.raises(TypeError, match=message):
        call(engine)


@pytest.mark.parametrize("call, message", [
    (lambda e: e.recall("user:alice", "x", k=-1), "k must be >= 0"),
    (lambda e: e.list("user:alice", after=-5), "after must be >= 0"),
    (lambda e: e.recall("user:alice", "x", k=10**30), "k is too large"),
])
def test_negative_and_huge_counts_are_value_errors(engine, call, message):
    with pytest.raises(ValueError, match=message):
        call(engine)


@pytest.mark.parametrize("scope", ["alice", "user:", "user:a/b:c", "", "user:" + "x" * 300])
def test_bad_scopes_are_invalid_argument(engine, scope):
    with pytest.raises(engram.InvalidArgument, match="scope"):
        engine.remember(scope, [{"text": "x"}])


def test_bad_engine_arguments(tmp_path):
    with pytest.raises(TypeError, match="path must be a str or os.PathLike"):
        engram.Engine(42)
    with pytest.raises(TypeError, match="config must be"):
        engram.Engine(str(tmp_path / "x.db"), config=3)
    with pytest.raises(TypeError, match="config: kind has a value of type set"):
        engram.Engine(str(tmp_path / "x.db"), config={"embedder": {"kind": {"none"}}})
    with pytest.raises(ValueError, match="must be a section"):
        engram.Engine(str(tmp_path / "x.db"), config={"kind": "none"})


@pytest.mark.parametrize("argument", ["valid_at", "known_at"])
def test_malformed_as_of_times_are_invalid_argument_naming_the_argument(engine, argument):
    engine.remember("user:alice", [{"text": "A good turn."}])
    with pytest.raises(engram.InvalidArgument, match=argument + ": "):
        engine.recall("user:alice", "x", **{argument: "April"})


def test_an_unknown_packing_is_invalid_argument_naming_the_choices(engine):
    engine.remember("user:alice", [{"text": "A good turn."}])
    with pytest.raises(engram.InvalidArgument, match='packing: unknown packing "size"'):
        engine.recall("user:alice", "x", packing="size")


@pytest.mark.parametrize("weights, message", [
    ({"bm25": float("nan")}, r'route_weights "bm25" is nan; a route weight must be a finite '
                             r'number in \[0, 1000\]'),
    ({"vector": float("inf")}, r'route_weights "vector" is inf;'),
    ({"bm25": float("-inf")}, r'route_weights "bm25" is -inf;'),
    ({"bm25": -0.5}, r'route_weights "bm25" is -0.5;'),
    ({"bm25": 10**400}, r'route_weights "bm25" is too large for a float'),
    ({"bm25": 1.0, "vectr": 0.5}, r'route_weights "vectr": unknown route \(known: bm25, .*vector'),
])
def test_bad_route_weights_are_invalid_argument_naming_the_route(engine, weights, message):
    engine.remember("user:alice", [{"text": "A good turn."}])
    with pytest.raises(engram.InvalidArgument, match=message):
        engine.recall("user:alice", "good turn", route_weights=weights, at="2024-06-01T12:00:00Z")
    result = engine.recall("user:alice", "good turn", route_weights={"bm25": 2, "vector": 0},
                           at="2024-06-01T12:00:00Z")
    assert result.items and all(item.score == item.score for item in result.items)  # no NaN


@pytest.mark.parametrize("argument", ["path", "data_dir", "config"])
@pytest.mark.parametrize("as_bytes", [False, True])
def test_a_path_with_a_nul_byte_is_invalid_argument_naming_it(tmp_path, argument, as_bytes):
    good = str(tmp_path / "engram.db")
    bad = str(tmp_path / "engram.db\0.evil")
    kwargs = {"path": good}
    if argument == "config":
        bad = tmp_path / "config\0.toml"  # a PathLike is read as a file
    kwargs[argument] = bad.encode() if as_bytes and isinstance(bad, str) else bad
    with pytest.raises(engram.InvalidArgument,
                       match="^" + argument + r" contains a NUL byte \(at \d+\)$"):
        engram.Engine(**kwargs)
    assert not (tmp_path / "engram.db").exists()  # nothing was opened at the cut path


def test_metadata_integers_are_exact_within_64_bits(engine):
    metadata = {"n": 9007199254740993, "u": 2**64 - 1, "m": -2**63, "f": 0.1}
    stored = engine.remember("user:alice", [{"text": "Numbers.", "metadata": metadata}])
    record = engine.get(stored.ids[0])
    assert record.metadata == metadata
    assert record.to_dict()["metadata"]["n"] == 9007199254740993
    turn = engram.Turn("Numbers too.", metadata={"u": 2**64 - 1})
    assert turn.metadata == {"u": 2**64 - 1}


@pytest.mark.parametrize("value", [2**64, -2**63 - 1, 10**30])
def test_metadata_integers_beyond_64_bits_are_refused(engine, value):
    with pytest.raises(engram.InvalidArgument,
                       match=rf'turns\[0\]: "metadata" holds the integer {value}, outside the '
                             r"64-bit range"):
        engine.remember("user:alice", [{"text": "Numbers.", "metadata": {"big": [value]}}])
    assert turn_count(engine) == 0
    engine.remember("user:alice", [{"text": "As text.", "metadata": {"big": str(value)}}])


def test_fullwidth_scope_names_are_the_plain_scope(engine):
    engine.remember("user:alice", [{"text": "My sister Maya lives in Porto."}])
    engine.remember("user:\uff41lice", [{"text": "I moved to Lisbon."}])  # fullwidth a
    assert [s.scope for s in engine.scopes()] == ["user:alice"]
    assert turn_count(engine, "user:alice") == 2


@pytest.mark.parametrize("scope, code_point", [
    ("user:\u0430lice", "U+0430"),  # Cyrillic a
    ("user:b\u03bfb", "U+03BF"),    # Greek omicron
])
def test_scope_names_mixing_look_alike_scripts_are_refused(engine, scope, code_point):
    with pytest.raises(engram.InvalidArgument,
                       match=re.escape(f'scope: scope "{scope}"') + ".*" + re.escape(code_point)):
        engine.remember(scope, [{"text": "x"}])
    assert engine.scopes() == []
    engine.remember("user:\u0430\u043b\u0438\u0441\u0430", [{"text": "Cyrillic only."}])
    assert [s.scope for s in engine.scopes()] == ["user:\u0430\u043b\u0438\u0441\u0430"]
