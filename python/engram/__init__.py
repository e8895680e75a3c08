"""engram: long-term memory for AI agents, in-process.

    import engram

    with engram.Engine("memory.db") as engine:
        engine.remember("user:alice", [
            {"text": "My sister Maya lives in Porto.", "speaker": "Alice"},
        ])
        result = engine.recall("user:alice", "Where does Maya live?")
        print(result.context)              # evidence for the answer model
        for item in result.items:
            print(item.score, item.text, item.provenance)

``engram.Engine`` wraps the C++ engine (stores turns verbatim, recalls a ranked, packed,
explained context); ``engram.Memory`` is a facade with mem0's ``Memory`` method names and
return shapes. Every result object has ``to_dict()``, the JSON the ``engram`` CLI prints with
``--json``. Errors are ``engram.Error`` subclasses (``engram.NotFound``, ...).
"""

import math as _math

from . import _engram
from .errors import (
    AlreadyExists,
    Corruption,
    DeadlineExceeded,
    Error,
    FailedPrecondition,
    Internal,
    InvalidArgument,
    NotFound,
    ResourceExhausted,
    Unavailable,
)

__version__ = "0.1.0"

Turn = _engram.Turn
MemoryRecord = _engram.Memory
HistoryEvent = _engram.HistoryEvent
RouteScore = _engram.RouteScore
Adjustment = _engram.Adjustment
RelatedClaim = _engram.RelatedClaim
Sufficiency = _engram.Sufficiency
RecallItem = _engram.RecallItem
Diagnostics = _engram.Diagnostics
ReadResult = _engram.ReadResult
ScopeInfo = _engram.ScopeInfo
MergeProposal = _engram.MergeProposal
RememberResult = _engram.RememberResult
EraseResult = _engram.EraseResult
RebuildReport = _engram.RebuildReport
Link = _engram.Link
Fact = _engram.Fact
Entity = _engram.Entity
count_tokens = _engram.count_tokens


def _toml_key(key):
    if not isinstance(key, str):
        raise TypeError(f"config keys must be str, got {type(key).__name__}")
    if key and all(c.isalnum() or c in "_-" for c in key):
        return key
    return _toml_value(key, key)


def _toml_value(value, key):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not _math.isfinite(value):
            raise ValueError(f"config: {key} must be a finite number")
        return repr(value)
    if isinstance(value, str):
        escaped = "".join(
            c if c not in '"\\' and ord(c) >= 0x20 and c != "\x7f" else f"\\u{ord(c):04x}"
            for c in value
        )
        return f'"{escaped}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(element, key) for element in value) + "]"
    raise TypeError(f"config: {key} has a value of type {type(value).__name__}, which TOML "
                    "cannot hold here")


def config_to_toml(config):
    """TOML text for a dict of sections: ``{"embedder": {"kind": "none"}}``.

    Nested dicts become sub-tables (``{"recall": {"route_weights": {"bm25": 1.0}}}`` is
    ``[recall.route_weights]``). The engine validates the keys: an unknown one raises
    ``engram.InvalidArgument`` when the engine opens.
    """
    if not isinstance(config, dict):
        raise TypeError(f"config must be a dict, got {type(config).__name__}")
    lines = []

    def table(path, values):
        scalars = [(k, v) for k, v in values.items() if not isinstance(v, dict)]
        tables = [(k, v) for k, v in values.items() if isinstance(v, dict)]
        if path and (scalars or not tables):
            lines.append("[" + ".".join(_toml_key(part) for part in path) + "]")
        for key, value in scalars:
            if not path:
                raise ValueError(f"config: top-level key {key!r} must be a section (a dict)")
            lines.append(f"{_toml_key(key)} = {_toml_value(value, key)}")
        for key, value in tables:
            table(path + [key], value)

    table([], config)
    return "\n".join(lines) + "\n"


class Engine(_engram.Engine):
    __doc__ = _engram.Engine.__doc__

    def __init__(self, path, config=None, data_dir=None, create_if_missing=True):
        if isinstance(config, dict):
            config = config_to_toml(config)
        super().__init__(path, config, data_dir, create_if_missing)


from .memory import Memory  # noqa: E402  (needs Engine)


__all__ = [
    "Engine",
    "Memory",
    "Turn",
    "MemoryRecord",
    "HistoryEvent",
    "RouteScore",
    "Adjustment",
    "RelatedClaim",
    "Sufficiency",
    "RecallItem",
    "Diagnostics",
    "ReadResult",
    "ScopeInfo",
    "MergeProposal",
    "RememberResult",
    "EraseResult",
    "RebuildReport",
    "Link",
    "Fact",
    "Entity",
    "count_tokens",
    "config_to_toml",
    "Error",
    "InvalidArgument",
    "NotFound",
    "AlreadyExists",
    "FailedPrecondition",
    "Corruption",
    "Unavailable",
    "DeadlineExceeded",
    "Internal",
    "ResourceExhausted",
]
