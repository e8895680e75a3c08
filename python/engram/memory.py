"""engram.Memory: mem0's ``Memory`` interface over an engram store.

A program written against mem0's open-source ``Memory`` class runs with its import changed::

    from engram import Memory          # was: from mem0 import Memory

    m = Memory()                       # or Memory(path="memory.db")
    m.add([{"role": "user", "content": "I'm vegetarian and allergic to nuts."}],
          user_id="alice")
    hits = m.search("what can alice eat?", user_id="alice")["results"]
    everything = m.get_all(user_id="alice")["results"]
    m.delete_all(user_id="alice")

Mapping (the same as the mem0 routes of ``engram serve``, docs/MEM0.md): ``user_id``,
``agent_id`` and ``run_id`` become the nested scope ``user:<id>/agent:<id>/run:<id>`` (only the
given parts, in that order). A search covers that scope and its nested scopes; ``get_all`` and
``delete_all`` match the identifiers field by field, as mem0 does (``agent_id`` alone reaches the
agent's memories under every user). Messages are stored verbatim as turns, and ``add`` reports
mem0's events without an LLM: ``NONE`` for a message identical to a stored memory (not stored
again), ``UPDATE`` when a fact engram derives from it supersedes a stored memory's, else
``ADD`` (``infer=False``: every message stored, ``ADD``); ``update`` stores
the new text as a new memory that supersedes the old one, so the id changes (the response carries
the new id) and the old id keeps naming the current version; ``delete`` retires (history keeps
it), ``delete_all`` and ``reset`` erase permanently. ``filters`` take mem0's operators
(``Mem0Filter``). Scores are engram's fused ranking scores (higher is better, not a cosine
similarity), so a ``threshold`` tuned for mem0 needs retuning. docs/PYTHON.md has the whole
table.
"""

import datetime
import hashlib
import string
import unicodedata

from . import _engram
from .errors import InvalidArgument, NotFound

_ID_KINDS = (("user_id", "user"), ("agent_id", "agent"), ("run_id", "run"))
# Longest chain of updates get / update / delete / history follow (as the REST routes).
_MAX_UPDATE_CHAIN = 256
# Candidates ranked before `filters` and `threshold` are applied, when either is given
# (the routes' Mem0Options::filter_window).
_FILTER_WINDOW = 200
# A search's token budget: high enough that packing never drops a ranked item (mem0 returns
# top_k memories, not a context of a given size).
_UNBOUNDED_TOKEN_BUDGET = 1 << 30


# ---------------------------------------------------------------------------------------------
# Identifiers and scopes.

def _ids_from_filters(filters, ids):
    """Fills the identifiers ``ids`` lacks from ``filters``: a non-empty str (or {"eq": str})
    under user_id / agent_id / run_id at the top level, inside a top-level AND, or inside an OR of
    one element (the routes' IdentifiersFromFilters; keys in the same order)."""
    if not isinstance(filters, dict):
        return
    for key in sorted(k for k in filters if isinstance(k, str)):
        value = filters[key]
        if isinstance(value, (list, tuple)) and (key == "AND" or (key == "OR" and len(value) == 1)):
            for part in value:
                _ids_from_filters(part, ids)
            continue
        if key not in ("user_id", "agent_id", "run_id") or ids.get(key) is not None:
            continue
        named = value
        if isinstance(value, dict) and len(value) == 1 and "eq" in value:
            named = value["eq"]
        if isinstance(named, str) and named and named != "*":
            ids[key] = named


