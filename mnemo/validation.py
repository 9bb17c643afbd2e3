"""Checking caller input before anything is written. Every failure is a ValidationError."""

from __future__ import annotations

import json
import math
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
    bounded_time,
    format_time,
    parse_time,
)

MAX_ID_CHARS = 256
#: Defaults of the input size limits (settings ``max_metadata_bytes``, ``max_tags``,
#: ``max_tag_chars``).
MAX_METADATA_BYTES = 65_536
MAX_TAGS = 100
MAX_TAG_CHARS = 200


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


#: What :func:`replace_unstorable` puts in place of a character that cannot be stored.
REPLACEMENT = "\ufffd"


def replace_unstorable(value: str) -> tuple[str, int]:
    """``value`` with each character :func:`text` refuses (NUL, a lone surrogate) replaced by
    U+FFFD, and how many were replaced. For text mnemo stores but did not receive from its
    caller (an upstream model's reply): it is kept, readable, instead of refused."""
    if "\x00" not in value:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            pass
        else:
            return value, 0
    out = [REPLACEMENT if ch == "\x00" or "\ud800" <= ch <= "\udfff" else ch for ch in value]
    return "".join(out), sum(a != b for a, b in zip(out, value, strict=True))


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


MAX_JSON_DEPTH = 64
MAX_INT_BITS = 1024


def json_value(value: Any, field: str, depth: int = 0) -> Any:
    """A JSON value whose every string and key passes :func:`text` and every number is finite.

    The one check of free-form JSON at every entry point (metadata of turns, memories and
    documents; imported rows): a lone surrogate or a NUL stored here would make every later
    read of the row fail (JSON responses cannot encode it; PostgreSQL's jsonb refuses NUL).
    ``field`` names the value in the error, e.g. ``metadata.k.deep[0]``. Nesting deeper than
    ``MAX_JSON_DEPTH`` levels is rejected.
    """
    if depth > MAX_JSON_DEPTH:
        raise ValidationError(f"{field} is nested deeper than {MAX_JSON_DEPTH} levels")
    if isinstance(value, str):
        return text(value, field)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        if value.bit_length() > MAX_INT_BITS:
            raise ValidationError(f"{field} is an integer of more than {MAX_INT_BITS} bits")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValidationError(f"{field} must be a finite number, got {value}")
        return value
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValidationError(f"{field} keys must be strings, got {type(key).__name__}")
            text(key, f"{field} key {_printable(key)!r}")
            json_value(item, f"{field}.{_printable(key)}", depth + 1)
        return value
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            json_value(item, f"{field}[{i}]", depth + 1)
        return value
    raise ValidationError(f"{field} is not JSON-serialisable: {type(value).__name__}")


def _printable(key: str) -> str:
    """A key as an error message may quote it (surrogates escaped, at most 40 characters)."""
    return key.encode("utf-8", "backslashreplace").decode("utf-8")[:40]


def json_object(value: Any, field: str, max_bytes: int = MAX_METADATA_BYTES) -> dict[str, Any]:
    """A JSON object checked by :func:`json_value`, at most ``max_bytes`` as UTF-8 JSON
    (None becomes {})."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValidationError(f"{field} must be an object, got {type(value).__name__}")
    json_value(value, field)
    size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    if size > max_bytes:
        raise ValidationError(
            f"{field} is {size:,} bytes as JSON; the limit is {max_bytes:,} "
            "(setting max_metadata_bytes)"
        )
    return value


def tags(value: Any, max_count: int = MAX_TAGS, max_chars: int = MAX_TAG_CHARS) -> list[str]:
    """A list of at most ``max_count`` distinct non-empty tags, each a valid :func:`text` of
    at most ``max_chars`` characters."""
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise ValidationError("tags must be a list of strings")
    out = []
    for i, tag in enumerate(value):
        if i >= max_count:
            raise ValidationError(f"more than {max_count:,} tags (setting max_tags)")
        if not isinstance(tag, str) or not tag.strip():
            raise ValidationError(f"every tag must be a non-empty string, got {tag!r:.80}")
        if len(tag) > max_chars:
            raise ValidationError(
                f"tags[{i}] has {len(tag):,} characters; the limit is {max_chars:,} "
                "(setting max_tag_chars)"
            )
        out.append(text(tag, f"tags[{i}]").strip())
    return list(dict.fromkeys(out))


def query(value: Any, field: str = "query") -> str:
    """Query text: a valid :func:`text` (it may be empty)."""
    return text(value, field)


def unit_float(value: Any, field: str) -> float:
    """A number in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(f"{field} must be a number in [0, 1]")
    if not 0.0 <= float(value) <= 1.0:
        raise ValidationError(f"{field} must be in [0, 1], got {value}")
    return float(value)


def one_of(value: Any, allowed: tuple[str, ...], field: str) -> str:
    """``value`` when it is one of ``allowed``."""
    if value not in allowed:
        raise ValidationError(f"{field} must be one of {list(allowed)}, got {value!r}")
    return str(value)


def memory_kind(value: Any) -> str:
    """One of fact, episode, summary, note."""
    return one_of(value, MEMORY_KINDS, "kind")


def job_status(value: Any) -> str:
    """One of pending, running, done, dead."""
    return one_of(value, JOB_STATUSES, "status")


def profile_category(value: Any) -> str:
    """One of identity, preference, constraint, instruction."""
    return one_of(value, PROFILE_CATEGORIES, "category")


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


def created_text(value: Any, field: str = "created_at") -> str | None:
    """The storage form of an optional time a write is dated with (:func:`bounded_time`)."""
    return None if value is None else format_time(bounded_time(value, field))


#: The longest time to live accepted: 1000 years, in seconds.
MAX_TTL_SECONDS = 1000 * 366 * 86_400


def ttl_seconds(value: Any, field: str = "ttl_seconds") -> int:
    """A time to live in whole seconds, in [1, :data:`MAX_TTL_SECONDS`]; ValidationError
    otherwise."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or value != value  # NaN
        or value in (float("inf"), float("-inf"))
        or value != int(value)
    ):
        raise ValidationError(f"{field} must be a whole number of seconds, got {value!r}")
    if value <= 0:
        raise ValidationError(f"{field} must be > 0, got {value!r}")
    if value > MAX_TTL_SECONDS:
        raise ValidationError(f"{field} must be at most {MAX_TTL_SECONDS} (1000 years)")
    return int(value)


def messages(
    items: Any, max_chars: int, max_metadata_bytes: int = MAX_METADATA_BYTES
) -> list[MessageIn]:
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
            None if raw_time is None else bounded_time(raw_time, f"{where}.created_at")
        )
        fields["metadata"] = json_object(
            item.get("metadata"), f"{where}.metadata", max_metadata_bytes
        )
        if item.get("expires_at") is not None:
            fields["expires_at"] = parse_time(item["expires_at"], f"{where}.expires_at")
        if item.get("ttl_seconds") is not None:
            fields["ttl_seconds"] = ttl_seconds(item["ttl_seconds"], f"{where}.ttl_seconds")
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
