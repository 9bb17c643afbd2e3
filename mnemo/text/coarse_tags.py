"""Coarse parts of speech from the model's own attribute rules, read as a lookup.

``en_core_web_sm`` sets the coarse part of speech (a token's ``pos_``: ``VERB``, ``AUX``,
``PROPN``...) in its ``attribute_ruler`` pipe: about 130 single-token rules over the fine tag,
the lower-cased word and the dependency label (``TAG == "VBZ" and LOWER == "has"`` gives
``AUX``), plus one two-token rule (a copula after an expletive "there" is a ``VERB``). Later
rules win. Run as a spaCy ``Matcher``, that pipe costs as much per turn as the parser itself.

:class:`CoarseTags` compiles the same rules, read from the loaded pipe (nothing is copied into
this module), and caches the answer per key::

    key(token) = (tag, lower if some rule names it else "",
                  dep, is_space, previous dep if some rule names it else "")

A rule of two tokens may test only the dependency label of the token before the one it sets
(the model's one such rule does); any other shape is refused with :class:`ValueError`, and
the caller then keeps the pipe. So every rule's outcome depends only on the key, and the cache
gives exactly the pipe's answer;
the dev turns hold fewer than a thousand distinct keys. ``tests/text/test_coarse_tags.py``
checks the result token by token against the pipe itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: Token attributes a compiled rule may test.
_ATTRS = ("TAG", "LOWER", "DEP", "IS_SPACE")


@dataclass(frozen=True)
class _Test:
    """One attribute test of a rule token: ``value == want``, ``in want`` or ``not in want``."""

    op: str
    want: Any

    def __call__(self, value: Any) -> bool:
        if self.op == "eq":
            return bool(value == self.want)
        return (value in self.want) if self.op == "in" else (value not in self.want)

    @classmethod
    def of(cls, spec: Any) -> _Test | None:
        """The test of a pattern value: ``"VBZ"``, ``{"IN": [...]}`` or ``{"NOT_IN": [...]}``."""
        if spec is None:
            return None
        if isinstance(spec, str | bool):
            return cls("eq", spec)
        if set(spec) == {"IN"}:
            return cls("in", frozenset(spec["IN"]))
        if set(spec) == {"NOT_IN"}:
            return cls("not_in", frozenset(spec["NOT_IN"]))
        raise ValueError(f"unsupported attribute-rule test: {spec!r}")


_Tests = tuple[_Test | None, ...]


@dataclass(frozen=True)
class _Rule:
    """A pattern that sets ``pos`` on its token at ``index``; ``order`` is its rank (later wins)."""

    order: int
    tokens: tuple[_Tests, ...]
    index: int
    pos: str

    def matches(self, doc: Any, i: int) -> bool:
        start = i - self.index
        if start < 0 or start + len(self.tokens) > len(doc):
            return False
        for offset, tests in enumerate(self.tokens):
            t = doc[start + offset]
            values = (t.tag_, t.lower_, t.dep_, t.is_space)
            if not all(test is None or test(v) for test, v in zip(tests, values, strict=True)):
                return False
        return True


class CoarseTags:
    """Sets each token's ``pos_`` as the model's ``attribute_ruler`` would, by a cached lookup."""

    def __init__(self, patterns: Iterable[Mapping[str, Any]]) -> None:
        """Compile the ``POS`` rules of that pipe's ``patterns`` (other attributes unread)."""
        self._rules: list[_Rule] = []
        self._lowers: set[str] = set()
        self._before: set[str] = set()
        for order, entry in enumerate(patterns):
            pos = entry["attrs"].get("POS")
            if pos is None:
                continue
            for pattern in entry["patterns"]:
                index = entry.get("index", 0)
                if len(pattern) > 1:
                    self._previous_dep(pattern, index)
                self._rules.append(_Rule(order, self._compile(pattern), index, pos))
        self._cache: dict[tuple[Any, ...], str | None] = {}

    def _previous_dep(self, pattern: Sequence[Mapping[str, Any]], index: int) -> None:
        """Accept a two-token rule that tests only the previous token's dependency label."""
        if len(pattern) != 2 or index != 1 or set(pattern[0]) != {"DEP"}:
            raise ValueError(f"unsupported attribute-rule shape: {list(pattern)!r}")
        dep = pattern[0]["DEP"]
        if isinstance(dep, str):
            self._before.add(dep)
        elif isinstance(dep, Mapping) and set(dep) == {"IN"}:
            self._before.update(dep["IN"])
        else:
            raise ValueError(f"unsupported attribute-rule test: {dep!r}")

    def _compile(self, pattern: Sequence[Mapping[str, Any]]) -> tuple[_Tests, ...]:
        tokens = []
        for token in pattern:
            unknown = set(token) - set(_ATTRS)
            if unknown:
                raise ValueError(f"unsupported attribute-rule attributes: {sorted(unknown)}")
            lower = token.get("LOWER")
            if isinstance(lower, str):
                self._lowers.add(lower)
            elif isinstance(lower, Mapping):
                self._lowers.update(*lower.values())
            tokens.append(tuple(_Test.of(token.get(a)) for a in _ATTRS))
        return tuple(tokens)

    def _pos(self, doc: Any, i: int) -> str | None:
        best: _Rule | None = None
        for rule in self._rules:
            if (best is None or rule.order >= best.order) and rule.matches(doc, i):
                best = rule
        return None if best is None else best.pos

    def __call__(self, doc: Any) -> Any:
        """Set the coarse tag of every token of ``doc`` (in place) and return it."""
        before = ""
        for t in doc:
            lower, dep = t.lower_, t.dep_
            key = (t.tag_, lower if lower in self._lowers else "", dep, t.is_space, before)
            pos = self._cache.get(key, "")
            if pos == "":
                pos = self._cache[key] = self._pos(doc, t.i)
            before = dep if dep in self._before else ""
            if pos is not None:
                t.pos_ = pos
        return doc


__all__ = ["CoarseTags"]
