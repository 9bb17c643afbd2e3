"""Checking caller input before anything is written. Every failure is a ValidationError."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import pydantic

from mnemo.errors import ValidationError
from mnemo.schemas import (
    HIT_KINDS,
    JOB_STATUSES,
    MEMORY_KINDS,
    PROFILE_CATEGORIES,
    ROLES,
    MessageIn,
    format_time,
    parse_time,
)

MAX_ID_CHARS = 256


def text(value: Any, field: str) -> str:
    """A string that is valid Unicode (no lone surrogates) and holds no NUL character."""
    if not isinstance(value, str):
        raise ValidationError(f"{field} must be a string, got {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError(f"{field} must be valid Unicode text (lone surrogate)") from None
    if "\x00" in value:
        raise ValidationError(f"{field} must not contain NUL characters")
    return value


def identifier(value: Any, field: str) -> str:
    """A user or session id: a non-empty string of at most 256 characters."""
    text(value, field)
    if not value.strip():
        raise ValidationError(f"{field} must not be empty")
    if len(value) > MAX_ID_CHARS:
        raise ValidationError(f"{field} is longer than {MAX_ID_CHARS} characters")
    return str(value)


def content(value: Any, max_chars: int, field: str = "content") -> str:
    """Non-empty text no longer than ``max_chars``."""
    text(value, field)
    if not value.strip():
        raise ValidationError(f"{field} must not be empty")
    if len(value) > max_chars:
        raise ValidationError(
            f"{field} has {len(value):,} characters; the limit is {max_chars:,} "
            "(setting max_content_chars)"
        )
    return str(value)


def json_object(value: Any, field: str) -> dict[str, Any]:
    """A JSON-serialisable dict (None becomes {})."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValidationError(f"{field} must be an object, got {type(value).__name__}")
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValidationError(f"{field} is not JSON-serialisable: {exc}") from None
    return value


def tags(value: Any) -> list[str]:
    """A list of distinct non-empty tag strings."""
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise ValidationError("tags must be a list of strings")
    out = []
    for tag in value:
        if not isinstance(tag, str) or not tag.strip():
            raise ValidationError(f"every tag must be a non-empty string, got {tag!r}")
        out.append(tag.strip())
    return list(dict.fromkeys(out))


def unit_float(value: Any, field: str) -> float:
    """A number in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(f"{field} must be a number in [0, 1]")
    if not 0.0 <= float(value) <= 1.0:
        raise ValidationError(f"{field} must be in [0, 1], got {value}")
    return float(value)


def memory_kind(value: Any) -> str:
    """One of fact, episode, summary, note."""
    if value not in MEMORY_KINDS:
        raise ValidationError(f"kind must be one of {list(MEMORY_KINDS)}, got {value!r}")
    return str(value)


def job_status(value: Any) -> str:
    """One of pending, running, done, dead."""
    if value not in JOB_STATUSES:
        raise ValidationError(f"status must be one of {list(JOB_STATUSES)}, got {value!r}")
    return str(value)


def profile_category(value: Any) -> str:
    """One of identity, preference, constraint, instruction."""
    if value not in PROFILE_CATEGORIES:
        raise ValidationError(f"category must be one of {list(PROFILE_CATEGORIES)}, got {value!r}")
    return str(value)


def hit_kinds(value: Any) -> tuple[str, ...] | None:
    """A kinds filter for search: None, or a non-empty list of hit kinds."""
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple) or not all(isinstance(k, str) for k in value):
        raise ValidationError(f"kinds must be drawn from {list(HIT_KINDS)}, got {value!r}")
    kinds = tuple(dict.fromkeys(value))
    bad = [k for k in kinds if k not in HIT_KINDS]
    if bad or not kinds:
        raise ValidationError(f"kinds must be drawn from {list(HIT_KINDS)}, got {list(value)!r}")
    return kinds


def time_text(value: Any, field: str) -> str | None:
    """The storage form of an optional time bound."""
    return None if value is None else format_time(parse_time(value, field))


def messages(items: Any, max_chars: int) -> list[MessageIn]:
    """Validate a batch of turns; the first bad one raises with its position."""
    if isinstance(items, dict | str | bytes | bytearray) or not isinstance(items, Sequence):
        raise ValidationError("messages must be a list of {role, content, ...} objects")
    if not items:
        raise ValidationError("messages must not be empty")
    out = []
    for i, item in enumerate(items):
        where = f"messages[{i}]"
        if isinstance(item, MessageIn):
            item = item.model_dump()
        if not isinstance(item, dict):
            raise ValidationError(f"{where} must be an object, got {type(item).__name__}")
        if item.get("role") not in ROLES:
            raise ValidationError(
                f"{where}.role must be one of {list(ROLES)}, got {item.get('role')!r}"
            )
        content(item.get("content"), max_chars, f"{where}.content")
        raw_time = item.get("created_at")
        fields = dict(item)
        fields["created_at"] = (
            None if raw_time is None else parse_time(raw_time, f"{where}.created_at")
        )
        fields["metadata"] = json_object(item.get("metadata"), f"{where}.metadata")
        name = item.get("name")
        if name is not None:
            text(name, f"{where}.name")
        try:
            out.append(MessageIn.model_validate(fields))
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(x) for x in first["loc"])
            raise ValidationError(f"{where}.{loc}: {first['msg']}") from None
    return out
