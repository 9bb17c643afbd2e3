"""The bounded number types that settings share, each bound written once.

A setting whose value is one of these kinds takes the type instead of repeating its bounds::

    neighbor_weight: Share = Field(0.3, description="...")

is ``Field(0.3, ge=0, le=1, description="...")``: the same field, schema and error messages.
A setting with bounds of its own (``port``, ``window_max_turns``) keeps them on its ``Field``.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

#: A number in [0, 1]: a weight of one side against another, a share, a probability, an
#: importance or a threshold on one of those.
Share = Annotated[float, Field(ge=0, le=1)]

#: A threshold on a cosine similarity: a number in [-1, 1].
Cosine = Annotated[float, Field(ge=-1, le=1)]

#: A factor of at least 0 with no upper bound; 0 turns off what it weighs.
Weight = Annotated[float, Field(ge=0)]

#: A number above 0: a duration, a timeout, an interval or a decay constant.
Positive = Annotated[float, Field(gt=0)]

#: A whole number of at least 0: a count or a limit that may be none.
Count = Annotated[int, Field(ge=0)]

#: A whole number of at least 1: a size, a limit or a count that cannot be none.
Size = Annotated[int, Field(ge=1)]

#: Retries of a failed network request: 0 to 20.
Retries = Annotated[int, Field(ge=0, le=20)]

__all__ = ["Cosine", "Count", "Positive", "Retries", "Share", "Size", "Weight"]
