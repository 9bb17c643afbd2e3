"""Bad input: typed errors that name the problem, nothing half-written, and a search that no
query text can break.

Every rejected call is checked against a snapshot of the store (``stats()``, the FTS row
counts and a search for the probe word the bad input carried): a rejected call writes nothing.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mnemo import Memory
from mnemo.errors import MnemoError, NotFoundError, ValidationError
from mnemo.schemas import Hit

PROBE = "wobblewombat"  # a word in every rejected content; it must never become searchable
U1 = "u1"


class Seeded:
    """A store with a few turns and memories for two users, and the ids to refer to them.

    Seeding writes with fsync, so tests start from a copy of one seeded ``template`` file.
    """

    def __init__(self, path: Path, template: Seeded | None = None) -> None:
        self.path = str(path)
        if template is not None:
            for suffix in ("", "-wal"):
                if os.path.exists(template.path + suffix):
                    shutil.copyfile(template.path + suffix, self.path + suffix)
            self.mem = Memory(self.path, embedder="hashing")
            self.msg_ids, self.fact, self.gone = template.msg_ids, template.fact, template.gone
            return
        self.mem = Memory(self.path, embedder="hashing")
        self.msg_ids = self.mem.add_messages(
            [
                {"role": "user", "content": "The quick brown fox jumps over the lazy dog"},
                {"role": "assistant", "content": "I adopted a cat named Miso last spring"},
                {"role": "user", "content": "My favourite city is Lisbon, by the river"},
            ],
            user_id=U1,
            session_id="s1",
        )
        self.fact = self.mem.add("User is allergic to peanuts", user_id=U1, tags=["health"])
        self.gone = self.mem.add("User lived in Porto", user_id=U1)
        self.mem.delete(self.gone.id)
        self.mem.add_messages(
            [{"role": "user", "content": "secret plans for the heist"}], user_id="u2"
        )

    def fts_rows(self) -> tuple[int, int]:
        conn = sqlite3.connect(self.path)
        try:
            msgs, mems = (
                conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("messages_fts", "memories_fts")
            )
            return int(msgs), int(mems)
        finally:
            conn.close()

    def snapshot(self) -> tuple[Any, ...]:
        st = self.mem.stats()
        fact = self.mem.get(self.fact.id)
        return (
            st.users,
            st.sessions,
            st.messages,
            st.memories,
            st.jobs,
            self.fts_rows(),
            fact.model_dump(),
            len(self.mem.history(self.fact.id)),
        )

    def assert_unchanged(self, before: tuple[Any, ...]) -> None:
        assert self.snapshot() == before, "a rejected call changed the store"
        for user in (U1, "u2", "u3"):
            hits = self.mem.search(PROBE, user_id=user, limit=50)
            assert not any(PROBE in h.content for h in hits), "rejected content is searchable"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Seeded:
    s = Seeded(tmp_path_factory.mktemp("template") / "m.db")
    s.mem.close()
    return s


@pytest.fixture
def seeded(tmp_path: Path, template: Seeded) -> Iterator[Seeded]:
    s = Seeded(tmp_path / "m.db", template)
    yield s
    s.mem.close()


def rejects(
    seeded: Seeded, call: Callable[[Memory], Any], exc: type[MnemoError], match: str
) -> MnemoError:
    """``call`` raises ``exc`` (a MnemoError) whose message matches, and writes nothing."""
    before = seeded.snapshot()
    with pytest.raises(exc, match=match) as info:
        call(seeded.mem)
    assert isinstance(info.value, MnemoError)
    seeded.assert_unchanged(before)
    return info.value


def turn(content: Any = f"hello {PROBE}", **extra: Any) -> dict[str, Any]:
    return {"role": "user", "content": content, **extra}


class Unserialisable:
    pass


# ---- add_messages ----------------------------------------------------------------------------


def _deep(depth: int) -> dict[str, Any]:
    d: dict[str, Any] = {}
    for _ in range(depth):
        d = {"a": d}
    return d


BAD_TURNS = [
    pytest.param([turn("")], "content must not be empty", id="empty-content"),
    pytest.param([turn(" \n\t \u3000 ")], "content must not be empty", id="whitespace-content"),
    pytest.param(
        [turn(f"{PROBE} " * (2**20 // len(PROBE)))],
        r"content has [\d,]+ characters",
        id="1MB-content",
    ),
    pytest.param([turn(42)], "content must be a string, got int", id="int-content"),
    pytest.param([turn(None)], "content must be a string, got NoneType", id="none-content"),
    pytest.param([turn(f"nul \x00 {PROBE}")], "NUL", id="nul-in-content"),
    pytest.param(
        [{"role": "wizard", "content": PROBE}], r"role must be one of .*'wizard'", id="unknown-role"
    ),
    pytest.param([{"content": PROBE}], "role must be one of", id="missing-role"),
    pytest.param(
        [turn(created_at="yesterday-ish")],
        "created_at: cannot parse 'yesterday-ish'",
        id="unparseable-created_at",
    ),
    pytest.param(
        [turn(created_at=[2024, 1, 1])], "created_at: expected ISO-8601", id="list-created_at"
    ),
    pytest.param(
        [turn(created_at=True)],
        "created_at: expected a timestamp, got a boolean",
        id="bool-created_at",
    ),
    pytest.param(
        [turn(created_at=float("inf"))],
        "created_at: epoch seconds out of range",
        id="inf-created_at",
    ),
    pytest.param(
        [turn(created_at="9999-12-31T23:00:00-14:00")],
        "created_at",
        id="created_at-after-year-9999-in-utc",
    ),
    pytest.param(
        [turn(created_at="0001-01-01T00:00:00+05:00")],
        "created_at",
        id="created_at-before-year-1-in-utc",
    ),
    pytest.param(
        [turn(metadata={"when": Unserialisable()})],
        r"metadata\S* is not JSON-serialisable",
        id="unserialisable-metadata",
    ),
    pytest.param(
        [turn(metadata={"tags": {"a", "b"}})],
        r"metadata\S* is not JSON-serialisable",
        id="set-in-metadata",
    ),
    pytest.param(
        [turn(metadata=["not", "a", "dict"])],
        "metadata must be an object, got list",
        id="list-metadata",
    ),
    pytest.param([turn(metadata=_deep(5000))], "metadata", id="deeply-nested-metadata"),
    pytest.param([turn(name=7)], r"messages\[0\].name must be a string", id="int-name"),
    pytest.param([turn(mood="happy")], r"messages\[0\].mood: Extra inputs", id="unknown-field"),
    pytest.param(turn(), "messages must be a list", id="dict-not-list"),
    pytest.param(PROBE, "messages must be a list", id="str-not-list"),
    pytest.param(42, "messages must be a list", id="int-not-list"),
    pytest.param(None, "messages must be a list", id="none-not-list"),
    pytest.param([], "messages must not be empty", id="empty-list"),
    pytest.param([PROBE], r"messages\[0\] must be an object, got str", id="str-item"),
    pytest.param(
        [
            turn(f"first good turn {PROBE}"),
            {"role": "assistant", "content": f"second {PROBE}"},
            {"role": "robot", "content": f"third {PROBE}"},
        ],
        r"messages\[2\]\.role",
        id="only-third-of-three-bad",
    ),
    pytest.param(
        [turn(f"first good turn {PROBE}"), turn(f"second {PROBE}"), turn("   ")],
        r"messages\[2\]\.content must not be empty",
        id="only-third-of-three-empty",
    ),
    pytest.param(
        [turn(f"lone surrogate \udcff {PROBE}")],
        "content",
        id="surrogate-content",
    ),
    pytest.param([turn(name="bad\ud800name")], "name", id="surrogate-name"),
]


@pytest.mark.parametrize(("messages", "match"), BAD_TURNS)
def test_add_messages_rejects_bad_turns(seeded: Seeded, messages: Any, match: str) -> None:
    rejects(
        seeded,
        lambda m: m.add_messages(messages, user_id=U1, session_id="s1"),
        ValidationError,
        match,
    )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        pytest.param({"user_id": 42}, "user_id must be a string, got int", id="int-user"),
        pytest.param({"user_id": None}, "a user_id or agent_id is required", id="none-user"),
        pytest.param({"user_id": ["u1"]}, "user_id must be a string, got list", id="list-user"),
        pytest.param({"user_id": "  "}, "user_id must not be empty", id="blank-user"),
        pytest.param({"user_id": "x" * 257}, "user_id is longer than 256", id="long-user"),
        pytest.param(
            {"user_id": U1, "session_id": 3},
            "session_id must be a string, got int",
            id="int-session",
        ),
        pytest.param(
            {"user_id": U1, "session_id": ""}, "session_id must not be empty", id="empty-session"
        ),
        pytest.param({"user_id": "u\udcff"}, "user_id", id="surrogate-user"),
        pytest.param(
            {"user_id": U1, "session_id": "s\udcff"},
            "session_id",
            id="surrogate-session",
        ),
    ],
)
def test_add_messages_rejects_bad_ids(seeded: Seeded, kwargs: dict[str, Any], match: str) -> None:
    rejects(seeded, lambda m: m.add_messages([turn()], **kwargs), ValidationError, match)


def test_rejected_batch_then_good_batch_continues_seq(seeded: Seeded) -> None:
    """After a rejected batch the session's seq has no gap: nothing was reserved."""
    rejects(
        seeded,
        lambda m: m.add_messages(
            [turn("ok one"), turn("ok two"), turn("")], user_id=U1, session_id="s1"
        ),
        ValidationError,
        r"messages\[2\]",
    )
    ids = seeded.mem.add_messages([turn("now a good one")], user_id=U1, session_id="s1")
    assert seeded.mem.get(ids[0]).seq == 4


