"""A user whose memories hold one finding of each kind, for the audit tests of every surface."""

from __future__ import annotations

from mnemo import Memory

#: The facts written by hand (content, said at), oldest first.
FACTS = (
    ("User lives in Berlin", "2024-01-01T10:00:00Z"),
    ("User loves jazz", "2024-02-01T10:00:00Z"),
    ("user loves jazz.", "2024-02-02T10:00:00Z"),
    ("User really loves jazz", "2024-02-03T10:00:00Z"),
    ("User is from Leeds", "2024-03-01T10:00:00Z"),
    ("User is from York", "2024-03-02T10:00:00Z"),
    ("User is doing good", "2024-04-01T10:00:00Z"),
    ("Does the user like tea?", "2024-04-02T10:00:00Z"),
    ("User lives in Madrid", "2024-05-01T10:00:00Z"),
    ("User adopted a cat named Miso", "2024-05-02T10:00:00Z"),
)


def seed(mem: Memory, user_id: str = "u1") -> dict[str, str]:
    """Write :data:`FACTS` for ``user_id``; their ids by content."""
    return {text: mem.add(text, user_id=user_id, created_at=at).id for text, at in FACTS}


#: What the audit of :func:`seed`'s user finds: (kind, detail, safe) per finding.
EXPECTED = {
    ("junk", "no content word", True),
    ("junk", "question", False),
    ("duplicate", "3 exact copies", True),
    ("stale", "home: Berlin -> Madrid", True),
    ("contradiction", "origin: Leeds -> York", False),
}
#: The contents left after ``fix=True``.
AFTER_FIX = {
    "User loves jazz",
    "User is from Leeds",
    "User is from York",
    "Does the user like tea?",
    "User lives in Madrid",
    "User adopted a cat named Miso",
}
