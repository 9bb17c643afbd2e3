"""The entity index travels with a store: `mnemo export` writes it, an import restores it, and
a second import of the same file adds nothing. On both stores."""

from __future__ import annotations

import io

from mnemo import Memory
from mnemo.ops.export import export_store
from mnemo.ops.restore import import_store


def test_export_and_import_keep_the_entity_index(target: dict[str, str]) -> None:
    location = target.get("url") or target["path"]
    with Memory(**target, embedder="hashing") as mem:
        said = ["My husband Raj flies for KLM.", "Raj loves Lisbon. We moved to Lisbon."]
        mem.add_messages([{"role": "user", "content": t} for t in said], "dana")
        mem.drain()
        before = [(e.name, e.kind, e.aliases, e.mentions) for e in mem.entities("dana")]
    assert len(before) == 3
    out = io.StringIO()
    export_store(location, out, ("default", "dana"))
    text = out.getvalue()
    assert '"table": "entities"' in text and '"table": "entity_mentions"' in text
    with Memory(**target, embedder="hashing") as mem:
        mem.delete_user("dana")
        assert mem.entities("dana") == []
    report = import_store(location, io.StringIO(text))
    assert report.rows["entities"] == 3
    again = import_store(location, io.StringIO(text))  # a second run adds nothing
    assert again.rows.get("entities", 0) == again.rows.get("entity_mentions", 0) == 0
    with Memory(**target, embedder="hashing") as mem:
        after = [(e.name, e.kind, e.aliases, e.mentions) for e in mem.entities("dana")]
        assert after == before
        assert mem.entity("dana", "my husband").entity.name == "Raj"