def test_created_at_before_year_1000_is_stored_or_rejected_by_its_own_value(seeded: Seeded) -> None:
    given = "0999-06-01T00:00:00Z"
    try:
        ids = seeded.mem.add_messages([turn("ancient history", created_at=given)], user_id=U1)
    except ValidationError as exc:
        assert given in str(exc), str(exc)
    else:
        assert seeded.mem.get(ids[0]).created_at.year == 999


def test_memory_content_with_a_lone_surrogate_is_rejected(seeded: Seeded) -> None:
    rejects(seeded, lambda m: m.add(f"lone \udcff {PROBE}", user_id=U1), ValidationError, "content")


BAD = "lone \ud800 surrogate"
SURROGATE_CALLS = [
    pytest.param(
        lambda m: m.add(PROBE, user_id=U1, metadata={BAD: 1}), "metadata", id="metadata-key"
    ),
    pytest.param(
        lambda m: m.add(PROBE, user_id=U1, metadata={"k": {"deep": [BAD]}}),
        r"metadata\.k\.deep\[0\]",
        id="metadata-nested-value",
    ),
    pytest.param(lambda m: m.add(PROBE, user_id=U1, tags=["ok", BAD]), r"tags\[1\]", id="tag"),
    pytest.param(
        lambda m: m.add_messages([turn(metadata={"note": BAD})], user_id=U1),
        r"messages\[0\]\.metadata\.note",
        id="turn-metadata",
    ),
    pytest.param(lambda m: m.search(BAD, user_id=U1), "query", id="search-query"),
    pytest.param(lambda m: m.context(BAD, user_id=U1), "query", id="context-query"),
    pytest.param(
        lambda m: m.context(PROBE, user_id=U1, location=BAD), "location", id="context-location"
    ),
    pytest.param(lambda m: m.list(U1, tag=BAD), "tag", id="list-tag-filter"),
    pytest.param(
        lambda m: m.attach_document(f"doc {PROBE}", U1, metadata={"x": BAD}),
        "metadata",
        id="document-metadata",
    ),
    pytest.param(lambda m: m.search_topics(BAD, U1), "query", id="topic-search-query"),
    pytest.param(
        lambda m: m.add(PROBE, user_id=U1, metadata={"n": float("nan")}),
        "metadata",
        id="nan-in-metadata",
    ),
    pytest.param(
        lambda m: m.add(PROBE, user_id=U1, metadata={"k": "nul \x00"}), "NUL", id="nul-in-metadata"
    ),
    pytest.param(lambda m: m.add(PROBE, user_id=U1, tags=["a\x00b"]), "NUL", id="nul-in-tag"),
]


