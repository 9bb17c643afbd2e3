"""The query parameters of the GET listings, derived from the library's listing queries.

``GET /v1/memories`` and ``GET /v1/messages`` take their parameters from the fields of
:class:`~mnemo.list_query.MemoryQuery` and :class:`~mnemo.list_query.MessageQuery`
(:func:`params_of`): the same names, types, bounds, descriptions and checks, so a parameter
refused answers 422 with the library's message. What differs is only what a URL can carry:
numbers arrive as text (read as numbers before the checks), ``filters`` is the text of a JSON
object (:mod:`mnemo.api.filter_param`), and parameters a route does not offer are left out
(the memory listing has no ``include_deleted``); unknown parameters are ignored, as FastAPI's
own parameters always were. :meth:`ListParams.query` is the library query the route hands to
``Memory``.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from mnemo.api.filter_param import FILTER_JSON_HELP, filter_json
from mnemo.list_query import ListQuery, MemoryQuery, MessageQuery

Q = TypeVar("Q", bound=ListQuery)
#: An integer as a URL writes it (longer ones are refused by the bounds anyway).
INTEGER = re.compile(r"\s*[+-]?\d{1,30}\s*")


class ListParams(BaseModel, Generic[Q]):
    """The query parameters of one listing route: a listing query's fields, read from a URL
    (:func:`params_of` makes one per query class)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    #: The library query these parameters make.
    query_class: ClassVar[type[ListQuery]]

    @model_validator(mode="before")
    @classmethod
    def _numbers(cls, data: Any) -> Any:
        """The integer fields' text read as integers (anything else is left for the field's
        check to refuse, with its message)."""
        if not isinstance(data, dict):
            return data
        ints = {n for n, f in cls.model_fields.items() if f.annotation is int}
        return {
            k: int(v) if k in ints and isinstance(v, str) and INTEGER.fullmatch(v) else v
            for k, v in data.items()
        }

    def query(self) -> Q:
        """The library query of these parameters (``filters`` read from its JSON text);
        ValidationError for a ``filters`` that is not a JSON object."""
        fields = dict(self)
        fields["filters"] = filter_json(fields["filters"])
        return cast(Q, self.query_class(**fields))


def params_of(query: type[Q], name: str, leave_out: Collection[str] = ()) -> type[ListParams[Q]]:
    """The query parameters of a listing route: the fields of ``query`` but those of
    ``leave_out``, ``filters`` as JSON text."""
    text = (str | None, Field(default=None, description=FILTER_JSON_HELP))
    fields: dict[str, Any] = {
        n: text if n == "filters" else (f.annotation, f)
        for n, f in query.model_fields.items()
        if n not in leave_out
    }
    made = create_model(name, __base__=ListParams[query], **fields)  # type: ignore[valid-type]
    made.query_class = query
    return made


if TYPE_CHECKING:
    MemoryParams = ListParams[MemoryQuery]
    MessageParams = ListParams[MessageQuery]
else:
    MemoryParams = params_of(MemoryQuery, "MemoryParams", leave_out=("include_deleted",))
    MessageParams = params_of(MessageQuery, "MessageParams")


__all__ = ["ListParams", "MemoryParams", "MessageParams", "params_of"]
