"""Reading a posted HTML form (``application/x-www-form-urlencoded``) and its fields.

Parsed here with the standard library, so the UI needs no multipart parser; a form larger
than :data:`MAX_FORM_BYTES` or of another media type is refused with a ValidationError.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from fastapi import Request

from mnemo.errors import ValidationError

MAX_FORM_BYTES = 1_000_000
FORM_TYPE = "application/x-www-form-urlencoded"


async def read_form(request: Request) -> dict[str, str]:
    """The fields of the posted form (the last value of a repeated name wins)."""
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media != FORM_TYPE:
        raise ValidationError(f"expected a form ({FORM_TYPE}), got {media or 'no content type'}")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():  # stop reading at the limit, not after the body
        size += len(chunk)
        if size > MAX_FORM_BYTES:
            raise ValidationError(f"the form is larger than {MAX_FORM_BYTES:,} bytes")
        chunks.append(chunk)
    body = b"".join(chunks)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ValidationError("the form is not UTF-8") from None
    return dict(parse_qsl(text, keep_blank_values=True))


def unit_number(fields: dict[str, str], name: str, label: str) -> float | None:
    """The field ``name`` as a number in [0, 1]; None when blank."""
    raw = fields.get(name, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise ValidationError(f"{label} must be a number between 0 and 1, got {raw!r}") from None
    if not 0.0 <= value <= 1.0:
        raise ValidationError(f"{label} must be between 0 and 1, got {raw}")
    return value


def tag_list(fields: dict[str, str], name: str = "tags") -> list[str]:
    """The comma-separated field ``name`` as a list of non-empty, trimmed tags."""
    return [t.strip() for t in fields.get(name, "").split(",") if t.strip()]


__all__ = ["FORM_TYPE", "MAX_FORM_BYTES", "read_form", "tag_list", "unit_number"]
