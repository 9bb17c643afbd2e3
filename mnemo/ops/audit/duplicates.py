"""Near-duplicate facts: copies of one statement stored more than once.

Two live facts (of one agent view) are linked when

* ``exact``: their normal forms are equal (case, punctuation and spacing aside);
* ``near-exact``: their content words are equal, in order ("User really loves jazz" and
  "User loves jazz."; negations count as content, :mod:`mnemo.ops.audit.words`);
* ``similar``: the cosine of their stored vectors reaches ``threshold``: the fact tier's own
  ``fact_dedupe_threshold`` (0.90), the cosine at which it refuses a new fact as a copy of a
  stored one, so the audit finds the copies the tier would have refused had the two met
  (they came in one batch, or before the tier's checks); unless they give different values
  to one subject ("lives in Berlin" / "lives in Paris": a stale value or a contradiction,
  not a copy), one denies what the other says, or they are :func:`crossed` (two people,
  each naming the other: "Maria offered to help John" / "John appreciated Maria's offer");
* ``same subject``: they give the same value to one subject ("User lives in Leeds", "User
  moved to Leeds").

Each group of linked facts is one finding whose fix merges it: keep one, delete the others
with history. The fix is safe when the group is linked by exact and near-exact links alone;
a similar or same-subject group waits for a person. The one kept is the oldest of a safe
group, else the one with the most content words (the oldest of those).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mnemo.ops.audit.facts import Item, same_value
from mnemo.ops.audit.findings import Finding, Fix, finding
from mnemo.ops.audit.words import negated, words

#: Rows compared at a time by the cosine matrix (bounds its memory: block x n floats).
BLOCK = 512


class _Groups:
    """Union-find over item indexes."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def root(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def join(self, i: int, j: int) -> None:
        a, b = self.root(i), self.root(j)
        if a != b:
            self.parent[max(a, b)] = min(a, b)

    def groups(self) -> list[list[int]]:
        out: dict[int, list[int]] = {}
        for i in range(len(self.parent)):
            out.setdefault(self.root(i), []).append(i)
        return [g for g in out.values() if len(g) > 1]


def _names(text: str) -> list[str]:
    """The words of ``text`` with a possessive "'s" cut ("Nate's" -> "nate")."""
    return [w.removesuffix("'s") for w in words(text)]


def crossed(a: str, b: str) -> bool:
    """Whether two statements are about two people each naming the other ("Maria offered to
    help John" / "John was glad of Maria's help"): their first words differ and each is
    in the other statement. Such a pair is never a copy, however alike its words."""
    na, nb = _names(a), _names(b)
    if not na or not nb or na[0] == nb[0]:
        return False
    return na[0] in nb and nb[0] in na


def _differ(a: Item, b: Item) -> bool:
    """Whether two items say different things whatever their words' likeness: other
    values of one subject, one denies what the other says, or they are crossed."""
    if negated(a.text) != negated(b.text) or crossed(a.text, b.text):
        return True
    if a.subject and b.subject and a.slot == b.slot:
        return not same_value(a.subject[1], b.subject[1])
    return False


def similar_pairs(vectors: np.ndarray, threshold: float) -> list[tuple[int, int, float]]:
    """Pairs (i < j) of rows of ``vectors`` (unit rows) whose cosine reaches ``threshold``."""
    out: list[tuple[int, int, float]] = []
    n = len(vectors)
    for start in range(0, n, BLOCK):
        sims = vectors[start : start + BLOCK] @ vectors.T
        rows, cols = np.nonzero(sims >= threshold)
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
            i = start + r
            if i < c:
                out.append((i, c, float(sims[r, c])))
    return out


def _links(
    items: Sequence[Item], vectors: np.ndarray, threshold: float
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(safe links, review links) between items."""
    safe: list[tuple[int, int]] = []
    review: list[tuple[int, int]] = []
    by_text: dict[tuple[str, ...], int] = {}
    by_normal: dict[str, int] = {}
    by_subject: dict[tuple[str | None, str, str], int] = {}
    for i, it in enumerate(items):
        if it.normal in by_normal:
            safe.append((by_normal[it.normal], i))
        by_normal.setdefault(it.normal, i)
        if it.content and it.content in by_text:  # junk with no content word is not a copy
            safe.append((by_text[it.content], i))
        by_text.setdefault(it.content, i)
        if it.subject is not None:
            for (owner, subject, value), j in by_subject.items():
                if (owner, subject) == it.slot and same_value(value, it.subject[1]):
                    review.append((j, i))
                    break
            else:
                by_subject[(it.owner, *it.subject)] = i
    if len(vectors):
        for i, j, _ in similar_pairs(vectors, threshold):
            if not _differ(items[i], items[j]):
                review.append((i, j))
    return safe, review


def duplicates(
    user_id: str, items: Sequence[Item], vectors: np.ndarray, threshold: float
) -> list[Finding]:
    """One merge finding per group of duplicate facts among ``items`` (one agent view's
    live facts; ``vectors`` their unit vectors, row by row; empty: text links only)."""
    safe, review = _links(items, vectors, threshold)
    strict, loose = _Groups(len(items)), _Groups(len(items))
    for i, j in safe:
        strict.join(i, j)
        loose.join(i, j)
    for i, j in review:
        loose.join(i, j)
    out = []
    for group in loose.groups():
        members = sorted((items[i] for i in group), key=lambda it: (it.at, it.id))
        is_safe = all(strict.root(i) == strict.root(group[0]) for i in group)
        keep = members[0] if is_safe else max(members, key=lambda it: len(set(it.content)))
        how = "exact copies" if is_safe else "near-duplicates"
        fix = Fix(
            action="merge",
            keep=keep.id,
            remove=[m.id for m in members if m.id != keep.id],
            safe=is_safe,
            reason=f"keep {keep.id}, delete the other {len(members) - 1} with history",
        )
        detail = f"{len(members)} {how}"
        out.append(finding("duplicate", user_id, [(m.id, m.text) for m in members], detail, fix))
    return out


__all__ = ["BLOCK", "crossed", "duplicates", "similar_pairs"]
