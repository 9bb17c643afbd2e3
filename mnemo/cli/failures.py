"""How a failed command ends: one red line on stderr and exit status 2, never a traceback.

:class:`OneLineErrors` is the click group of the ``mnemo`` app, so every command (and every
sub-app: ``keys``, ``eval``) goes through it: a :class:`~mnemo.errors.MnemoError` (bad input, a
store that cannot be opened), an ``OSError`` (a missing folder, a full disk, a path that is not
a folder), a ``UnicodeDecodeError`` (a binary file given as text) or a ``RecursionError`` (JSON
nested too deeply to parse) becomes :func:`describe`'s one line. So does a value click
refuses (``--limit abc``, a number out of its range, a missing option: a
``typer.BadParameter``), which typer would print as a usage box (:func:`refused`). Anything
else is a bug and keeps its traceback.
"""

from __future__ import annotations

import errno
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from mnemo.errors import MnemoError

#: The exceptions a command reports in one line.
EXPECTED: tuple[type[BaseException], ...] = (
    MnemoError,
    OSError,
    UnicodeDecodeError,
    RecursionError,
)


def describe(exc: BaseException) -> str:
    """The one-line message of an expected failure.

    >>> describe(FileNotFoundError(2, "No such file or directory", "out/dump.jsonl"))
    'out/dump.jsonl: No such file or directory'
    >>> describe(RecursionError("maximum recursion depth exceeded"))
    'the input is nested too deeply to read (maximum recursion depth exceeded)'
    """
    if isinstance(exc, UnicodeDecodeError):
        byte = exc.object[exc.start : exc.start + 1].hex()
        return f"the input is not UTF-8 text (byte 0x{byte} at offset {exc.start})"
    if isinstance(exc, RecursionError):
        return f"the input is nested too deeply to read ({exc})"
    if isinstance(exc, OSError) and exc.strerror:
        where = exc.filename if exc.filename is not None else None
        return f"{where}: {exc.strerror}" if where is not None else exc.strerror
    return " ".join(str(exc).split()) or type(exc).__name__


def report(exc: BaseException) -> typer.Exit:
    """Print ``exc`` as one red ``error:`` line on stderr; the exit to raise (status 2)."""
    Console(stderr=True).print(f"[bold red]error:[/] {escape(describe(exc))}", soft_wrap=True)
    return typer.Exit(2)


def refused(exc: typer.BadParameter) -> typer.Exit:
    """Print a value click refused as one red ``error:`` line naming the option and where
    its help is (click's own message: "Invalid value for '--limit': ..."); the exit to raise
    (status 2, as click's usage errors)."""
    where = f" (see `{exc.ctx.command_path} -h`)" if exc.ctx is not None else ""
    line = exc.format_message().rstrip(".") + where
    Console(stderr=True).print(f"[bold red]error:[/] {escape(line)}", soft_wrap=True)
    return typer.Exit(2)


class OneLineErrors(TyperGroup):
    """The ``mnemo`` group: a command's expected failure is one line and exit status 2."""

    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        """Run the command; see the module docstring for what is caught."""
        try:
            return super().invoke(ctx)
        except EXPECTED as exc:
            if isinstance(exc, BrokenPipeError) or getattr(exc, "errno", None) == errno.EPIPE:
                raise  # click ends quietly on a closed pipe (`mnemo export - | head`)
            raise report(exc) from None
        except typer.BadParameter as exc:
            raise refused(exc) from None


__all__ = ["EXPECTED", "OneLineErrors", "describe", "refused", "report"]