LIMIT_CALLS = [
    pytest.param(
        lambda m: m.add(PROBE, user_id=U1, metadata={"k": "x" * 70_000}),
        "max_metadata_bytes",
        id="metadata-bytes",
    ),
    pytest.param(
        lambda m: m.add(PROBE, user_id=U1, tags=[str(i) for i in range(100_000)]),
        "max_tags",
        id="tag-count",
    ),
    pytest.param(
        lambda m: m.add(PROBE, user_id=U1, tags=["t" * 5_000_000]), "max_tag_chars", id="tag-size"
    ),
    pytest.param(
        lambda m: m.add_messages([turn(metadata={"k": "é" * 40_000})], user_id=U1),
        "max_metadata_bytes",
        id="turn-metadata-bytes",
    ),
    pytest.param(
        lambda m: m.attach_document(PROBE, U1, metadata={"k": "x" * 70_000}),
        "max_metadata_bytes",
        id="document-metadata-bytes",
    ),
    pytest.param(
        lambda m: m.update(m.list(U1, tag="health")[0].id, tags=["t"] * 101),
        "max_tags",
        id="update-tags",
    ),
]


@pytest.mark.parametrize(("call", "match"), LIMIT_CALLS)
def test_size_limits_name_their_setting(
    seeded: Seeded, call: Callable[[Memory], Any], match: str
) -> None:
    rejects(seeded, call, ValidationError, match)


