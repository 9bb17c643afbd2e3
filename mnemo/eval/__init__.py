"""Retrieval evaluation on public long-conversation benchmarks (no LLM involved).

Each benchmark module has three steps, so one ingest can serve many evaluations (ablations open
a new ``Memory(path, **overrides)`` over the same database file with other search settings):

* ``load_*(path) -> dataset``: parse and clean the file into dataclasses;
* ``ingest_*(mem, dataset, progress) -> IngestStats``: write the turns through ``Memory``;
* ``evaluate_*(mem, dataset, ks, progress) -> Report``: search every question and score it.

Modules: :mod:`mnemo.eval.metrics` (pure metric functions), :mod:`mnemo.eval.locomo`,
:mod:`mnemo.eval.longmemeval`, :mod:`mnemo.eval.report` and :mod:`mnemo.cli.eval`
(``mnemo eval locomo|longmemeval --data FILE``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from mnemo.errors import MnemoError

if TYPE_CHECKING:
    from mnemo.memory.facade import Memory

#: Most turns one user may hold for :func:`ingest_state` to count them exactly.
MAX_USER_TURNS = 10_000


class DatasetError(MnemoError, ValueError):
    """A benchmark file is missing, is not JSON, or does not have the expected shape."""


def read_json(path: str | Path) -> Any:
    """The parsed JSON of ``path``; DatasetError (one line) when missing or malformed."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DatasetError(f"data file not found: {p}") from None
    except IsADirectoryError:
        raise DatasetError(f"data path is a directory, not a file: {p}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"cannot read data file {p}: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"data file {p} is not valid JSON: {exc}") from None


def need(obj: Any, key: str, kind: type | tuple[type, ...], where: str, fmt: str) -> Any:
    """``obj[key]`` when ``obj`` is a dict holding a ``kind`` there; DatasetError otherwise."""
    if not isinstance(obj, dict) or key not in obj:
        raise DatasetError(f"not {fmt} format: {where} has no {key!r}")
    if not isinstance(obj[key], kind):
        raise DatasetError(f"not {fmt} format: {where}.{key} has the wrong type")
    return obj[key]


def ingest_state(
    mem: Memory, expected: Mapping[str, int]
) -> Literal["empty", "complete", "partial"]:
    """Whether ``mem`` holds none, all, or some of a dataset's turns.

    ``expected`` maps each user id to the number of turns the dataset gives it. "complete" means
    every user holds exactly that many turns; "empty" that none holds any; anything else
    (another dataset's users are ignored) is "partial".
    """
    held = {u: len(mem.messages(user_id=u, limit=MAX_USER_TURNS)) for u in expected}
    if all(n == 0 for n in held.values()):
        return "empty"
    if all(held[u] == n for u, n in expected.items()):
        return "complete"
    return "partial"


__all__ = ["DatasetError", "ingest_state", "need", "read_json"]
