# Type stubs of engram's extension module (python/src/module.cc). The `engram` package
# re-exports these names; see help(engram.Engine) for each call's documentation.
import datetime
import os
from typing import Any, Dict, List, Optional, Sequence, Union

_Text = Union[str, bytes]
_Time = Union[datetime.datetime, str]
_TurnLike = Union[Dict[str, Any], "Turn"]

class Turn:
    def __init__(
        self,
        text: _Text,
        role: str = ...,
        speaker: str = ...,
        session_id: str = ...,
        event_time: Optional[_Time] = ...,
        metadata: Optional[Dict[str, Any]] = ...,
    ) -> None: ...
    text: str
    role: str
    speaker: str
    session_id: str
    event_time: Optional[datetime.datetime]
    metadata: Any
    def to_dict(self) -> Dict[str, Any]: ...

class Memory:
    id: str
    kind: str
    scope: str
    text: str
    role: str
    speaker: str
    session_id: str
    sequence: int
    event_time: Optional[datetime.datetime]
    time: Optional[datetime.datetime]
    metadata: Any
    status: str
    valid_from: Optional[datetime.datetime]
    valid_to: Optional[datetime.datetime]
    ingested_at: datetime.datetime
    updated_at: datetime.datetime
    provenance: List[str]
    def to_dict(self) -> Dict[str, Any]: ...

class HistoryEvent:
    at: datetime.datetime
    action: str
    status: str
    valid_to: Optional[datetime.datetime]
    related_id: str
    detail: str
    def to_dict(self) -> Dict[str, Any]: ...

class RouteScore:
    route: str
    rank: int
    score: float
    explanation: str
    def to_dict(self) -> Dict[str, Any]: ...

class Adjustment:
    name: str
    factor: float
    bonus: float
    detail: str
    def to_dict(self) -> Dict[str, Any]: ...

class RelatedClaim:
    id: str
    statement: str
    text: str
    time: Optional[datetime.datetime]
    evidence: List[str]
    claim: str
    def to_dict(self) -> Dict[str, Any]: ...

class RecallItem:
    id: str
    kind: str
    scope: str
    text: str
    role: str
    speaker: str
    session_id: str
    sequence: int
    event_time: Optional[datetime.datetime]
    time: Optional[datetime.datetime]
    metadata: Any
    status: str
    score: float
    fused_score: float
    routes: List[RouteScore]
    ranks: Dict[str, int]
    route_scores: Dict[str, float]
    adjustments: List[Adjustment]
    provenance: List[str]
    tokens: int
    superseded_by: Optional[RelatedClaim]
    conflicts: List[RelatedClaim]
    explanation: str
    def to_dict(self) -> Dict[str, Any]: ...

class Diagnostics:
    frame: str
    plan: str
    routes: List[Dict[str, Any]]
    fused_candidates: int
    neighbours_added: int
    bridged: int
    superseded: int
    successors_added: int
    conflicted: int
    ranker: str
    filtered_out: int
    dropped_by_budget: int
    deduplicated: int
    token_budget: int
    context_tokens: int
    timings: List[Dict[str, Any]]
    unpacked: List[Dict[str, Any]]
    llm: Optional[Dict[str, Any]]
    warnings: List[str]
    def to_dict(self) -> Dict[str, Any]: ...

class Sufficiency:
    verdict: str
    reasons: List[str]
    term_share: float
    best_item_share: float
    def to_dict(self) -> Dict[str, Any]: ...

class ReadResult:
    query: str
    context: str
    answer_instructions: str
    policy: str
    items: List[RecallItem]
    diagnostics: Diagnostics
    latency_ms: float
    sufficiency: Sufficiency
    explanation: str
    def to_dict(self) -> Dict[str, Any]: ...

class ScopeInfo:
    scope: str
    memories: int
    last_sequence: int
    def to_dict(self) -> Dict[str, Any]: ...

class MergeProposal:
    id: str
    a: str
    b: str
    status: str
    reason: str
    def to_dict(self) -> Dict[str, Any]: ...

class RememberResult:
    ids: List[str]
    first_sequence: int
    last_sequence: int
    def to_dict(self) -> Dict[str, Any]: ...

class EraseResult:
    scopes: int
    nodes: int
    edges: int
    def to_dict(self) -> Dict[str, Any]: ...

class RebuildReport:
    scopes: int
    documents: int
    terms: int
    seconds: float
    matched_live_index: bool
    def to_dict(self) -> Dict[str, Any]: ...

class Link:
    id: str
    type: str
    src: str
    dst: str
    status: str
    attrs: Any
    def to_dict(self) -> Dict[str, Any]: ...

class Fact:
    id: str
    status: str
    text: str
    subject: str
    predicate: str
    object: str
    valid_from: Optional[datetime.datetime]
    valid_to: Optional[datetime.datetime]
    provenance: List[str]
    supersedes: List[str]
    superseded_by: List[str]
    contradicts: List[str]
    def to_dict(self) -> Dict[str, Any]: ...