def _scope_of(user_id=None, agent_id=None, run_id=None, filters=None, required=True):
    """The scope path the identifiers name (arguments win over the same keys in filters; an
    empty str counts as absent, as in mem0)."""
    ids = {}
    for key, value in (("user_id", user_id), ("agent_id", agent_id), ("run_id", run_id)):
        if value is None:
            continue
        if not isinstance(value, str):
            raise TypeError(f"{key} must be a str, got {type(value).__name__}")
        if value:
            ids[key] = value
    if filters is not None:
        if not isinstance(filters, dict):
            raise TypeError(f"filters must be a dict, got {type(filters).__name__}")
        _ids_from_filters(filters, ids)
    parts = []
    for key, kind in _ID_KINDS:
        if key not in ids:
            continue
        if "/" in ids[key]:
            raise ValueError(f"{key} is not usable as a scope name: it contains '/'")
        parts.append(f"{kind}:{ids[key]}")
    if not parts:
        if required:
            raise ValueError("At least one of 'user_id', 'agent_id', or 'run_id' must be provided.")
        return None
    return "/".join(parts)


def _ids_of_scope(scope):
    """The mem0 identifiers of a scope path: its leading user, agent and run segments in that
    order (the routes' Mem0ScopeIdentifiers), so ``app:crm/user:alice`` has none."""
    ids = {}
    kinds = [kind for _, kind in _ID_KINDS]
    next_position = 0
    for segment in scope.split("/"):
        kind, _, name = segment.partition(":")
        if kind not in kinds[next_position:]:
            break
        position = kinds.index(kind)
        ids[_ID_KINDS[position][0]] = name
        next_position = position + 1
    return ids


def _normalised_ids(scope):
    """The identifiers of a requested scope as the store spells them (names in NFKC, trimmed)."""
    return {key: unicodedata.normalize("NFKC", name).strip()
            for key, name in _ids_of_scope(scope).items()}


def _has_ids(scope, wanted):
    have = _ids_of_scope(scope)
    return all(have.get(key) == name for key, name in wanted.items())


# ---------------------------------------------------------------------------------------------
# Filters.

