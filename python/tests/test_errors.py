"""Errors: one engram.Error subclass per status code, carrying the engine's message."""

import pytest

import engram
from engram import _engram
from conftest import FAST_CONFIG

# Status code name -> (class, the built-in exception it also is, if any).
CLASSES = {
    "INVALID_ARGUMENT": (engram.InvalidArgument, ValueError),
    "NOT_FOUND": (engram.NotFound, LookupError),
    "ALREADY_EXISTS": (engram.AlreadyExists, None),
    "FAILED_PRECONDITION": (engram.FailedPrecondition, None),
    "CORRUPTION": (engram.Corruption, None),
    "UNAVAILABLE": (engram.Unavailable, OSError),
    "DEADLINE_EXCEEDED": (engram.DeadlineExceeded, TimeoutError),
    "INTERNAL": (engram.Internal, None),
    "RESOURCE_EXHAUSTED": (engram.ResourceExhausted, ValueError),
}


@pytest.mark.parametrize("code", sorted(CLASSES))
def test_every_status_code_has_its_class(code):
    cls, builtin = CLASSES[code]
    with pytest.raises(cls) as raised:
        _engram._raise_status(code, f"message for {code}")
    error = raised.value
    assert type(error) is cls
    assert isinstance(error, engram.Error)
    assert error.code == code
    assert str(error) == f"message for {code}"
    assert error.message == f"message for {code}"
    if builtin is not None:
        assert isinstance(error, builtin)


def test_not_found_from_the_engine(engine):
    with pytest.raises(engram.NotFound, match="0123456789abcdef0123456789abcdef"):
        engine.get("0123456789abcdef0123456789abcdef")
    with pytest.raises(LookupError):
        engine.history("0123456789abcdef0123456789abcdef")
    with pytest.raises(engram.NotFound, match="user:nobody"):
        engine.recall("user:nobody", "anything")


def test_invalid_argument_from_the_engine(engine):
    with pytest.raises(engram.InvalidArgument):
        engine.get("not-an-id")
    with pytest.raises(ValueError, match="scope"):
        engine.remember("alice", [{"text": "no kind in the scope"}])
    engine.remember("user:alice", [{"text": "A note."}])
    with pytest.raises(engram.InvalidArgument, match="policy"):
        engine.recall("user:alice", "note", policy="reckless")


def test_failed_precondition_from_the_engine(engine):
    memory_id = engine.remember("user:alice", [{"text": "Temporary note."}]).ids[0]
    engine.retire(memory_id)
    with pytest.raises(engram.FailedPrecondition, match="already retired"):
        engine.retire(memory_id)


def test_missing_store_without_create(tmp_path):
    with pytest.raises(engram.NotFound):
        engram.Engine(str(tmp_path / "missing.db"), config=FAST_CONFIG, create_if_missing=False)


def test_a_file_that_is_not_a_store(tmp_path):
    path = tmp_path / "garbage.db"
    path.write_bytes(b"this is not a SQLite database" * 200)
    with pytest.raises(engram.Corruption, match="not a SQLite database"):
        engram.Engine(str(path), config=FAST_CONFIG)


def test_errors_carry_the_engine_message(engine):
    with pytest.raises(engram.Error) as raised:
        engine.remember("user:alice", [{"text": ""}])
    assert "turns[0]" in str(raised.value)
    assert "text" in str(raised.value)