@pytest.mark.parametrize(("call", "match"), SURROGATE_CALLS)
def test_invalid_text_is_rejected_at_every_entry_point(
    seeded: Seeded, call: Callable[[Memory], Any], match: str
) -> None:
    rejects(seeded, call, ValidationError, match)


def test_update_rejects_invalid_text_in_tags_and_metadata(seeded: Seeded) -> None:
    fact = seeded.fact.id
    rejects(seeded, lambda m: m.update(fact, tags=[BAD]), ValidationError, r"tags\[0\]")
    rejects(seeded, lambda m: m.update(fact, metadata={BAD: 1}), ValidationError, "metadata")


# ---- get / update / delete / history ---------------------------------------------------------
@pytest.mark.parametrize("op", ["get", "update", "delete", "history"])
@pytest.mark.parametrize("bad_id", ["mem_01nosuchmemory0000000000", "nonsense", ""])
def test_unknown_ids_raise_not_found(seeded: Seeded, op: str, bad_id: str) -> None:
    calls: dict[str, Callable[[Memory], Any]] = {
        "get": lambda m: m.get(bad_id),
        "update": lambda m: m.update(bad_id, content=f"new {PROBE}"),
        "delete": lambda m: m.delete(bad_id),
        "history": lambda m: m.history(bad_id),
    }
    err = rejects(seeded, calls[op], NotFoundError, "no memory")
    assert repr(bad_id) in str(err)
    assert isinstance(err, KeyError)


def test_unknown_message_id_to_get_raises_not_found(seeded: Seeded) -> None:
    rejects(
        seeded,
        lambda m: m.get("msg_01nosuchmessage000000000"),
        NotFoundError,
        "no memory or message with id 'msg_01nosuchmessage000000000'",
    )


@pytest.mark.parametrize("op", ["update", "delete", "history"])
def test_message_ids_cannot_be_edited(seeded: Seeded, op: str) -> None:
    msg_id = seeded.msg_ids[0]
    calls: dict[str, Callable[[Memory], Any]] = {
        "update": lambda m: m.update(msg_id, content=f"rewritten {PROBE}"),
        "delete": lambda m: m.delete(msg_id),
        "history": lambda m: m.history(msg_id),
    }
    rejects(seeded, calls[op], ValidationError, "messages are the event log")
    assert seeded.mem.get(msg_id).content == "The quick brown fox jumps over the lazy dog"


@pytest.mark.parametrize("op", ["update", "delete"])
def test_deleted_memory_cannot_be_changed(seeded: Seeded, op: str) -> None:
    gone = seeded.gone.id
    calls: dict[str, Callable[[Memory], Any]] = {
        "update": lambda m: m.update(gone, content=f"revived {PROBE}"),
        "delete": lambda m: m.delete(gone),
    }
    rejects(seeded, calls[op], NotFoundError, "was deleted")
    rejects(seeded, lambda m: m.get(gone), NotFoundError, "was deleted")


