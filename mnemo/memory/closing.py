"""Closing and AsyncClosing: ``with`` and ``async with`` over an object that close it on leaving.

mnemo's facades (``Memory``, ``AsyncMemory``) and the adapters' stores close the same way:
entering gives the object itself, leaving (with an error or not) calls its ``close()``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Self


class Closing(ABC):
    """``with obj:`` gives ``obj`` and calls ``obj.close()`` on leaving the block."""

    @abstractmethod
    def close(self) -> None:
        """Release what the object holds."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class AsyncClosing(ABC):
    """``async with obj:`` gives ``obj`` and awaits ``obj.close()`` on leaving the block."""

    @abstractmethod
    async def close(self) -> None:
        """Release what the object holds."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


__all__ = ["AsyncClosing", "Closing"]
