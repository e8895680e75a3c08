"""engram.Memory: mem0's ``Memory`` interface over an engram store.

A program written against mem0's open-source ``Memory`` class runs with its import changed::

    from engram import Memory          # was: from mem0 import Memory

    m = Memory()                       # or Memory(path="memory.db")
    m.add([{"role": "user", "content": "I'm vegetarian and allergic to nuts."}],
          user_id="alice")
    hits = m.search("what can alice eat?", user_id="alice")["results"]
    everything = m.get_all(user_id="alice")["results"]
    m.delete_all(user_id="alice")

Mapping: ``user_id``, ``agent_id`` and ``run_id`` become the nested scope
``user:<id>/agent:<id>/run:<id>`` (only the given parts, in that order); a search or get_all for
``user_id`` alone also covers that user's agent and run scopes. Messages are stored verbatim as
turns (``infer`` changes nothing: engram derives facts with its deterministic write path, not an
LLM); ``update`` stores the new text as a new memory and retires the old one, so the id changes
(the response carries the new id); ``delete`` retires (history keeps it), ``delete_all`` and
``reset`` erase permanently. Scores are engram's fused ranking scores (higher is better, not a
cosine similarity), so a ``threshold`` tuned for mem0 needs retuning. docs/PYTHON.md has the
whole table.
"""

import hashlib

from . import _engram
from .errors import NotFound

_ID_KINDS = (("user_id", "user"), ("agent_id", "agent"), ("run_id", "run"))


def _scope_of(user_id=None, agent_id=None, run_id=None, filters=None, required=True):
    """The scope path for the given ids (arguments win over the same keys in filters)."""
    ids = {"user_id": user_id, "agent_id": agent_id, "run_id": run_id}
    if filters is not None:
        if not isinstance(filters, dict):
            raise TypeError(f"filters must be a dict, got {type(filters).__name__}")
        for key, _ in _ID_KINDS:
            if ids[key] is None and filters.get(key) is not None:
                ids[key] = filters[key]
    parts = []
    for key, kind in _ID_KINDS:
        value = ids[key]
        if value is None:
            continue
        if not isinstance(value, str):
            raise TypeError(f"{key} must be a str, got {type(value).__name__}")
        if not value:
            raise ValueError(f"{key} must not be empty")
        parts.append(f"{kind}:{value}")
    if not parts:
        if required:
            raise ValueError("At least one of 'user_id', 'agent_id', or 'run_id' must be provided.")
        return None
    return "/".join(parts)


def _metadata_filters(filters):
    if not filters:
        return {}
    return {k: v for k, v in filters.items() if k not in ("user_id", "agent_id", "run_id")}


def _ids_of_scope(scope):
    ids = {}
    for segment in scope.split("/"):
        kind, _, name = segment.partition(":")
        for key, id_kind in _ID_KINDS:
            if kind == id_kind:
                ids[key] = name
    return ids


def _iso(value):
    return None if value is None else value.isoformat().replace("+00:00", "Z")


def _record(memory, score=None):
    """A memory in mem0's result shape."""
    metadata = memory.metadata if isinstance(memory.metadata, dict) else {"value": memory.metadata}
    record = {
        "id": memory.id,
        "memory": memory.text,
        "hash": hashlib.md5(memory.text.encode("utf-8")).hexdigest(),
        "metadata": metadata or None,
    }
    if score is not None:
        record["score"] = score
    record["created_at"] = _iso(memory.ingested_at)
    record["updated_at"] = (
        _iso(memory.updated_at) if memory.updated_at != memory.ingested_at else None
    )
    record.update(_ids_of_scope(memory.scope))
    if memory.speaker:
        record["actor_id"] = memory.speaker
    record["role"] = memory.role
    return record


def _matches(metadata, wanted):
    if not wanted:
        return True
    if not isinstance(metadata, dict):
        return False
    return all(metadata.get(key) == value for key, value in wanted.items())


