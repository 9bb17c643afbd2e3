"""The one search request every surface builds: :class:`SearchQuery`.

Each argument of a search is written once here, as an ``Annotated`` type that carries its
type, bounds, description and check (the checks of :mod:`mnemo.validation`, with their
messages). :class:`SearchQuery` is made of them; ``Memory.search`` builds one and passes it
down; the REST ``/v1/search`` body *is* one; the MCP ``recall`` tool, ``/v1/context`` and the
CLI take their arguments' types from here, so bounds and help are the same on every surface.

A query that fails a check raises mnemo's :class:`~mnemo.errors.ValidationError` with the
check's own message, however it is built (``SearchQuery(...)``, :meth:`SearchQuery.of`,
:meth:`SearchQuery.replace`, or pydantic validating a REST body: the API answers that error's
422 with the same message).

The rules that need more than one argument or the store stay with the search
(:class:`~mnemo.retrieval.searcher.Searcher`): a user or an agent is required, ``as_of`` must
not be after the store's clock, the filter is parsed (:mod:`mnemo.filters`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection, Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, get_type_hints

import pydantic
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    WithJsonSchema,
    model_validator,
)

from mnemo import validation as check
from mnemo.errors import MnemoError, ValidationError
from mnemo.memory_fields import FILTERABLE
from mnemo.schemas import HitKind
from mnemo.signatures import REQUIRED, keyword
from mnemo.timestamps import bounded_time, parse_time

#: The most hits one search returns, on every surface.
MAX_LIMIT = 1000

#: The help of a ``filters`` argument (docs/memory-model.md, "Filters"), on every surface;
#: the keys it names are the filterable fields of :mod:`mnemo.memory_fields`.
FILTERS_HELP = (
    'Only memories and turns matching this filter, in mem0\'s syntax: {"key": value}, '
    '{"key": {"gte": 3}} (eq ne gt gte lt lte in nin contains icontains exists), '
    '{"AND": [...]}, {"OR": [...]}, {"NOT": {...}}; keys: metadata keys, '
    + ", ".join(name for name in FILTERABLE if name != "metadata")
    + ". A bad one is refused, naming its part."
)
#: The JSON schema of a request that names a user, an agent or both.
USER_OR_AGENT: dict[str, Any] = {
    "anyOf": [
        {"required": ["user_id"], "properties": {"user_id": {"type": "string"}}},
        {"required": ["agent_id"], "properties": {"agent_id": {"type": "string"}}},
    ]
}
#: A time argument: ISO-8601 text or epoch seconds (a datetime from Python).
TIME_SCHEMA = WithJsonSchema(
    {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "number"}, {"type": "null"}]}
)


def checked(rule: Callable[[Any], Any]) -> BeforeValidator:
    """A pydantic validator running ``rule``, a check of :mod:`mnemo.validation` (its
    ValidationError, a ValueError, is the pydantic error's cause and keeps its message)."""
    return BeforeValidator(rule)


def optional(rule: Callable[[Any, str], Any], field: str) -> BeforeValidator:
    """:func:`checked` of ``rule(value, field)``, None passing as None."""
    return checked(lambda value: None if value is None else rule(value, field))


def limit(value: Any) -> int | None:
    """A number of hits in [1, :data:`MAX_LIMIT`], or None (the ``search_limit`` setting)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_LIMIT:
        raise ValidationError(f"limit must be an integer in [1, {MAX_LIMIT}]")
    return value


def texts(value: Any) -> tuple[str, ...]:
    """The texts to leave out of the hits (``exclude``): strings, in a list."""
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise ValidationError("exclude must be a list of strings")
    out = tuple(value)
    if not all(isinstance(t, str) for t in out):
        raise ValidationError("exclude must be a list of strings")
    return out


#: An id's form (the bounds :func:`mnemo.validation.identifier` checks), for the schema.
IdText = Annotated[str, StringConstraints(min_length=1, max_length=check.MAX_ID_CHARS)]
#: A number in [0, 1], for the schema.
Unit = Annotated[float, Field(ge=0, le=1)]


def filter_object(value: Any) -> Any:
    """A filter as given (parsed by the search); a mapping becomes a dict."""
    return dict(value) if isinstance(value, Mapping) else value


QueryText = Annotated[
    str, checked(check.query), Field(description="What to look for, in plain words.")
]
UserRef = Annotated[
    IdText | None,
    optional(check.identifier, "user_id"),
    Field(
        description="The user; may be left out when `agent_id` is given (the agent's own memory).",
    ),
]
SessionRef = Annotated[
    IdText | None,
    optional(check.identifier, "session_id"),
    Field(
        description="Only this conversation (session): it narrows, always; omit for every session.",
    ),
]
CurrentSession = Annotated[
    IdText | None,
    optional(check.identifier, "current_session"),
    Field(
        description="The conversation being answered: searched, and while it holds fewer "
        "than `cross_session_threshold` items the user's other sessions too (what context "
        "assembly and the chat proxy do). Give it or `session_id`, not both.",
    ),
]
AgentRef = Annotated[
    IdText | None,
    optional(check.identifier, "agent_id"),
    Field(
        description="The agent whose view the read takes: the user's shared items and those "
        "private to it (without a user: its own memories).",
    ),
]
Limit = Annotated[
    Annotated[int, Field(ge=1, le=MAX_LIMIT)] | None,
    checked(limit),
    Field(
        description=f"Number of hits, 1-{MAX_LIMIT} (default: the `search_limit` setting).",
    ),
]
Kinds = Annotated[
    tuple[HitKind, ...] | None,
    checked(check.hit_kinds),
    Field(description="Only hits of these kinds (a turn is `message`)."),
]
Explain = Annotated[bool, Field(description="Keep each stage's rank in `hit.scores` too.")]
AsOf = Annotated[
    datetime | None,
    optional(bounded_time, "as_of"),
    TIME_SCHEMA,
    Field(
        description="Answer from what was known at this time (ISO-8601 or epoch seconds; not"
        " in the future): later turns and memories left out, changed ones as they were then."
    ),
]
Now = Annotated[
    datetime | None,
    optional(parse_time, "now"),
    TIME_SCHEMA,
    Field(
        description="Reference time of recency and relative dates (ISO-8601 or epoch "
        "seconds); default `as_of`, else the user's newest turn."
    ),
]
Exclude = Annotated[
    tuple[str, ...],
    checked(texts),
    Field(description="Texts to leave out: turns saying exactly one of them are not hits."),
]
Filters = Annotated[
    dict[str, Any] | None, BeforeValidator(filter_object), Field(description=FILTERS_HELP)
]
RecencyWeight = Annotated[
    Unit | None,
    optional(check.unit_float, "recency_weight"),
    Field(description="The recency weight of this search (default: the setting)."),
]
ScoreThreshold = Annotated[
    Unit | None,
    optional(check.unit_float, "score_threshold"),
    Field(description="Drop hits scoring below this (default: the setting)."),
]


def mnemo_error(exc: pydantic.ValidationError) -> MnemoError:
    """The mnemo error of a rejected query: the first check's own error, else a
    ValidationError saying ``<field>: <pydantic's message>``."""
    first = exc.errors()[0]
    cause = first.get("ctx", {}).get("error")
    if isinstance(cause, MnemoError):
        return cause
    where = ".".join(str(x) for x in first["loc"]) or "query"
    return ValidationError(f"{where}: {first['msg']}")


class CheckedModel(BaseModel):
    """A frozen request model that refuses unknown fields and whose bad fields raise mnemo's
    ValidationError (:func:`mnemo_error`), as the library's checks do: the base of
    :class:`SearchQuery` and the listing queries of :mod:`mnemo.list_query`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    if not TYPE_CHECKING:  # type checkers keep the typed signature pydantic gives the class

        def __init__(self, **fields: Any) -> None:
            try:
                super().__init__(**fields)
            except pydantic.ValidationError as exc:
                raise mnemo_error(exc) from None

    @classmethod
    def parameters(
        cls, *, hidden: Collection[str] = (), named: Iterable[str] = ()
    ) -> list[inspect.Parameter]:
        """Each field but the ``hidden`` ones as a keyword parameter, in field order: its
        declared type (the ``Annotated`` type with its bound, check and description) and its
        default (none when required). What a surface built from the model takes
        (:mod:`mnemo.signatures`); ``hidden`` and ``named`` (the fields the surface treats
        its own way) must be fields: ValueError naming any that is not."""
        unknown = sorted({*hidden, *named} - set(cls.model_fields))
        if unknown:
            raise ValueError(f"{cls.__name__} has no field {', '.join(unknown)}")
        declared = get_type_hints(cls, include_extras=True)
        return [
            keyword(name, declared[name], REQUIRED if field.is_required() else field.default)
            for name, field in cls.model_fields.items()
            if name not in hidden
        ]


class SearchQuery(CheckedModel):
    """One search: what to look for, whose memory, and how (see ``Memory.search``).

    >>> SearchQuery(query="cat", user_id="u1", limit=5).limit
    5
    >>> SearchQuery(query="cat", user_id="u1", limit=0)
    Traceback (most recent call last):
    ...
    mnemo.errors.ValidationError: limit must be an integer in [1, 1000]
    """

    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra=USER_OR_AGENT)

    query: QueryText
    user_id: UserRef = None
    agent_id: AgentRef = None
    session_id: SessionRef = None
    current_session: CurrentSession = None
    limit: Limit = None
    kinds: Kinds = None
    explain: Explain = False
    as_of: AsOf = None
    now: Now = None
    exclude: Exclude = ()
    filters: Filters = None
    recency_weight: RecencyWeight = None
    score_threshold: ScoreThreshold = None

    @model_validator(mode="after")
    def _one_session(self) -> SearchQuery:
        if self.session_id is not None and self.current_session is not None:
            raise ValidationError(
                "give session_id (narrows to that conversation) or current_session (prefers "
                "it), not both"
            )
        return self

    @property
    def session(self) -> str | None:
        """The conversation the search looks in first: ``session_id`` or
        ``current_session``."""
        return self.session_id if self.session_id is not None else self.current_session

    @classmethod
    def of(cls, query: str | SearchQuery, **fields: Any) -> SearchQuery:
        """``query`` itself when it is a SearchQuery (then no field may be given as well),
        else the query of that text and ``fields``, given as loosely as ``Memory.search``
        takes them (a time as ISO-8601 text or epoch seconds, kinds as one string...);
        ValidationError for a bad one."""
        if not isinstance(query, SearchQuery):
            return cls(query=query, **fields)
        given = [k for k, v in fields.items() if v is not None and v is not False and v != ()]
        if given:
            raise ValidationError(f"give a SearchQuery or search arguments, not both: {given}")
        return query

    def replace(self, **changes: Any) -> SearchQuery:
        """A copy with ``changes``, checked as a new query (``model_copy`` checks nothing)."""
        return type(self)(**{**dict(self), **changes})

    @property
    def reference_time(self) -> datetime | None:
        """The time recency and relative dates count from: ``now``, else ``as_of`` (None:
        the user's newest turn, else the clock)."""
        return self.now if self.now is not None else self.as_of


__all__ = [
    "FILTERS_HELP",
    "MAX_LIMIT",
    "USER_OR_AGENT",
    "AgentRef",
    "AsOf",
    "CheckedModel",
    "Exclude",
    "Explain",
    "Filters",
    "Kinds",
    "Limit",
    "Now",
    "QueryText",
    "RecencyWeight",
    "ScoreThreshold",
    "SearchQuery",
    "SessionRef",
    "UserRef",
    "checked",
    "limit",
    "mnemo_error",
    "optional",
    "texts",
]