@pytest.mark.parametrize(
    ("call", "match"),
    [
        pytest.param(lambda m: m.get(42), "id must be a string, got int", id="get-int"),
        pytest.param(lambda m: m.update(None, content="x"), "id must be a string", id="upd-none"),
        pytest.param(lambda m: m.update("mem_x"), "at least one field", id="update-nothing"),
        pytest.param(
            lambda m: m.delete(["mem_x"]), "id must be a string, got list", id="delete-list"
        ),
    ],
)
def test_wrong_id_types(seeded: Seeded, call: Callable[[Memory], Any], match: str) -> None:
    rejects(seeded, call, ValidationError, match)


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        pytest.param({"content": "  "}, "content must not be empty", id="blank-content"),
        pytest.param({"content": 5}, "content must be a string", id="int-content"),
        pytest.param({"importance": 2}, "importance must be in", id="importance-2"),
        pytest.param({"confidence": "high"}, "confidence must be a number", id="confidence-str"),
        pytest.param({"tags": "health"}, "tags must be a list", id="tags-str"),
        pytest.param({"metadata": {"x": Unserialisable()}}, r"metadata\S* is not JSON", id="meta"),
        pytest.param(
            {"content": f"ok {PROBE}", "importance": -1},
            "importance",
            id="good-content-bad-importance",
        ),
    ],
)
def test_update_rejects_bad_fields_of_a_live_memory(
    seeded: Seeded, changes: dict[str, Any], match: str
) -> None:
    rejects(seeded, lambda m: m.update(seeded.fact.id, **changes), ValidationError, match)


# ---- search parameters -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        pytest.param({"limit": 0}, r"limit must be an integer in \[1, 1000\]", id="limit-0"),
        pytest.param({"limit": "5"}, "limit must be an integer", id="limit-str"),
        pytest.param({"limit": 5.0}, "limit must be an integer", id="limit-float"),
        pytest.param({"limit": True}, "limit must be an integer", id="limit-bool"),
        pytest.param({"limit": -3}, "limit must be an integer", id="limit-negative"),
        pytest.param({"limit": 1001}, "limit must be an integer", id="limit-1001"),
        pytest.param({"kinds": ["bogus"]}, r"kinds must be drawn from .*'bogus'", id="kind-bogus"),
        pytest.param({"kinds": ["message", "facts"]}, "'facts'", id="kind-typo"),
        pytest.param({"kinds": []}, "kinds must be drawn from", id="kinds-empty"),
        pytest.param({"kinds": [None]}, "kinds must be drawn from", id="kinds-none-item"),
        pytest.param({"kinds": 5}, "kinds", id="kinds-int"),
        pytest.param({"kinds": [["message"]]}, "kinds", id="kinds-nested"),
        pytest.param({"user_id": 7}, "user_id must be a string, got int", id="user-int"),
        pytest.param({"user_id": ""}, "user_id must not be empty", id="user-empty"),
        pytest.param({"session_id": 1}, "session_id must be a string", id="session-int"),
        pytest.param({"query": None}, "query must be a string, got NoneType", id="query-none"),
        pytest.param({"query": b"fox"}, "query must be a string, got bytes", id="query-bytes"),
        pytest.param({"now": "soon"}, "now: cannot parse 'soon'", id="now-unparseable"),
        pytest.param(
            {"user_id": "u\udcff"},
            "user_id",
            id="user-surrogate",
        ),
    ],
)
def test_search_rejects_bad_parameters(seeded: Seeded, kwargs: dict[str, Any], match: str) -> None:
    args = {"query": "fox", "user_id": U1, **kwargs}
    rejects(seeded, lambda m: m.search(**args), ValidationError, match)


def test_search_accepts_good_kinds_forms(seeded: Seeded) -> None:
    assert {h.kind for h in seeded.mem.search("fox", U1, kinds="message")} == {"message"}
    assert {h.kind for h in seeded.mem.search("peanuts", U1, kinds=("fact",))} == {"fact"}


# ---- free text never breaks full-text search -------------------------------------------------
HOSTILE_QUERIES = [
    '"foo',
    'foo"',
    '"',
    '""',
    "'",
    "a AND",
    "AND",
    "OR",
    "NOT",
    "NOT x",
    "x NOT",
    "AND OR NOT",
    "NEAR(a b)",
    "NEAR(",
    "NEAR/3",
    "foo*",
    "*",
    "**",
    "col:foo",
    "text : x",
    "owner : y",
    "owner:",
    ":",
    "^",
    "^foo",
    "()",
    "(",
    ")",
    "(((a)",
    "{text owner}: x",
    "-x",
    "+x",
    "a - b",
    "a + b",
    "[x]",
    "\\",
    '\\"',
    "%",
    "_",
    "__",
    "a_b",
    "🙂🎉",
    "👨‍👩‍👧",
    "你好世界",
    "我喜欢猫吗",
    "مرحبا بالعالم",
    "שלום",
    "e\u0301te\u0301",
    "cafe\u0301",
    "\u200b",
    "\ufeff",
    "SELECT * FROM messages; DROP TABLE messages; --",
    "'); DROP TABLE messages; --",
    "o64656661756C741F753" + "2",  # looks like an owner token
    "x" * 200_000,
    "fox " * 50_000,
    "🙂" * 100_000,
]