class Memory:
    """mem0's ``Memory`` methods over an engram store (see the module docstring for the mapping).

    Memory(path="engram.db", config=None, data_dir=None): ``config`` is engram's configuration
    (a dict of sections, TOML text or a path), not mem0's; ``Memory.from_config`` accepts a
    mem0-style dict and reads only the parts that apply.
    """

    def __init__(self, path="engram.db", config=None, data_dir=None):
        from . import Engine

        self._engine = Engine(path, config=config, data_dir=data_dir)

    @classmethod
    def from_config(cls, config_dict):
        """Builds a Memory from a dict: ``path`` (or mem0's ``vector_store.config.path``),
        ``engram`` (engram's config sections) and ``data_dir``. Other mem0 keys (llm,
        embedder, vector_store provider, ...) do not apply to engram and are ignored."""
        if not isinstance(config_dict, dict):
            raise TypeError(f"config_dict must be a dict, got {type(config_dict).__name__}")
        path = config_dict.get("path")
        if path is None:
            store = config_dict.get("vector_store") or {}
            path = (store.get("config") or {}).get("path", "engram.db")
        return cls(path=path, config=config_dict.get("engram"),
                   data_dir=config_dict.get("data_dir"))

    @property
    def engine(self):
        """The underlying engram.Engine, for calls mem0 has no name for (recall, facts, ...)."""
        return self._engine

    def close(self):
        self._engine.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def add(self, messages, *, user_id=None, agent_id=None, run_id=None, metadata=None,
            infer=True, memory_type=None, prompt=None):
        """Stores messages as memories; returns ``{"results": [{"id", "memory", "event": "ADD",
        "role", ...}]}``, one entry per stored message.

        messages: a str (one user message), a dict ``{"role", "content"[, "name"]}`` or a list
        of them. System messages are not stored (as in mem0). ``infer``, ``memory_type`` and
        ``prompt`` are accepted for compatibility; engram always stores the messages verbatim
        and derives facts deterministically.
        """
        scope = _scope_of(user_id, agent_id, run_id)
        if metadata is not None and not isinstance(metadata, dict):
            raise TypeError(f"metadata must be a dict, got {type(metadata).__name__}")
        if isinstance(messages, str):
            messages = [{"role": "user", "content": messages}]
        elif isinstance(messages, dict):
            messages = [messages]
        elif not isinstance(messages, (list, tuple)):
            raise TypeError("messages must be a str, a dict or a list of dicts, got "
                            f"{type(messages).__name__}")
        turns = []
        for index, message in enumerate(messages):
            if not isinstance(message, dict):
                raise TypeError(f"messages[{index}] must be a dict with 'role' and 'content', "
                                f"got {type(message).__name__}")
            if "content" not in message:
                raise ValueError(f"messages[{index}] has no 'content'")
            role = message.get("role", "user")
            if role == "system":
                continue
            turn = {"text": message["content"], "role": role}
            if message.get("name") is not None:
                turn["speaker"] = message["name"]
            if metadata:
                turn["metadata"] = metadata
            turns.append(turn)
        if not turns:
            return {"results": []}
        stored = self._engine.remember(scope, turns)
        results = []
        for turn, memory_id in zip(turns, stored.ids):
            entry = {"id": memory_id, "memory": turn["text"], "event": "ADD", "role": turn["role"]}
            if "speaker" in turn:
                entry["actor_id"] = turn["speaker"]
            results.append(entry)
        return {"results": results}

    def search(self, query, *, user_id=None, agent_id=None, run_id=None, limit=100,
               filters=None, threshold=None, top_k=None):
        """Memories relevant to ``query``, best first: ``{"results": [{"id", "memory", "hash",
        "metadata", "score", "created_at", "updated_at", "user_id", ...}]}``.

        Results are stored messages, as get_all lists them: a fact engram derived stands for
        the messages it came from.
        ``top_k`` (or mem0's older ``limit``) bounds the count; ``threshold`` drops results
        scoring below it; ``filters`` may hold the ids and metadata values to match exactly.
        """
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        scope = _scope_of(user_id, agent_id, run_id, filters)
        count = top_k if top_k is not None else limit
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"top_k must be a positive int, got {count!r}")
        if threshold is not None and (isinstance(threshold, bool)
                                      or not isinstance(threshold, (int, float))):
            raise TypeError(f"threshold must be a number, got {type(threshold).__name__}")
        wanted = _metadata_filters(filters)
        try:
            result = self._engine.recall(scope, query, k=count)
        except NotFound:
            return {"results": []}
        # mem0's memories are what get_all lists: stored messages. A derived item (a fact, an
        # entity) stands for the turns it came from, so it contributes those, at its score.
        results = []
        seen = set()
        for item in result.items:
            if len(results) >= count:
                break
            if threshold is not None and item.score < threshold:
                continue
            for memory_id in [item.id] if item.kind == "turn" else item.provenance:
                if memory_id in seen:
                    continue
                seen.add(memory_id)
                memory = self._engine.get(memory_id)
                if memory.status != "active" or not _matches(memory.metadata, wanted):
                    continue
                results.append(_record(memory, score=item.score))
        return {"results": results}

    def get(self, memory_id):
        """The memory with this id in mem0's shape, or None."""
        if not isinstance(memory_id, str):
            raise TypeError(f"memory_id must be a str, got {type(memory_id).__name__}")
        try:
            return _record(self._engine.get(memory_id))
        except NotFound:
            return None

    def _scopes_under(self, scope):
        return [info.scope for info in self._engine.scopes()
                if info.scope == scope or info.scope.startswith(scope + "/")]

    def get_all(self, *, user_id=None, agent_id=None, run_id=None, filters=None, limit=100):
        """Every current memory of the ids' scope (nested scopes included), oldest first, at
        most ``limit``: ``{"results": [...]}``."""
        scope = _scope_of(user_id, agent_id, run_id, filters)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be a positive int, got {limit!r}")
        wanted = _metadata_filters(filters)
        results = []
        for path in self._scopes_under(scope):
            for memory in self._engine.list(path, limit=0, include_retired=False):
                if _matches(memory.metadata, wanted):
                    results.append(_record(memory))
        results.sort(key=lambda record: record["created_at"] or "")
        return {"results": results[:limit]}

    def update(self, memory_id, data):
        """Replaces a memory's text: stores ``data`` as a new memory of the same scope (same
        speaker, role, session and metadata) that supersedes the old one, which keeps its
        history (Engine.amend). Returns ``{"message": "Memory updated successfully!", "id":
        <new id>}``."""
        if not isinstance(memory_id, str):
            raise TypeError(f"memory_id must be a str, got {type(memory_id).__name__}")
        if not isinstance(data, str):
            raise TypeError(f"data must be a str, got {type(data).__name__}")
        amended = self._engine.amend(memory_id, data, "updated")
        return {"message": "Memory updated successfully!", "id": amended["id"]}

    def delete(self, memory_id):
        """Retires the memory (hidden from search and get_all, kept in history)."""
        if not isinstance(memory_id, str):
            raise TypeError(f"memory_id must be a str, got {type(memory_id).__name__}")
        self._engine.retire(memory_id, "deleted")
        return {"message": "Memory deleted successfully!"}

    def delete_all(self, *, user_id=None, agent_id=None, run_id=None):
        """Permanently erases every memory of the ids' scope and its nested scopes."""
        scope = _scope_of(user_id, agent_id, run_id)
        try:
            self._engine.erase(scope)
        except NotFound:
            pass
        return {"message": "Memories deleted successfully!"}

    def history(self, memory_id):
        """The memory's changes, oldest first, in mem0's shape: ``[{"id", "memory_id",
        "old_memory", "new_memory", "event": "ADD" | "UPDATE" | "DELETE", "created_at",
        "updated_at", "is_deleted"}]``."""
        if not isinstance(memory_id, str):
            raise TypeError(f"memory_id must be a str, got {type(memory_id).__name__}")
        memory = self._engine.get(memory_id)
        entries = []
        for index, event in enumerate(self._engine.history(memory_id)):
            entry = {"id": f"{memory_id}:{index}", "memory_id": memory_id,
                     "old_memory": None, "new_memory": None, "event": None,
                     "created_at": _iso(memory.ingested_at), "updated_at": _iso(event.at),
                     "is_deleted": False}
            if event.action == "created":
                entry.update(new_memory=memory.text, event="ADD", updated_at=None)
            elif event.action == "retired":
                entry.update(old_memory=memory.text, event="DELETE", is_deleted=True)
            elif event.action == "supersedes (incoming)" and event.related_id:
                entry.update(old_memory=memory.text, event="UPDATE",
                             new_memory=self._engine.get(event.related_id).text)
            else:
                continue
            entries.append(entry)
        return entries

    def reset(self):
        """Erases every memory of the store."""
        for info in self._engine.scopes():
            if "/" not in info.scope:
                self._engine.erase(info.scope)
