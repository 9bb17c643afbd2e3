"""Delegation of a facade's public method to the service that implements it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def forward(
    service: str, method: Callable[Concatenate[Any, P], R]
) -> Callable[Concatenate[Any, P], R]:
    """A method that calls ``method`` on the instance's ``service`` attribute.

    The result keeps ``method``'s name, docstring and signature (``functools.wraps``), so
    ``help(Memory.add)`` shows the service's documentation::

        class Memory:
            add = forward("_records", Records.add)
    """

    def call(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return method(getattr(self, service), *args, **kwargs)

    functools.update_wrapper(call, method)
    return call
