"""The REST memory bodies, derived from the field table (:mod:`mnemo.memory_fields`): the body
of ``POST /v1/memories`` holds every field a caller gives to ``Memory.add``, that of
``PATCH /v1/memories/{id}`` every field ``Memory.update`` changes (and ``clear_expiry``).

Each body field has its table field's name, type (a time as ISO-8601 text) and description;
a create body field its ``Memory.add`` default. A number's table bounds are not in the
body: ``Memory`` checks them and a refused value answers 422 with its message. The few REST
exceptions (a required field, a length or range the body checks) are :data:`CONSTRAINTS`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from mnemo.memory_fields import MemoryField
from mnemo.surface_fields import offered
from mnemo.validation import MAX_TTL_SECONDS

#: The schema of a time field given in ISO-8601.
DATE_TIME: dict[str, Any] = {"format": "date-time"}
#: An id's length.
ID_LENGTH: dict[str, Any] = {"min_length": 1, "max_length": 256}
#: What a body checks of some fields itself (as pydantic ``Field`` arguments).
CONSTRAINTS: dict[str, dict[str, Any]] = {
    "user_id": ID_LENGTH,
    "agent_id": ID_LENGTH,
    "expires_at": {"json_schema_extra": DATE_TIME},
    "ttl_seconds": {"ge": 1, "le": MAX_TTL_SECONDS},
}
#: The fields a create body must hold.
REQUIRED = ("content",)
#: The fields a create body lists first (the rest follow in table order).
CREATE_FIRST = ("content", "user_id", "kind", "session_id")
#: A body's fields, in order: each name with its type and pydantic ``Field``.
BodyFields = list[tuple[str, tuple[Any, Any]]]
#: The caller-given fields a create body leaves out (a memory distilled from turns names
#: them; a caller does not).
CREATE_LEAVES_OUT = ("source_message_ids",)


def body_field(f: MemoryField, default: Any) -> tuple[Any, Any]:
    """The body field of ``f`` with ``default`` (``...``: required): its type (None allowed
    where the default is None), description and constraints."""
    annotation = f.python | None if default is None else f.python
    return annotation, Field(default, description=f.description, **CONSTRAINTS.get(f.name, {}))


def body(
    name: str, doc: str, fields: BodyFields, config: ConfigDict, module: str
) -> type[BaseModel]:
    """The body model ``name`` of ``fields``, in order, as a class of ``module`` (its OpenAPI
    schema's name is the class's, prefixed with the module where another has it too)."""
    definitions: dict[str, Any] = dict(fields)
    return create_model(name, __config__=config, __doc__=doc, __module__=module, **definitions)


def creation(f: MemoryField) -> Any:
    """What a create body's field ``f`` defaults to (``...``: required)."""
    return ... if f.name in REQUIRED else f.default


def create_fields() -> BodyFields:
    """The fields of a create body, in its order."""
    given = offered("given", CREATE_LEAVES_OUT)
    first = [f for name in CREATE_FIRST for f in given if f.name == name]
    ordered = first + [f for f in given if f.name not in CREATE_FIRST]
    return [(f.name, body_field(f, creation(f))) for f in ordered]


def patch_fields() -> BodyFields:
    """The fields of an update body: every editable field, and ``clear_expiry``."""
    clear = Field(None, description="true: the memory never expires.")
    editable = [(f.name, body_field(f, None)) for f in offered("editable")]
    return [*editable, ("clear_expiry", (bool | None, clear))]


__all__ = [
    "CONSTRAINTS",
    "CREATE_FIRST",
    "CREATE_LEAVES_OUT",
    "DATE_TIME",
    "REQUIRED",
    "BodyFields",
    "body",
    "body_field",
    "create_fields",
    "creation",
    "patch_fields",
]
