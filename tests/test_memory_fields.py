"""The memory field table (``mnemo/memory_fields.py``) and the places that keep their own
list of memory fields agree: the public records, the store's write record, the calls that
take fields, the REST bodies, the filter fields and the Markdown mirror's front matter."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from mnemo import memory_fields
from mnemo.api.models import FILTERS, MemoryCreate, MemoryPatch
from mnemo.cli import main as cli_main
from mnemo.cli import records as records_cli
from mnemo.cli.field_options import ADD_LEAVES_OUT, EDIT_LEAVES_OUT
from mnemo.files import layout
from mnemo.filters import MEMORIES, parse_filter
from mnemo.filters.nodes import FIELD_TYPES, Condition, Field
from mnemo.filters.parse import SCOPES
from mnemo.mcp.field_params import REMEMBER_LEAVES_OUT, UPDATE_LEAVES_OUT
from mnemo.mcp.tools import MemoryTools
from mnemo.memory.records import Records
from mnemo.memory_fields import (
    BY_NAME,
    FIELDS,
    FILTERABLE,
    GIVEN,
    NOT_FILTER_NAMES,
    MemoryField,
    fields_where,
    fingerprint,
)
from mnemo.retrieval.hits import COPIED
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


def test_a_filter_field_cannot_take_a_name_filters_read_otherwise() -> None:
    assert set(SCOPES) <= NOT_FILTER_NAMES
    for name in ("user_id", "tenant", "AND", "NOT", "a.b", "$gt"):
        with pytest.raises(ValueError, match="cannot be a filter field"):
            MemoryField(name, "text", "x", filter="text")
    MemoryField("user_id", "text", "not filterable: fine")


def test_a_bare_field_name_reads_the_field_and_metadata_is_written_with_its_prefix() -> None:
    for name, value in {"kind": "fact", "tags": "t", "session_id": "s", "agent_id": "a"}.items():
        assert parse_filter({name: value}) == Condition(Field(name), "eq", value)
    meta = parse_filter({"metadata.kind": "x"})
    assert meta == Condition(Field("metadata", ("kind",)), "eq", "x")
    assert parse_filter({"category": "x"}) == Condition(Field("metadata", ("category",)), "eq", "x")


def test_the_surfaces_take_the_table_fields_they_do_not_leave_out() -> None:
    def params(fn: object) -> set[str]:
        return set(inspect.signature(fn).parameters)  # type: ignore[arg-type]

    remember = params(MemoryTools.remember)
    assert names(given=True) - set(REMEMBER_LEAVES_OUT) <= remember
    assert not set(REMEMBER_LEAVES_OUT) & remember
    update = params(MemoryTools.update_memory)
    assert update - {"self", "memory_id", "ctx"} == names(editable=True) - set(UPDATE_LEAVES_OUT)
    edit = params(records_cli.edit) - {"id", "as_json", "db", "embedder"}
    assert edit == names(editable=True) - set(EDIT_LEAVES_OUT)
    assert names(given=True) - set(ADD_LEAVES_OUT) <= params(cli_main.add)
    assert set(MemoryCreate.model_fields) == names(given=True) - {"source_message_ids"}


def test_a_hit_copies_the_table_hit_fields_it_shows() -> None:
    memory_fields_copied = set(COPIED) - {"role", "name"}
    assert memory_fields_copied == names(hit=True) & set(Hit.model_fields)
    assert {name for name, time in COPIED.items() if time} == {"created_at"}
