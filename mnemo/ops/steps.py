"""Progress of the maintenance commands' steps: a bar per step, or none."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

#: Reports that ``n`` more rows of a step are done.
Advance = Callable[[int], None]
#: Opens a progress bar for a step: (label, total rows) -> a context yielding ``advance``.
ProgressFactory = Callable[[str, int], AbstractContextManager[Advance]]


def step_bar(
    factory: ProgressFactory | None, label: str, total: int
) -> AbstractContextManager[Advance]:
    """The bar of one step from ``factory``; a silent one without a factory."""
    if factory is None:
        return nullcontext(lambda n: None)
    return factory(label, total)


__all__ = ["Advance", "ProgressFactory", "step_bar"]
