"""Reading conversations from files into batches for ``Memory.add_messages``, and
:func:`import_jsonl`, the checked, resumable import of a JSONL file.

JSONL: one turn per line, ``{"role", "content", "name"?, "created_at"?, "metadata"?,
"user_id"?, "session_id"?}``. Consecutive lines of one (user, session) form a batch of at most
``batch_size`` turns. A malformed line raises ValidationError naming its line number.

An undated line takes its time from the dated lines of its own (user, session) in the file
(the previous one's time + a second, or the next one's - a second: :func:`session_times`), not
from the batch it happens to be written in: a stray line of another session in between, or a
batch boundary, does not leave the rest of a session stamped with the import's wall clock. A
file where some lines name a ``session_id`` and others do not is worth a warning
(:func:`lines_without_session`): those lines go to the default session.

:func:`import_jsonl` is safe to re-run:

* **checked first**: the whole file is read and every turn validated (JSON, role, content
  length, metadata, ids, times) before the first one is written, so a bad line 251 writes
  nothing, not 200 turns;
* **idempotent and resumable**: each turn is stored under an id derived from the tenant, its
  user and session, the file's name, its line number and its content (:func:`turn_id`). A
  re-run, after a kill or after fixing a line, skips the turns already stored and writes the
  rest, so the store ends with one row per line however often it ran. Each batch is one
  transaction, so a kill loses at most the batch in flight, which the re-run writes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from mnemo import validation as check
from mnemo.errors import ValidationError
from mnemo.ids import MESSAGE_PREFIX, stable_id
from mnemo.schemas import bounded_time, fill_times, format_time, utcnow


@dataclass
class Batch:
    """Turns of one user and session, ready for ``add_messages``; ``lines`` are their line
    numbers in the file."""

    user_id: str
    session_id: str
    turns: list[dict[str, Any]] = field(default_factory=list)
    first_line: int = 0
    lines: list[int] = field(default_factory=list)


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


def line_owner(
    turn: dict[str, Any], user_id: str | None, session_id: str, where: str
) -> tuple[str, str]:
    """The (user, session) of one line, taking ``user_id`` and ``session_id`` out of ``turn``
    (the given ones where the line names none); ValidationError when there is no user."""
    user = turn.pop("user_id", None) or user_id
    session = turn.pop("session_id", None) or session_id
    if not user:
        raise ValidationError(f"{where}: no user_id on the line and none given")
    return user, session


def jsonl_batches(
    path: str | Path, user_id: str | None, session_id: str, batch_size: int = 100
) -> Iterator[Batch]:
    """Batches of turns from a JSONL file; ``user_id`` is used where a line names none."""
    current: Batch | None = None
    for number, obj in read_jsonl(path):
        turn = dict(obj)
        user, session = line_owner(turn, user_id, session_id, f"{path}:{number}")
        if (
            current is None
            or (current.user_id, current.session_id) != (user, session)
            or len(current.turns) >= batch_size
        ):
            if current is not None:
                yield current
            current = Batch(str(user), str(session), first_line=number)
        current.turns.append(turn)
        current.lines.append(number)
    if current is not None:
        yield current


def session_times(path: str | Path, user_id: str | None, session_id: str) -> dict[int, str]:
    """line number -> the time an undated line is imported with, for the undated lines whose
    (user, session) has a dated line anywhere in the file: :func:`~mnemo.schemas.fill_times`
    over that session's lines in file order. Undated lines of a session with no dated line are
    left out (they are stamped when written). Call after the lines are checked.
    """
    sessions: dict[tuple[str, str], list[tuple[int, datetime | None]]] = {}
    for number, obj in read_jsonl(path):
        turn = dict(obj)
        owner = line_owner(turn, user_id, session_id, f"{path}:{number}")
        at = turn.get("created_at")
        dated = None if at is None else bounded_time(at)
        sessions.setdefault(owner, []).append((number, dated))
    out: dict[int, str] = {}
    for lines in sessions.values():
        if all(at is None for _, at in lines):
            continue
        filled = fill_times([at for _, at in lines], utcnow())
        for (number, at), time in zip(lines, filled, strict=True):
            if at is None:
                out[number] = format_time(time)
    return out


def lines_without_session(path: str | Path) -> list[int]:
    """The lines with no ``session_id`` when other lines of the file have one (they go to the
    default session, probably by mistake); empty when all lines or none name a session."""
    named, unnamed = 0, []
    for number, obj in read_jsonl(path):
        if obj.get("session_id"):
            named += 1
        else:
            unnamed.append(number)
    return unnamed if named else []


def describe_lines(lines: Sequence[int], shown: int = 10) -> str:
    """``lines 2, 7 and 9``; at most ``shown`` numbers, then how many more.

    >>> describe_lines([3])
    'line 3'
    >>> describe_lines(list(range(1, 14)), shown=3)
    'lines 1, 2, 3 and 10 more'
    """
    if len(lines) == 1:
        return f"line {lines[0]}"
    head = ", ".join(str(n) for n in lines[:shown])
    if len(lines) > shown:
        return f"lines {head} and {len(lines) - shown} more"
    first, _, last = head.rpartition(", ")
    return f"lines {first} and {last}"


def count_lines(path: str | Path) -> int:
    """Non-blank lines of a text file (for progress bars)."""
    with Path(path).open("rb") as fh:
        return sum(1 for line in fh if line.strip())


def turn_id(tenant: str, batch: Batch, index: int, source: str) -> str:
    """The id turn ``index`` of ``batch`` is imported under: a hash of the tenant, user,
    session, the file's name ``source``, the turn's line number and its content (the line as
    canonical JSON). The same line of the same file gets the same id on every run; two files
    of different names never share one."""
    turn = batch.turns[index]
    content = json.dumps(turn, sort_keys=True, ensure_ascii=True).encode("ascii")
    digest = hashlib.sha256(content).hexdigest()
    parts = (tenant, batch.user_id, batch.session_id, source, str(batch.lines[index]), digest)
    return stable_id(MESSAGE_PREFIX, "import", *parts)


def check_batch(batch: Batch, path: str | Path, max_chars: int) -> None:
    """ValidationError naming ``path:line`` for the first turn of ``batch`` that
    ``add_messages`` would refuse (bad role, content, metadata, time, ids)."""
    for line, turn in zip(batch.lines, batch.turns, strict=True):
        try:
            check.identifier(batch.user_id, "user_id")
            check.identifier(batch.session_id, "session_id")
            check.messages([turn], max_chars)
            check.json_value(turn.get("metadata"), "metadata")  # lone surrogates, NaN: any depth
        except ValidationError as exc:
            reason = str(exc).removeprefix("messages[0].").removeprefix("messages[0] ")
            raise ValidationError(f"{path}:{line}: {reason}") from None


class TurnSink(Protocol):
    """Where :func:`import_jsonl` writes: a Memory (its ``add_messages`` with chosen ids)."""

    tenant: str

    def add_messages(
        self,
        messages: Sequence[dict[str, Any]],
        user_id: str,
        session_id: str = "default",
        progress: Callable[[int], None] | None = None,
        *,
        ids: Sequence[str] | None = None,
    ) -> list[str]:
        """Store turns in one transaction under ``ids``."""
        ...


@dataclass
class ImportCount:
    """What :func:`import_jsonl` did: turns written, and turns already stored (skipped)."""

    written: int = 0
    skipped: int = 0

    @property
    def total(self) -> int:
        """Turns in the file."""
        return self.written + self.skipped


def import_jsonl(
    sink: TurnSink,
    stored: Callable[[list[str]], set[str]],
    path: str | Path,
    user_id: str | None,
    session_id: str,
    batch_size: int,
    max_chars: int,
    progress: Callable[[int], None] | None = None,
    warn: Callable[[str], None] | None = None,
) -> ImportCount:
    """Import a JSONL file of turns into ``sink``: every line checked first, then each batch
    written in one transaction under :func:`turn_id` ids, skipping the turns ``stored`` says
    are in already; undated lines get their session's time (:func:`session_times`). ``warn``
    gets one line, before anything is written, when some lines name no session while others
    do. See the module docstring."""
    advance = progress or (lambda n: None)
    for batch in jsonl_batches(path, user_id, session_id, batch_size):
        check_batch(batch, path, max_chars)
    unnamed = lines_without_session(path)
    if unnamed and warn is not None:
        warn(
            f"{path}: no session_id on {describe_lines(unnamed)} while the other lines have "
            f"one; imported into session {session_id!r}"
        )
    times = session_times(path, user_id, session_id)
    source = Path(path).name
    count = ImportCount()
    in_flight: list[str] = []
    try:
        for batch in jsonl_batches(path, user_id, session_id, batch_size):
            ids = [turn_id(sink.tenant, batch, i, source) for i in range(len(batch.turns))]
            present = stored(ids)
            todo = [i for i, turn_id_ in enumerate(ids) if turn_id_ not in present]
            if len(todo) < len(ids):
                advance(len(ids) - len(todo))
            count.skipped += len(ids) - len(todo)
            in_flight = [ids[i] for i in todo]
            if todo:
                sink.add_messages(
                    [dated(batch.turns[i], times.get(batch.lines[i])) for i in todo],
                    user_id=batch.user_id,
                    session_id=batch.session_id,
                    progress=advance,
                    ids=in_flight,
                )
            count.written += len(todo)
            in_flight = []
    except KeyboardInterrupt:
        # the batch in flight was committed whole or rolled back whole: ask which
        count.written += len(stored(in_flight)) if in_flight else 0
        raise ImportInterrupted(count) from None
    return count


class ImportInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped :func:`import_jsonl`; ``count`` is what is stored by then (each batch is
    one transaction, so a re-run writes exactly the rest)."""

    def __init__(self, count: ImportCount) -> None:
        super().__init__(f"import interrupted after {count.written} turns")
        self.count = count


def dated(turn: dict[str, Any], time: str | None) -> dict[str, Any]:
    """``turn`` with ``created_at`` set to ``time`` when it has none (and a time is given)."""
    if time is None or turn.get("created_at") is not None:
        return turn
    return {**turn, "created_at": time}