class Entity:
    id: str
    name: str
    kind: str
    mentions: int
    same_as: List[str]
    first_seen: Optional[datetime.datetime]
    provenance: List[str]
    def to_dict(self) -> Dict[str, Any]: ...

class Engine:
    def __init__(
        self,
        path: Union[str, os.PathLike],
        config: Union[None, str, os.PathLike, Dict[str, Any]] = ...,
        data_dir: Union[None, str, os.PathLike] = ...,
        create_if_missing: bool = ...,
    ) -> None: ...
    @property
    def path(self) -> str: ...
    @property
    def closed(self) -> bool: ...
    @property
    def embedder_id(self) -> str: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Engine": ...
    def __exit__(self, *exc_info: Any) -> None: ...
    def remember(self, scope: str, turns: Union[_TurnLike, Sequence[_TurnLike]]) -> RememberResult: ...
    def recall(
        self,
        scope: str,
        query: _Text,
        *,
        k: Optional[int] = ...,
        token_budget: Optional[int] = ...,
        policy: str = ...,
        routes: Optional[Sequence[str]] = ...,
        explain: bool = ...,
        include_retired: bool = ...,
        include_nested: bool = ...,
        route_weights: Optional[Dict[str, float]] = ...,
        use_planner: bool = ...,
        at: Optional[_Time] = ...,
        valid_at: Optional[_Time] = ...,
        known_at: Optional[_Time] = ...,
        mode: str = ...,
        packing: Optional[str] = ...,
    ) -> ReadResult: ...
    def get(self, id: str) -> Memory: ...
    def list(
        self,
        scope: str,
        *,
        limit: int = ...,
        after: int = ...,
        kind: Optional[str] = ...,
        include_retired: bool = ...,
    ) -> List[Memory]: ...
    def history(self, id: str) -> List[HistoryEvent]: ...
    def links(self, id: str) -> List[Link]: ...
    def amend(self, id: str, replacement: Union[str, bytes, Dict[str, Any], Turn],
              reason: str = ...) -> Dict[str, Any]: ...
    def retire(self, id: str, reason: str = ...) -> None: ...
    def retire_all(self, scope: str) -> int: ...
    def erase(self, scope: str) -> EraseResult: ...
    def scopes(self) -> List[ScopeInfo]: ...
    def facts(
        self,
        scope: str,
        *,
        all: bool = ...,
        rejected: bool = ...,
        valid_at: Optional[_Time] = ...,
        known_at: Optional[_Time] = ...,
    ) -> List[Fact]: ...
    def entities(self, scope: str) -> List[Entity]: ...
    def consolidate(self, scope: str) -> Dict[str, Any]: ...
    def episodes(self, scope: str, *, all: bool = ...) -> List[Dict[str, Any]]: ...
    def scenes(self, scope: str, *, all: bool = ...) -> List[Dict[str, Any]]: ...
    def profile(self, scope: str, *, all: bool = ...) -> List[Dict[str, Any]]: ...
    def foresight(self, scope: str, *, at: Optional[_Time] = ...,
                  all: bool = ...) -> List[Dict[str, Any]]: ...
    def proposals(self, scope: str) -> List[MergeProposal]: ...
    def propose_same(self, a: str, b: str, reason: str = ...) -> MergeProposal: ...
    def accept(self, id: str) -> None: ...
    def reject(self, id: str) -> None: ...
    def neighbours(
        self,
        id: str,
        *,
        types: Optional[Sequence[str]] = ...,
        direction: str = ...,
        limit: int = ...,
        include_retired: bool = ...,
        valid_at: Optional[_Time] = ...,
        known_at: Optional[_Time] = ...,
    ) -> Dict[str, Any]: ...
    def paths(
        self,
        from_id: str,
        to_id: str,
        *,
        types: Optional[Sequence[str]] = ...,
        direction: str = ...,
        max_depth: int = ...,
        limit: int = ...,
        include_retired: bool = ...,
        valid_at: Optional[_Time] = ...,
        known_at: Optional[_Time] = ...,
    ) -> Dict[str, Any]: ...
    def identity(
        self,
        id: str,
        *,
        limit: int = ...,
        include_retired: bool = ...,
        valid_at: Optional[_Time] = ...,
        known_at: Optional[_Time] = ...,
    ) -> Dict[str, Any]: ...
    def edge_types(self) -> List[Dict[str, Any]]: ...
    def add_edge(
        self,
        scope: str,
        type: str,
        src: str,
        dst: str,
        *,
        attrs: Optional[Dict[str, Any]] = ...,
        valid_from: Optional[_Time] = ...,
    ) -> Dict[str, Any]: ...
    def get_edge(self, id: str) -> Dict[str, Any]: ...
    def retire_edge(self, id: str) -> Dict[str, Any]: ...
    def rebuild_index(self) -> RebuildReport: ...

def count_tokens(text: _Text) -> int: ...
