"""The one table of a memory's fields: what each is called, where it is stored, what it holds,
and who may set it. Every list of memory fields elsewhere is derived from :data:`FIELDS`.

Derived from it (so a new field is its entry here, a migration per backend, and the few
explicit places a test checks against the table):

* the ``memories`` column lists of the store: what a row is read from and inserted with, what
  an update may set (``storage/sql/memories.py``), the columns of a search hit
  (``storage/sql/search.py``'s ``HIT_COLUMNS``, ``storage/sql/rows.py``'s ``fetched``), the
  history snapshot (``storage/sql/rows.py``'s ``SNAPSHOT_FIELDS``) and an "as of" version of
  a memory (``storage/sql/asof.py``);
* the filter fields and their value types (``filters/nodes.py``'s ``FIELD_TYPES``) and where
  each lives in the ``memories`` table (``filters/sql.py``'s ``MEMORIES``);
* the idempotency fingerprint of ``Memory.add`` (:func:`fingerprint`: every field a caller
  may give, nothing the server computes);
* the fields the surfaces take and their descriptions, types, bounds and defaults: the REST
  memory bodies (``api/memory_bodies.py``), the MCP ``remember`` and ``update_memory``
  arguments (``mcp/field_params.py``), the ``mnemo add`` and ``mnemo edit`` options
  (``cli/field_options.py``), each with a small table of its own exceptions; the fields a
  search hit copies from its row (``retrieval/hits.py``); the ``filters`` help text and the
  Markdown mirror's front matter keys.

Kept as explicit classes, and checked against the table by ``tests/test_memory_fields.py``:
:class:`mnemo.schemas.MemoryItem` (and the memory fields of ``Hit``) and
:class:`mnemo.storage.base.NewMemory`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

#: What a field holds: ``text``, ``float``, ``int``, ``time`` (stored as fixed-width ISO-8601
#: UTC text), ``list`` (a JSON list in a text column), ``object`` (a JSON object in a text
#: column).
ValueType = Literal["text", "float", "int", "time", "list", "object"]
#: How a filter reads a field (see :mod:`mnemo.filters.nodes`): ``text``, ``kind``, ``time``,
#: ``tags`` (a list of tags), ``json`` (values inside an object, by key), ``number`` (a
#: numeric column, compared as a number).
FilterType = Literal["text", "kind", "time", "tags", "json", "number"]
#: Where an inserted row's value comes from: ``row`` the :class:`~mnemo.storage.base.
#: NewMemory` the writer built, ``now`` the store's clock; None: not written on insert (the
#: column's default, set by later changes).
Insert = Literal["row", "now"]
#: The Python type of each value type, as the surfaces take it (a time as ISO-8601 text).
PYTHON_TYPES: Mapping[ValueType, Any] = {
    "text": str,
    "float": float,
    "int": int,
    "time": str,
    "list": list[str],
    "object": dict[str, Any],
}
#: Names a filter reads as something else than a field, so no filter field may take one:
#: the scopes (a filter only narrows the caller's scope) and the combinators.
NOT_FILTER_NAMES = frozenset({"user_id", "tenant", "AND", "OR", "NOT"})
#: The range of a score a caller gives (importance, confidence).
UNIT = (0.0, 1.0)


@dataclass(frozen=True)
class MemoryField:
    """One field of a memory.

    ``name`` is its name in Python, JSON and the API; ``column`` its column in ``memories``;
    ``filter`` its filter value type (None: not a filter field); ``given``: a caller may give
    it to ``Memory.add`` (then it is part of the idempotency fingerprint); ``editable``: a
    caller's ``Memory.update`` may change it; ``rewritable``: the store's ``update_memory``
    may set it (the editable fields, and those the write-path tiers rewrite); ``hit``: a
    search hit's row carries it (a filter field should be one: an "as of" search filters a
    memory's past version by its hit fields); ``history``: a history entry's before/after
    snapshot holds it; ``front``: its key in a Markdown mirror file's front matter (None:
    not written); ``default``: what ``Memory.add`` stores when the caller gives none;
    ``bounds``: the closed range of a number the caller gives (the surfaces check it, and so
    does ``Memory``).

    A filter field's name is what a filter writes bare, and a bare key that is no field's
    name reads a metadata key (``{"category": "work"}``): so a new filter field wins over a
    metadata key of its name, which a filter then writes ``metadata.name``. A name a filter
    reads otherwise (:data:`NOT_FILTER_NAMES`, a dotted or ``$`` name) is refused here.
    """

    name: str
    type: ValueType
    description: str
    column: str = ""
    insert: Insert | None = "row"
    filter: FilterType | None = None
    given: bool = False
    editable: bool = False
    rewritable: bool = False
    hit: bool = False
    history: bool = False
    front: str | None = None
    default: Any = None
    bounds: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        if self.filter and (
            self.name in NOT_FILTER_NAMES or "." in self.name or self.name.startswith("$")
        ):
            raise ValueError(f"{self.name!r} cannot be a filter field: filters read it otherwise")
        if not self.column:
            object.__setattr__(self, "column", self.name)
        if self.editable and not self.rewritable:
            object.__setattr__(self, "rewritable", True)

    @property
    def json(self) -> bool:
        """Whether the column holds JSON text (a list or an object)."""
        return self.type in ("list", "object")

    def empty(self) -> Any:
        """The value of a field that has none: ``[]``, ``{}`` or None."""
        return [] if self.type == "list" else {} if self.type == "object" else None

    @property
    def python(self) -> Any:
        """The Python type of a value the caller gives (see :data:`PYTHON_TYPES`)."""
        return PYTHON_TYPES[self.type]

    @property
    def selected(self) -> str:
        """The column as a select list names it (``column AS name`` when they differ)."""
        return self.column if self.column == self.name else f"{self.column} AS {self.name}"


def score(name: str, description: str, default: float) -> MemoryField:
    """A score the caller gives in [0, 1] (``default`` when not given): editable, kept in the
    history snapshot and the front matter (under its name)."""
    return MemoryField(
        name,
        "float",
        description,
        given=True,
        editable=True,
        history=True,
        front=name,
        default=default,
        bounds=UNIT,
    )


def labels(name: str, type: ValueType, description: str, filter: FilterType) -> MemoryField:
    """A collection the caller labels a memory with (its tags, its metadata): given,
    replaced by an update, read by filters as ``filter``, on a search hit's row, in the
    history snapshot and the front matter (under its name)."""
    return MemoryField(
        name,
        type,
        description,
        filter=filter,
        given=True,
        editable=True,
        hit=True,
        history=True,
        front=name,
    )


#: Every field of a memory. The order is that of the fields in a history snapshot (content,
#: tags, metadata, importance, confidence, kind, session_id: the stored JSON keeps it);
#: elsewhere it does not matter.
FIELDS: tuple[MemoryField, ...] = (
    MemoryField("id", "text", "The memory's id (mem_...).", hit=True),
    MemoryField("tenant", "text", "The tenant the memory belongs to."),
    MemoryField(
        "user_id",
        "text",
        "The user the memory belongs to; may be left out when `agent_id` is given (the "
        "agent's own memory).",
        given=True,
        hit=True,
    ),
    MemoryField(
        "content",
        "text",
        "The text of the memory (re-embedded when it changes).",
        given=True,
        editable=True,
        hit=True,
        history=True,
    ),
    labels("tags", "list", "Tags of the memory (an update replaces them).", "tags"),
    labels(
        "metadata",
        "object",
        "A JSON object of the caller's own keys (an update replaces it).",
        "json",
    ),
    score("importance", "How much it matters, 0..1 (profile-grade facts ~0.8).", 0.5),
    score("confidence", "How sure it is, 0..1.", 1.0),
    MemoryField(
        "kind",
        "text",
        "What it is: fact, episode, summary or note.",
        filter="kind",
        default="fact",
        given=True,
        hit=True,
        history=True,
    ),
    MemoryField(
        "session_id",
        "text",
        "The session (conversation) it came from; none: about the user in every session.",
        filter="text",
        given=True,
        rewritable=True,
        hit=True,
        history=True,
    ),
    MemoryField(
        "source_message_ids",
        "list",
        "Ids of the turns it was distilled from (msg_...).",
        given=True,
        rewritable=True,
        hit=True,
        front="sources",
    ),
    MemoryField(
        "created_at",
        "time",
        "When it was said or learnt (ISO-8601); default: when it is stored.",
        filter="time",
        given=True,
        hit=True,
    ),
    MemoryField(
        "updated_at",
        "time",
        "When it last changed.",
        insert="now",
        filter="time",
        front="updated_at",
    ),
    MemoryField("deleted_at", "time", "When it was deleted (history keeps it).", insert=None),
    MemoryField("access_count", "int", "How many times it was read.", insert=None),
    MemoryField("last_accessed_at", "time", "When it was last read.", insert=None),
    MemoryField(
        "expires_at",
        "time",
        "When it expires (ISO-8601, in the future); not with ttl_seconds.",
        given=True,
        editable=True,
    ),
    MemoryField(
        "ttl_seconds",
        "int",
        "Expire it this many seconds from now; not with expires_at.",
        given=True,
        editable=True,
    ),
    MemoryField(
        "agent_id",
        "text",
        "The agent it is private to (the agent's own memory without a user); none: shared "
        "by every agent serving the user.",
        filter="text",
        given=True,
        hit=True,
    ),
)

#: The fields by name.
BY_NAME: Mapping[str, MemoryField] = {f.name: f for f in FIELDS}
#: The names of the fields a caller may give to ``Memory.add``, in table order.
GIVEN: tuple[str, ...] = tuple(f.name for f in FIELDS if f.given)
#: The fields a filter may name, with their filter value types, in table order.
FILTERABLE: Mapping[str, FilterType] = {f.name: f.filter for f in FIELDS if f.filter}


def field(name: str) -> MemoryField:
    """The field called ``name``; KeyError for a name that is not a memory field."""
    return BY_NAME[name]


def description(name: str) -> str:
    """The one-line description of the field ``name`` (what a surface shows as its help)."""
    return BY_NAME[name].description


def fields_where(**flags: bool) -> tuple[MemoryField, ...]:
    """The fields whose boolean attributes equal ``flags`` (``fields_where(hit=True)``),
    in table order."""
    return tuple(f for f in FIELDS if all(getattr(f, k) == v for k, v in flags.items()))


def fingerprint(op: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """What an idempotency key is bound to: the operation and the caller's validated value of
    every field in :data:`GIVEN` (None for one not given). ``given`` must name exactly those
    fields, so a field added to the table cannot be left out of the fingerprint: KeyError
    names a missing one, ValueError an extra one (a value the server computed has no place
    here)."""
    extra = set(given) - set(GIVEN)
    if extra:
        raise ValueError(f"not caller-given memory fields: {sorted(extra)}")
    return {"op": op, **{name: given[name] for name in GIVEN}}


__all__ = [
    "BY_NAME",
    "FIELDS",
    "FILTERABLE",
    "GIVEN",
    "NOT_FILTER_NAMES",
    "PYTHON_TYPES",
    "UNIT",
    "FilterType",
    "Insert",
    "MemoryField",
    "ValueType",
    "description",
    "field",
    "fields_where",
    "fingerprint",
    "labels",
    "score",
]