@pytest.mark.parametrize("query", HOSTILE_QUERIES, ids=lambda q: repr(q[:24]))
def test_hostile_query_returns_a_list(seeded: Seeded, query: str) -> None:
    before = seeded.snapshot()
    hits = seeded.mem.search(query, user_id=U1)
    assert isinstance(hits, list)
    assert all(isinstance(h, Hit) for h in hits)
    assert all(h.user_id in (U1, "global") for h in hits), "another user's row leaked"
    assert seeded.snapshot() == before
    assert seeded.mem.store.integrity_check() == "ok"


@pytest.mark.parametrize("query", ["\x00", "\x00fox", "\udcff", "fox\ud800"], ids=repr)
def test_query_with_nul_or_lone_surrogate_is_rejected(seeded: Seeded, query: str) -> None:
    """Query text follows the rules of all text (``validation.text``), like stored text."""
    with pytest.raises(ValidationError, match="query must"):
        seeded.mem.search(query, user_id=U1)


@pytest.mark.parametrize("query", ["", " ", "\t\n", "\u3000", "   \r\n  "], ids=repr)
def test_empty_or_blank_query_returns_nothing(seeded: Seeded, query: str) -> None:
    assert seeded.mem.search(query, user_id=U1) == []


@pytest.mark.parametrize(
    "query",
    [
        '"fox',
        'fox"',
        "fox*",
        "fox AND",
        "AND fox",
        "OR fox",
        "NOT fox",
        "NEAR(fox dog)",
        "col:fox",
        "text : fox",
        "owner : fox",
        "^fox",
        "(fox)",
        "fox)",
        "{text}: fox",
        "FOX",
        "Fox!",
        "🙂fox🙂",
    ],
    ids=repr,
)
def test_operators_around_a_word_still_find_it_lexically(seeded: Seeded, query: str) -> None:
    hits = seeded.mem.search(query, user_id=U1, limit=5)
    fox = seeded.msg_ids[0]
    assert hits and hits[0].id == fox, [h.content for h in hits]
    assert hits[0].scores.get("lexical", 0) > 0, "FTS did not contribute"


def test_a_query_cannot_reach_another_users_rows(seeded: Seeded) -> None:
    from mnemo.storage.sqlite.store import owner_token

    for query in [
        "secret plans heist",
        f"secret {owner_token('default', 'u2')}",
        f"owner : {owner_token('default', 'u2')}",
        'heist" OR owner : "o',
        f'"{owner_token("default", "u2")}"',
    ]:
        hits = seeded.mem.search(query, user_id=U1, limit=50)
        assert all(h.user_id == U1 for h in hits), query
        assert not any("heist" in h.content for h in hits), query
    assert seeded.mem.search("secret plans heist", user_id="u2")[0].user_id == "u2"


CONTENT_WITH_OPERATORS = [
    ('He wrote "foo AND bar OR NOT baz" zanzibar', "zanzibar"),
    ("NEAR(alpha beta, 3) quetzal", "quetzal"),
    ("col:foo text : x owner : y marzipan", "marzipan"),
    ("prefix* ^start (((unbalanced {braces} - + ) obsidian", "obsidian"),
    ("'); DROP TABLE messages; -- walrus", "walrus"),
    ('unbalanced " quote narwhal', "narwhal"),
    ("我喜欢猫 猫很可爱", "我喜欢猫"),
    ("مرحبا بالعالم", "بالعالم"),
    ("café crème brûlée", "creme"),
    ("cafe\u0301 de\u0301ja\u0300 vu", "déjà"),
    ("emoji 🙂🎉 pangolin", "pangolin"),
]


@pytest.mark.parametrize(("content", "word"), CONTENT_WITH_OPERATORS, ids=lambda x: repr(x[:16]))
def test_content_with_fts_syntax_is_stored_and_found(
    tmp_path: Path, content: str, word: str
) -> None:
    with Memory(str(tmp_path / "m.db"), embedder="hashing") as mem:
        mem.add_messages(
            [{"role": "user", "content": "unrelated chatter about the weather"}], user_id=U1
        )
        ids = mem.add_messages([{"role": "user", "content": content}], user_id=U1)
        fact = mem.add(content, user_id=U1)
        assert mem.get(ids[0]).content == content
        assert mem.get(fact.id).content == content
        hits = mem.search(word, user_id=U1, limit=5)
        # the turn and the fact say the same: one hit, the other collapsed into it
        found = {i for h in hits if h.scores.get("lexical", 0) > 0 for i in [h.id, *h.duplicates]}
        assert {ids[0], fact.id} <= found, [(h.content, h.scores) for h in hits]
        assert mem.search(content, user_id=U1, limit=5)[0].id in (ids[0], fact.id)
        assert mem.store.integrity_check() == "ok"