_SUPPORTED_OPERATORS = 'eq, ne, gt, gte, lt, lte, in, nin, contains, icontains, AND, OR, NOT, "*"'
_OPERATORS = ("eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "icontains")
_TIME_FIELDS = ("created_at", "updated_at")
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def _type_name(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "value"


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _micros(text):
    """An ISO-8601 time (a date, a time without offset is UTC) as microseconds since the epoch;
    None when it is not one."""
    if not isinstance(text, str):
        return None
    spelled = text.strip()
    if spelled[-1:] in ("Z", "z"):
        spelled = spelled[:-1] + "+00:00"
    try:
        parsed = datetime.datetime.fromisoformat(spelled)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.timezone.utc)
    return (parsed - _EPOCH) // datetime.timedelta(microseconds=1)


def _filter_error(where, message):
    return InvalidArgument(f"filters{where}: {message}")


def _unsupported(name):
    return f'unsupported operator "{name}" (supported: {_SUPPORTED_OPERATORS})'


def _time_operand(where, value):
    if not isinstance(value, str):
        raise _filter_error(where, f"must be an ISO-8601 timestamp string, got {_type_name(value)}")
    micros = _micros(value)
    if micros is None:
        raise _filter_error(where, f"not an ISO-8601 time: {value[:64]!r}")
    return micros


def _compile_condition(where, field, op, operand):
    time_field = field in _TIME_FIELDS
    if op in ("in", "nin"):
        if not isinstance(operand, (list, tuple)):
            raise _filter_error(where, f"in / nin need an array, got {_type_name(operand)}")
        if time_field:
            operand = [_time_operand(where, element) for element in operand]
        return ("condition", field, op, list(operand))
    if op in ("gt", "gte", "lt", "lte"):
        if time_field:
            return ("condition", field, op, _time_operand(where, operand))
        if not _is_number(operand) and not isinstance(operand, str):
            raise _filter_error(where, "gt / gte / lt / lte need a number or a string, got "
                                f"{_type_name(operand)}")
        return ("condition", field, op, operand)
    if op in ("contains", "icontains"):
        if time_field:
            raise _filter_error(where, "contains / icontains need a text field")
        if not isinstance(operand, str):
            raise _filter_error(where, "contains / icontains need a string, got "
                                f"{_type_name(operand)}")
        return ("condition", field, op, operand)
    # eq, ne
    if time_field:
        return ("condition", field, op, _time_operand(where, operand))
    if isinstance(operand, dict):
        raise _filter_error(where, "eq / ne cannot compare objects")
    return ("condition", field, op, operand)


def _compile_logical(key, value, where):
    kind = {"AND": "all", "OR": "any", "NOT": "none"}[key]
    here = f"{where}.{key}"
    if key == "NOT" and isinstance(value, dict):
        return (kind, [_compile(value, here)])
    if not isinstance(value, (list, tuple)) or not value:
        raise _filter_error(here, "needs a non-empty array of filter objects")
    return (kind, [_compile(part, f"{here}[{index}]") for index, part in enumerate(value)])


def _compile(filters, where):
    if not isinstance(filters, dict):
        raise _filter_error(where, f"must be an object, got {_type_name(filters)}")
    for key in filters:
        if not isinstance(key, str):
            raise _filter_error(where, f"keys must be strings, got {_type_name(key)}")
    children = []
    # Keys in byte order, as the routes read a JSON object, so the same problem is reported.
    for key in sorted(filters):
        value = filters[key]
        here = f"{where}.{key}"
        if key in ("AND", "OR", "NOT"):
            children.append(_compile_logical(key, value, where))
        elif key.startswith("$"):
            raise _filter_error(where, _unsupported(key))
        elif isinstance(value, dict):
            if not value:
                raise _filter_error(here, "has no operator")
            conditions = []
            for op in sorted(value, key=str):
                if op not in _OPERATORS:
                    raise _filter_error(here, _unsupported(op))
                conditions.append(_compile_condition(here, key, op, value[op]))
            children.append(("all", conditions))
        elif value == "*" and isinstance(value, str):
            children.append(("condition", key, "exists", None))
        else:
            children.append(_compile_condition(here, key, "eq", value))
    return ("all", children)


def _same(a, b):
    """JSON equality: numbers by value, booleans only with booleans, lists element-wise."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) and _is_number(b):
        return a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[key], b[key]) for key in a)
    return False


def _order(a, b):
    """-1, 0, 1 for two numbers or two strings (code point order, which is UTF-8 byte order);
    None when they are not comparable."""
    if (_is_number(a) and _is_number(b)) or (isinstance(a, str) and isinstance(b, str)):
        return -1 if a < b else (1 if a > b else 0)
    return None


def _contains(value, needle, ignore_case):
    fold = (lambda text: text.translate(_ASCII_LOWER)) if ignore_case else (lambda text: text)
    if isinstance(value, str):
        return fold(needle) in fold(value)
    if isinstance(value, (list, tuple)):
        return any(isinstance(element, str) and fold(element) == fold(needle)
                   for element in value)
    return False


def _match(node, fields):
    kind = node[0]
    if kind == "all":
        return all(_match(child, fields) for child in node[1])
    if kind == "any":
        return any(_match(child, fields) for child in node[1])
    if kind == "none":
        return not any(_match(child, fields) for child in node[1])
    _, field, op, operand = node
    value = fields.get(field)
    if value is not None and field in _TIME_FIELDS:
        value = _micros(value)  # an instant; a field that is no time counts as absent
    present = value is not None
    if op == "exists":
        return present
    if op == "eq":
        return present and _same(value, operand)
    if op == "ne":
        return not present or not _same(value, operand)
    if op == "in":
        return present and any(_same(value, element) for element in operand)
    if op == "nin":
        return not present or not any(_same(value, element) for element in operand)
    if op in ("contains", "icontains"):
        return present and _contains(value, operand, op == "icontains")
    order = _order(value, operand) if present else None
    if order is None:
        return False
    return {"gt": order > 0, "gte": order >= 0, "lt": order < 0, "lte": order <= 0}[op]


class Mem0Filter:
    """mem0's filter language over one memory (docs/MEM0.md, "Filters"): conditions on its
    metadata keys and its mem0 fields with eq / ne / gt / gte / lt / lte / in / nin / contains /
    icontains / "*", combined with AND / OR / NOT. The same language as the REST routes'
    (src/server/mem0_filter.cc, Mem0Filter); both run tests/mem0/filter_cases.json.

    Mem0Filter(filters) checks and compiles a filter dict: a problem raises
    engram.InvalidArgument (a ValueError) naming the place and, for an unknown operator, the
    operator (``filters.category: unsupported operator "regex" (supported: ...)``).
    """

    def __init__(self, filters):
        self._root = _compile(filters, "")

    @staticmethod
    def fields_of(memory):
        """The fields a filter sees for an engram memory: its metadata's keys, then ``id``,
        ``memory`` (the text), ``role``, ``actor_id`` (the speaker, if any), ``user_id`` /
        ``agent_id`` / ``run_id`` (from the scope) and ``created_at`` / ``updated_at`` (ISO-8601,
        UTC); a field shadows a metadata key of its name."""
        fields = dict(memory.metadata) if isinstance(memory.metadata, dict) else {}
        ids = _ids_of_scope(memory.scope)
        for key, _ in _ID_KINDS:
            if key in ids:
                fields[key] = ids[key]
            else:
                fields.pop(key, None)
        if memory.speaker:
            fields["actor_id"] = memory.speaker
        else:
            fields.pop("actor_id", None)
        fields["id"] = memory.id
        fields["memory"] = memory.text
        fields["role"] = memory.role
        fields["created_at"] = _iso(memory.ingested_at)
        fields["updated_at"] = _iso(memory.updated_at)
        return fields

    def matches(self, fields):
        """Whether ``fields`` (``fields_of``'s shape) pass the filter."""
        return _match(self._root, fields)


# ---------------------------------------------------------------------------------------------
# Records.

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


def _added_order(memory):
    """The order memories were added in: oldest first, one call's messages (stored at one
    instant) by sequence, scopes written at the same instant by path (as the routes list)."""
    return (memory.ingested_at, memory.scope, memory.sequence, memory.id)


def _same_turn(a, b):
    """Whether two messages of one call are the same memory (they share the metadata)."""
    return (a["text"] == b["text"] and a["role"] == b["role"]
            and a.get("speaker", "") == b.get("speaker", ""))


def _same_memory(turn, memory):
    """Whether a message is the same memory as a stored one: text, role, speaker, metadata."""
    return (memory.kind == "turn" and turn["text"] == memory.text and turn["role"] == memory.role
            and turn.get("speaker", "") == memory.speaker
            and _same(turn.get("metadata") or {}, memory.metadata or {}))


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

    # -- memory ids and update chains ----------------------------------------------------------

    def _neighbour(self, memory_id, forward):
        """The next memory along the update chain ("src supersedes dst"): the successor when
        ``forward``, else the predecessor; None when there is none."""
        for link in self._engine.links(memory_id):
            if link.type != "supersedes":
                continue
            if forward and link.dst == memory_id and link.src != memory_id:
                return link.src
            if not forward and link.src == memory_id and link.dst != memory_id:
                return link.dst
        return None

    def _lookup(self, memory_id):
        """The memory with this id, or None when there is none (or the id is malformed)."""
        if not isinstance(memory_id, str):
            raise TypeError(f"memory_id must be a str, got {type(memory_id).__name__}")
        try:
            memory = self._engine.get(memory_id)
        except (NotFound, InvalidArgument):
            return None
        return None if memory.kind == "scope" else memory

    def _current(self, memory_id):
        """The current version of a memory: an updated (superseded) memory resolves to the one
        that replaced it, along the chain, so an id keeps naming "the same memory" across
        updates. None when unknown or when the current version was deleted (retired)."""
        memory = self._lookup(memory_id)
        hops = 0
        while memory is not None and memory.status == "superseded" and hops < _MAX_UPDATE_CHAIN:
            successor = self._neighbour(memory.id, forward=True)
            if successor is None:
                break
            memory = self._lookup(successor)
            hops += 1
        if memory is None or memory.status != "active":
            return None
        return memory

    def _current_or_raise(self, memory_id):
        memory = self._current(memory_id)
        if memory is None:
            raise NotFound(f"Memory with id {memory_id} not found (or deleted)")
        return memory

    def _scopes_with(self, scope):
        """The stored scopes holding memories of the identifiers of ``scope`` (a field match),
        in path order."""
        wanted = _normalised_ids(scope)
        return sorted(info.scope for info in self._engine.scopes()
                      if _has_ids(info.scope, wanted))

    def _active_turns(self, scope):
        """The current memories of exactly ``scope``, in sequence order ([] for a new scope)."""
        try:
            return self._engine.list(scope, limit=0, include_retired=False)
        except NotFound:
            return []

    def _superseded_turns(self, turn_id, exclude):
        """The stored turns whose claims a fact derived from ``turn_id`` superseded: the evidence
        turns of the facts its facts' ``supersedes`` links point at, still current and not in
        ``exclude`` (this call's turns), oldest first (the route's SupersededTurns)."""
        turns = []
        seen = set()
        for derived in self._engine.links(turn_id):
            if derived.type != "derived_from" or derived.dst != turn_id:
                continue
            for link in self._engine.links(derived.src):
                if link.type != "supersedes" or link.src != derived.src or link.dst == link.src:
                    continue
                for evidence in self._engine.get(link.dst).provenance:
                    if evidence in exclude or evidence in seen:
                        continue
                    seen.add(evidence)
                    memory = self._lookup(evidence)
                    if memory is not None and memory.kind == "turn" and memory.status == "active":
                        turns.append(memory)
        return sorted(turns, key=_added_order)

    # -- mem0's methods ------------------------------------------------------------------------

    def add(self, messages, *, user_id=None, agent_id=None, run_id=None, metadata=None,
            infer=True, memory_type=None, prompt=None):
        """Stores messages as memories; returns ``{"results": [{"id", "memory", "event", "role",
        ...}]}``, one entry per message, with mem0's events decided deterministically (the same
        as the REST route's):

        - ``ADD``: stored as a new memory;
        - ``NONE``: identical (text, role, speaker, metadata) to a current memory of the
          identifiers' scope or to an earlier message of this call: not stored again, ``id`` is
          that memory's;
        - ``UPDATE``: stored, and a fact engram derived from it supersedes a stored memory's
          ("I moved to Munich" after "I live in Berlin"); ``previous_memory`` is that memory's
          text (it stays, its claim marked superseded).

        With ``infer=False`` every message is stored as it is and reported as ``ADD``.
        messages: a str (one user message), a dict ``{"role", "content"[, "name"]}`` or a list
        of them. System messages are not stored (as in mem0). ``memory_type`` and ``prompt``
        are accepted for compatibility and change nothing.
        """
        scope = _scope_of(user_id, agent_id, run_id)
        if metadata is not None and not isinstance(metadata, dict):
            raise TypeError(f"metadata must be a dict, got {type(metadata).__name__}")
        if not isinstance(infer, bool):
            raise TypeError(f"infer must be a bool, got {type(infer).__name__}")
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

        # NONE: the same memory is stored already (or earlier in this call).
        same_as = [None] * len(turns)   # the id of an identical stored memory
        repeats = [None] * len(turns)   # the index of an identical earlier message
        if infer:
            stored = self._active_turns(scope)
            for index, turn in enumerate(turns):
                same_as[index] = next((memory.id for memory in stored
                                       if _same_memory(turn, memory)), None)
                if same_as[index] is None:
                    repeats[index] = next(
                        (earlier for earlier in range(index)
                         if same_as[earlier] is None and repeats[earlier] is None
                         and _same_turn(turns[earlier], turn)), None)
        to_store = [turn for index, turn in enumerate(turns)
                    if same_as[index] is None and repeats[index] is None]
        stored_ids = []
        if to_store:
            # With infer the events need the derived facts (the default wait); without,
            # derivation follows in the background.
            stored_ids = self._engine.remember(scope, to_store,
                                               wait="derived" if infer else "indexed").ids
        this_call = set(stored_ids)
        ids_by_index = {}
        next_stored = iter(stored_ids)
        for index in range(len(turns)):
            if same_as[index] is None and repeats[index] is None:
                ids_by_index[index] = next(next_stored)
        results = []
        for index, turn in enumerate(turns):
            stored_here = index in ids_by_index
            memory_id = (ids_by_index[index] if stored_here
                         else same_as[index] or ids_by_index[repeats[index]])
            entry = {"id": memory_id, "memory": turn["text"],
                     "event": "ADD" if stored_here else "NONE", "role": turn["role"]}
            if stored_here and infer:
                superseded = self._superseded_turns(memory_id, this_call)
                if superseded:
                    entry["event"] = "UPDATE"
                    entry["previous_memory"] = superseded[-1].text
            if "speaker" in turn:
                entry["actor_id"] = turn["speaker"]
            results.append(entry)
        return {"results": results}

    def search(self, query, *, user_id=None, agent_id=None, run_id=None, limit=100,
               filters=None, threshold=None, top_k=None, rerank=None, keyword_search=None,
               fields=None, version=None, output_format=None, enable_graph=None):
        """Memories relevant to ``query``, best first: ``{"results": [{"id", "memory", "hash",
        "metadata", "score", "created_at", "updated_at", "user_id", ...}]}``.

        Results are stored messages, as get_all lists them: a fact engram derived stands for
        the messages it came from.
        ``top_k`` (or mem0's older ``limit``) bounds the count; ``threshold`` drops results
        scoring below it; ``filters`` is mem0's filter language (Mem0Filter), whose
        identifiers also select the scope when the arguments do not name them. ``rerank``,
        ``keyword_search``, ``fields``, ``version``, ``output_format`` and ``enable_graph`` are
        accepted and ignored: engram's ranking already fuses lexical, vector, entity and
        temporal routes, and results always have every field.
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
        wanted = Mem0Filter(filters) if filters is not None else None
        narrows = wanted is not None or threshold is not None
        try:
            result = self._engine.recall(scope, query,
                                         k=max(count, _FILTER_WINDOW) if narrows else count,
                                         token_budget=_UNBOUNDED_TOKEN_BUDGET)
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
                if len(results) >= count:
                    break
                if memory_id in seen:
                    continue
                memory = self._lookup(memory_id)
                if memory is None or memory.kind != "turn" or memory.status != "active":
                    continue
                if wanted is not None and not wanted.matches(Mem0Filter.fields_of(memory)):
                    continue
                seen.add(memory_id)
                results.append(_record(memory, score=item.score))
        return {"results": results}

    def get(self, memory_id):
        """The memory with this id in mem0's shape; an updated memory's old id gives its current
        version. None when there is none or it was deleted."""
        memory = self._current(memory_id)
        return None if memory is None else _record(memory)

    def get_all(self, *, user_id=None, agent_id=None, run_id=None, filters=None, limit=100):
        """Every current memory with the identifiers (a field match: ``agent_id`` alone lists the
        agent's memories under every user), in the order they were added, at most ``limit``:
        ``{"results": [...]}``. ``filters`` as for search."""
        scope = _scope_of(user_id, agent_id, run_id, filters)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be a positive int, got {limit!r}")
        wanted = Mem0Filter(filters) if filters is not None else None
        memories = []
        for path in self._scopes_with(scope):
            for memory in self._engine.list(path, limit=0, include_retired=False):
                if wanted is None or wanted.matches(Mem0Filter.fields_of(memory)):
                    memories.append(memory)
        memories.sort(key=_added_order)
        return {"results": [_record(memory) for memory in memories[:limit]]}

    def update(self, memory_id, data):
        """Replaces a memory's text: stores ``data`` as a new memory of the same scope (same
        speaker, role, session and metadata) that supersedes the current version, which keeps
        its history (Engine.amend). An old id of the memory updates its current version.
        Returns ``{"message": "Memory updated successfully!", "id": <new id>}``; engram.NotFound
        when there is no such memory or it was deleted."""
        if not isinstance(data, str):
            raise TypeError(f"data must be a str, got {type(data).__name__}")
        current = self._current_or_raise(memory_id)
        amended = self._engine.amend(current.id, data, "updated")
        return {"message": "Memory updated successfully!", "id": amended["id"]}

    def delete(self, memory_id):
        """Retires the memory's current version (hidden from get, search and get_all, kept in
        history); engram.NotFound when there is no such memory or it was deleted already."""
        current = self._current_or_raise(memory_id)
        self._engine.retire(current.id, "deleted")
        return {"message": "Memory deleted successfully!"}

    def delete_all(self, *, user_id=None, agent_id=None, run_id=None):
        """Permanently erases every memory with the identifiers: what get_all lists for them
        (``agent_id`` alone reaches the agent's memories under every user), nothing else."""
        scope = _scope_of(user_id, agent_id, run_id)
        erased = []
        for path in self._scopes_with(scope):
            # Erasing a scope erases its nested scopes, which have the identifiers too.
            if any(path.startswith(done + "/") for done in erased):
                continue
            try:
                self._engine.erase(path)
            except NotFound:
                pass
            erased.append(path)
        return {"message": "Memories deleted successfully!"}

    def history(self, memory_id):
        """The changes of the memory's whole update chain, oldest first, in mem0's shape:
        ``[{"id", "memory_id", "old_memory", "new_memory", "event": "ADD" | "UPDATE" |
        "DELETE", "created_at", "updated_at", "is_deleted", "actor_id", "role"}]`` (the REST
        route's entries: ``memory_id`` is the version's id). engram.NotFound for an unknown
        id."""
        asked = self._lookup(memory_id)
        if asked is None:
            raise NotFound(f"Memory with id {memory_id} not found")
        chain = [asked]
        seen = {asked.id}
        for forward in (False, True):
            while len(chain) < _MAX_UPDATE_CHAIN:
                step = self._neighbour(chain[-1].id if forward else chain[0].id, forward)
                if step is None or step in seen:
                    break
                memory = self._lookup(step)
                if memory is None:
                    break
                seen.add(memory.id)
                if forward:
                    chain.append(memory)
                else:
                    chain.insert(0, memory)

        def entry(memory, event, old_memory, new_memory, at):
            return {"id": hashlib.sha256(f"{memory.id}/{event}".encode()).hexdigest()[:32],
                    "memory_id": memory.id, "old_memory": old_memory, "new_memory": new_memory,
                    "event": event, "created_at": _iso(at), "updated_at": None,
                    "is_deleted": event == "DELETE", "actor_id": memory.speaker or None,
                    "role": memory.role}

        entries = [entry(chain[0], "ADD", None, chain[0].text, chain[0].ingested_at)]
        for before, after in zip(chain, chain[1:]):
            entries.append(entry(after, "UPDATE", before.text, after.text, after.ingested_at))
        if chain[-1].status == "retired":
            entries.append(entry(chain[-1], "DELETE", chain[-1].text, None, chain[-1].updated_at))
        return entries

    def reset(self):
        """Erases every memory of the store."""
        for info in self._engine.scopes():
            if "/" not in info.scope:
                self._engine.erase(info.scope)
