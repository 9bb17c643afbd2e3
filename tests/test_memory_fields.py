"""The memory field table (``mnemo/memory_fields.py``) and the places that keep their own
list of memory fields agree: the public records, the store's write record, the calls that
take fields, the REST bodies, the filter fields and the Markdown mirror's front matter."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from mnemo import memory_fields
from mnemo.api.models import FILTERS, MemoryCreate, MemoryPatch
from mnemo.files import layout
from mnemo.filters import MEMORIES
from mnemo.filters.nodes import FIELD_TYPES
from mnemo.memory.records import Records
from mnemo.memory_fields import BY_NAME, FIELDS, FILTERABLE, GIVEN, fields_where, fingerprint
from mnemo.schemas import Hit, MemoryItem
from mnemo.storage.base import NewMemory
from mnemo.storage.sql import memories, rows
from mnemo.storage.sql.search import HIT_COLUMNS

NAMES = set(BY_NAME)


def names(**flags: bool) -> set[str]:
    """The names of the table's fields with these flags."""
    return {f.name for f in fields_where(**flags)}


def test_the_public_memory_is_the_table() -> None:
    assert set(MemoryItem.model_fields) == NAMES
    assert len(FIELDS) == len(NAMES)  # no name twice


def test_a_hit_shows_table_hit_fields_and_filters_can_read_them() -> None:
    # a hit's row may carry more than a Hit shows (tags, for the filters of an "as of"
    # search, which read a memory's version from its hit fields)
    assert set(Hit.model_fields) & NAMES <= names(hit=True)
    # updated_at is the one filter field an "as of" version lacks (as before the table)
    assert set(FILTERABLE) - names(hit=True) == {"updated_at"}


def test_the_store_write_record_carries_the_inserted_fields() -> None:
    embedding = {"content_hash", "embedder", "embedding"}
    own = {f.name for f in dataclasses.fields(NewMemory)} - embedding
    assert own == {f.name for f in FIELDS if f.insert == "row"}
    assert set(memories.INSERT_COLUMNS) == {f.column for f in FIELDS if f.insert} | embedding


def test_add_takes_every_caller_given_field_and_update_every_editable_one() -> None:
    add = set(inspect.signature(Records.add).parameters) - {"self", "actor", "idempotency_key"}
    assert add == set(GIVEN)
    update = set(inspect.signature(Records.update).parameters)
    assert names(editable=True) <= update
    assert names(editable=True) <= names(given=True)


def test_the_rest_memory_bodies_describe_their_fields_from_the_table() -> None:
    for body in (MemoryCreate, MemoryPatch):
        for name, info in body.model_fields.items():
            if name in NAMES:
                assert info.description == memory_fields.description(name), (body, name)
    assert set(MemoryCreate.model_fields) <= set(GIVEN)
    assert set(MemoryPatch.model_fields) - {"clear_expiry"} == names(editable=True)


def test_the_filter_fields_are_the_filterable_fields() -> None:
    assert dict(FILTERABLE) == FIELD_TYPES
    for name in FILTERABLE:
        assert MEMORIES.column(name) == BY_NAME[name].column
    help_text = str(FILTERS.description)
    for name in FILTERABLE:
        assert name in help_text
    assert "agent_id" in help_text and "session_id" in help_text


def test_the_column_lists_come_from_the_table() -> None:
    read = [c.strip() for c in memories.MEMORY_COLS.split(",")]
    assert read == ["rowid", *(f.column for f in FIELDS)]
    hit = [c.strip() for c in HIT_COLUMNS[1].split(",")]
    assert hit == ["rowid", *(f.column for f in FIELDS if f.hit)]
    assert {f.name for f in memories.FIELDS} == names(rewritable=True)
    assert rows.SNAPSHOT_FIELDS == (
        "content", "tags", "metadata", "importance", "confidence", "kind", "session_id",
    )  # fmt: skip


def test_the_mirror_writes_every_front_matter_field() -> None:
    fronts = {f.front for f in FIELDS if f.front is not None}
    assert fronts <= set(layout.KEYS)
    assert set(layout.FRONT.values()) == fronts


def test_the_fingerprint_names_exactly_the_caller_given_fields() -> None:
    given = dict.fromkeys(GIVEN)
    assert set(fingerprint("add", given)) == {"op", *GIVEN}
    with pytest.raises(KeyError, match="agent_id"):
        fingerprint("add", {k: v for k, v in given.items() if k != "agent_id"})
    with pytest.raises(ValueError, match="updated_at"):
        fingerprint("add", {**given, "updated_at": "2024-01-01T00:00:00Z"})
    assert "id" not in GIVEN and "tenant" not in GIVEN and "updated_at" not in GIVEN
    assert {"created_at", "expires_at", "ttl_seconds"} <= set(GIVEN)