# ---- property tests (hypothesis) -------------------------------------------------------------
try:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
except ImportError:  # hypothesis is optional: only these two tests need it
    HAVE_HYPOTHESIS = False
else:
    HAVE_HYPOTHESIS = True


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seeded]:
    s = Seeded(tmp_path_factory.mktemp("prop") / "m.db")
    yield s
    s.mem.close()


if HAVE_HYPOTHESIS:
    FRAGMENTS = [
        '"',
        "'",
        "AND",
        "OR",
        "NOT",
        "NEAR",
        "NEAR(",
        "(",
        ")",
        "*",
        ":",
        "^",
        "-",
        "+",
        "{",
        "}",
        "text",
        "owner",
        "fox",
        "o6465",
        ",",
        "/",
        "\\",
        "\x00",
        "🙂",
        "猫",
        "e\u0301",
        " ",
        "_",
        "%",
        "'--",
        ";",
    ]
    ANY_QUERY = st.one_of(
        st.text(max_size=300),
        st.text(st.characters(exclude_categories=()), max_size=60),  # surrogates, controls too
        st.lists(st.sampled_from(FRAGMENTS), max_size=16).map(" ".join),
        st.lists(st.sampled_from(FRAGMENTS), max_size=16).map("".join),
    )
    # Bounded so the file stays fast; database=None keeps no example database between runs.
    FAST = settings(
        max_examples=150,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )

    @FAST
    @given(
        query=ANY_QUERY,
        kinds=st.sampled_from([None, ["message"], ["fact", "note"]]),
        session=st.sampled_from([None, "s1", "nope"]),
    )
    def test_any_query_text_returns_a_list(
        shared: Seeded, query: str, kinds: Any, session: Any
    ) -> None:
        invalid = "\x00" in query or any(0xD800 <= ord(ch) <= 0xDFFF for ch in query)
        try:
            hits = shared.mem.search(query, user_id=U1, session_id=session, kinds=kinds, limit=5)
        except ValidationError:
            assert invalid, f"valid query {query!r} rejected"
            return
        assert not invalid, f"query {query!r} with NUL or a lone surrogate accepted"
        assert isinstance(hits, list) and len(hits) <= 5
        assert all(isinstance(h, Hit) and h.user_id in (U1, "global") for h in hits)
        if not query.strip():
            assert hits == []

    @settings(FAST, max_examples=60)
    @given(
        content=st.text(
            st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=200
        )
    )
    def test_any_content_is_stored_exactly_or_rejected_cleanly(
        shared: Seeded, content: str
    ) -> None:
        """Lone surrogates (Cs) and NUL are left out: those are rejected (see their own cases)."""
        mem = shared.mem
        before = mem.stats().messages
        try:
            ids = mem.add_messages([{"role": "user", "content": content}], user_id="prop")
        except ValidationError as exc:
            assert not content.strip(), f"non-blank content rejected: {exc}"
            assert mem.stats().messages == before
            return
        assert content.strip()
        assert mem.get(ids[0]).content == content
        assert mem.stats().messages == before + 1
        assert isinstance(mem.search(content, user_id="prop", limit=3), list)

else:

    def test_property_tests_need_hypothesis() -> None:
        pytest.skip("hypothesis is not installed (pip install hypothesis)")


@pytest.mark.parametrize("op", ["get", "update", "delete", "history"])
def test_ids_with_invalid_text_raise_validation_error(seeded: Seeded, op: str) -> None:
    calls: dict[str, Callable[[Memory], Any]] = {
        "get": lambda m: m.get("mem_\ud800"),
        "update": lambda m: m.update("mem_a\x00", content="x"),
        "delete": lambda m: m.delete("mem_\udcff"),
        "history": lambda m: m.history("prof_\ud800"),
    }
    rejects(seeded, calls[op], ValidationError, "id must")
