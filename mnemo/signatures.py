"""Functions whose parameters are built at run time: :func:`with_params`.

A surface whose arguments are a request model's fields (an MCP tool, a CLI command; see
:meth:`mnemo.search_query.CheckedModel.parameters`) takes them as ``**fields``. The framework
reads the parameters from the function's signature and annotations (``inspect.signature``,
``typing.get_type_hints``); :func:`with_params` gives it those: the built parameters first,
then the function's own, so a new field of the model is a new argument of the surface with no
edit of it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

KEYWORD = inspect.Parameter.KEYWORD_ONLY
#: The default of a required parameter.
REQUIRED = inspect.Parameter.empty


def keyword(name: str, annotation: Any, default: Any = REQUIRED) -> inspect.Parameter:
    """A keyword parameter ``name: annotation = default`` (required without a default)."""
    return inspect.Parameter(name, KEYWORD, annotation=annotation, default=default)


def with_params(
    params: Sequence[inspect.Parameter], *, after: str | None = None, at_end: bool = False
) -> Callable[[F], F]:
    """A decorator giving a function that takes ``**fields`` the signature with ``params``:
    first (a method's ``self`` stays first), or right after its own parameter ``after``, or
    with ``at_end`` after all of its own; one it names itself is not built again. Every
    parameter from the built ones on is keyword-only, and the annotations match; the call
    still gets the built ones in ``**fields``."""

    def build(fn: F) -> F:
        signature = inspect.signature(fn, eval_str=True)
        own = [p for p in signature.parameters.values() if p.kind != p.VAR_KEYWORD]
        names = [p.name for p in own]
        made = [p for p in params if p.name not in names]
        if after is not None:
            at = names.index(after) + 1
        elif at_end:
            at = len(own)
        else:
            at = 1 if names[:1] == ["self"] else 0
        tail = [p.replace(kind=KEYWORD) for p in (*made, *own[at:])]
        signature = signature.replace(parameters=[*own[:at], *tail])
        annotations = {
            p.name: p.annotation
            for p in signature.parameters.values()
            if p.name != "self" and p.annotation is not REQUIRED
        }
        annotations["return"] = signature.return_annotation
        target: Any = fn
        target.__signature__ = signature
        target.__annotations__ = annotations
        return fn

    return build


__all__ = ["REQUIRED", "keyword", "with_params"]
