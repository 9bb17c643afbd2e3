"""Reading conversations from files into batches for ``Memory.add_messages``.

JSONL: one turn per line, ``{"role", "content", "name"?, "created_at"?, "metadata"?,
"user_id"?, "session_id"?}``. Consecutive lines of one (user, session) form a batch of at most
``batch_size`` turns. A malformed line raises ValidationError naming its line number.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnemo.errors import ValidationError


@dataclass
class Batch:
    """Turns of one user and session, ready for ``add_messages``."""

    user_id: str
    session_id: str
    turns: list[dict[str, Any]] = field(default_factory=list)
    first_line: int = 0


def parse_line(raw: bytes | str, where: str) -> Any:
    """The JSON value of one line; ValidationError naming ``where`` (``file:line``) when the
    line is not UTF-8, not JSON, or nested too deeply for the parser."""
    try:
        line = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as exc:
        raise ValidationError(f"{where}: not UTF-8 text (byte offset {exc.start})") from None
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"{where}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise ValidationError(f"{where}: JSON nested too deeply") from None


def read_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line of a JSONL file."""
    p = Path(path)
    if not p.is_file():
        raise ValidationError(f"no such file: {p}")
    with p.open("rb") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            obj = parse_line(line, f"{p}:{number}")
            if not isinstance(obj, dict):
                raise ValidationError(f"{p}:{number}: each line must be a JSON object")
            yield number, obj


def jsonl_batches(
    path: str | Path, user_id: str | None, session_id: str, batch_size: int = 100
) -> Iterator[Batch]:
    """Batches of turns from a JSONL file; ``user_id`` is used where a line names none."""
    current: Batch | None = None
    for number, obj in read_jsonl(path):
        turn = dict(obj)
        user = turn.pop("user_id", None) or user_id
        session = turn.pop("session_id", None) or session_id
        if not user:
            raise ValidationError(f"{path}:{number}: no user_id on the line and none given")
        if (
            current is None
            or (current.user_id, current.session_id) != (user, session)
            or len(current.turns) >= batch_size
        ):
            if current is not None:
                yield current
            current = Batch(str(user), str(session), first_line=number)
        current.turns.append(turn)
    if current is not None:
        yield current


def count_lines(path: str | Path) -> int:
    """Non-blank lines of a text file (for progress bars)."""
    with Path(path).open("rb") as fh:
        return sum(1 for line in fh if line.strip())
