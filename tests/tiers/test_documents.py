"""Context documents: attach, list, detach, validation, and dedupe of facts against them."""

from __future__ import annotations

import pytest

from mnemo import Memory
from mnemo.errors import NotFoundError, ValidationError


def facts(mem: Memory, user: str = "u1") -> list[str]:
    return sorted(m.content for m in mem.list(user, kind="fact"))


def test_attach_list_detach(mem: Memory) -> None:
    everywhere = mem.attach_document("The user is a nurse.", "u1", title="bio")
    only_s1 = mem.attach_document("Project notes", "u1", session_id="s1", metadata={"v": 1})
    mem.attach_document("Other user's file", "u2")
    assert everywhere.id.startswith("doc_") and everywhere.session_id is None
    assert everywhere.chunks == 1 and everywhere.title == "bio"
    assert [d.id for d in mem.documents("u1")] == [everywhere.id, only_s1.id]
    assert [d.id for d in mem.documents("u1", session_id="s1")] == [everywhere.id, only_s1.id]
    assert [d.id for d in mem.documents("u1", session_id="s2")] == [everywhere.id]
    assert mem.documents("u1", session_id="s1")[1].metadata == {"v": 1}
    gone = mem.detach_document(only_s1.id)
    assert gone.id == only_s1.id and gone.content == "Project notes"
    assert [d.id for d in mem.documents("u1")] == [everywhere.id]
    with pytest.raises(NotFoundError):
        mem.detach_document(only_s1.id)


def test_long_documents_are_chunked_with_overlap(db_path: str) -> None:
    with Memory(
        db_path, embedder="hashing", document_chunk_words=10, document_chunk_overlap=2
    ) as mem:
        text = " ".join(f"word{i}" for i in range(35))
        doc = mem.attach_document(text, "u1")
        assert doc.chunks == 5  # starts at 0, 8, 16, 24, 32 (the last reaches the end)
        chunks = mem.store.documents.document_chunks(mem.tenant, "u1", mem.embedder.id)
        assert chunks.texts[1].split()[0] == "word8" and chunks.vectors.shape == (5, 384)
        assert set(chunks.document_ids) == {doc.id}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"content": ""}, "content must not be empty"),
        ({"content": 5}, "content must be a string"),
        ({"content": "x" * 51}, "limit is 50"),
        ({"user_id": ""}, "user_id must not be empty"),
        ({"session_id": 3}, "session_id must be a string"),
        ({"title": "t" * 300}, "title is longer"),
        ({"title": 7}, "title must be a string"),
        ({"metadata": [1]}, "metadata must be an object"),
    ],
)
def test_bad_documents_are_rejected_and_change_nothing(
    db_path: str, kwargs: dict, message: str
) -> None:
    with Memory(db_path, embedder="hashing", max_document_chars=50) as mem:
        args = {"content": "some text", "user_id": "u1"} | kwargs
        content, user_id = args.pop("content"), args.pop("user_id")
        with pytest.raises(ValidationError, match=message):
            mem.attach_document(content, user_id, **args)
        assert mem.documents("u1") == []


def test_detach_rejects_ids_that_are_not_documents(mem: Memory) -> None:
    for bad in ("mem_123", 42, None):
        with pytest.raises(ValidationError):
            mem.detach_document(bad)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        mem.documents("")


def test_facts_stated_in_a_document_are_not_stored(mem: Memory) -> None:
    mem.attach_document("Notes.\nUser is allergic to peanuts.\nMore notes.", "u1")
    mem.add_messages(
        [{"role": "user", "content": "I'm allergic to peanuts. I live in Oslo."}], "u1"
    )
    mem.drain()
    assert facts(mem) == ["User lives in Oslo"]  # the allergy is a substring of the document


def test_dedupe_by_chunk_similarity(mem: Memory) -> None:
    # Same words in another order: no substring match, but the chunk's cosine is ~1.
    mem.attach_document("Lyon in lives User", "u1", session_id="s9")
    mem.add_messages([{"role": "user", "content": "I live in Lyon"}], "u1", "s1")
    mem.drain()
    stored = facts(mem)
    doc_chunks = mem.store.documents.document_chunks(mem.tenant, "u1", mem.embedder.id)
    [_, vec] = mem.embedding(["User lives in Lyon"])
    assert float(doc_chunks.vectors[0] @ vec[0]) > 0.99
    assert stored == []  # a document of another session counts too (`llm-managed`: all contexts)


def test_detached_documents_no_longer_dedupe(mem: Memory) -> None:
    doc = mem.attach_document("User lives in Lyon", "u1")
    mem.detach_document(doc.id)
    mem.add_messages([{"role": "user", "content": "I live in Lyon"}], "u1")
    mem.drain()
    assert facts(mem) == ["User lives in Lyon"]


def test_documents_of_other_users_do_not_dedupe(mem: Memory) -> None:
    mem.attach_document("User lives in Lyon", "u2")
    mem.add_messages([{"role": "user", "content": "I live in Lyon"}], "u1")
    mem.drain()
    assert facts(mem) == ["User lives in Lyon"]


def test_delete_user_erases_documents_and_chunks(mem: Memory) -> None:
    mem.attach_document("a b c", "u1")
    counts = mem.delete_user("u1")
    assert counts["documents"] == 1 and mem.documents("u1") == []
    assert mem.store.documents.document_chunks(mem.tenant, "u1", mem.embedder.id).texts == []


def test_documents_survive_reopen(db_path: str) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        doc = mem.attach_document("User lives in Lyon", "u1", session_id="s1")
    with Memory(db_path, embedder="hashing") as again:
        [found] = again.documents("u1")
        assert found.id == doc.id and found.session_id == "s1" and found.chunks == 1
