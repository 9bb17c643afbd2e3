"""Agent rows survive the store-to-store paths: an export imports with agent ids kept (the
agents' own memories under the reserved user key included) and ``migrate`` SQLite ->
PostgreSQL keeps them, so no private row comes out shared."""

from __future__ import annotations

import io
from pathlib import Path

from mnemo import Memory
from mnemo.ops.export import export_store
from mnemo.ops.migrate import migrate
from mnemo.ops.restore import import_store


def seed(path: str) -> None:
    with Memory(path, embedder="hashing") as mem:
        mem.add("shared fact about Heron", "u1")
        mem.add("alpha private Falcon", "u1", agent_id="alpha")
        mem.add("alpha own tool note", agent_id="alpha")
        mem.add_messages([{"role": "user", "content": "beta turn Osprey"}], "u1", agent_id="beta")


def scoped(mem: Memory) -> dict[str, object]:
    return {
        "memories": sorted((m.content, m.user_id, m.agent_id) for m in mem.list()),
        "turns": sorted((m.content, m.agent_id) for m in mem.messages()),
        "beta_sees": sorted(h.content for h in mem.search("Falcon Heron", "u1", agent_id="beta")),
        "users": [u.user_id for u in mem.users()],
    }


EXPECTED = {
    "memories": [
        ("alpha own tool note", "", "alpha"),
        ("alpha private Falcon", "u1", "alpha"),
        ("shared fact about Heron", "u1", None),
    ],
    "turns": [("beta turn Osprey", "beta")],
    "beta_sees": ["shared fact about Heron"],
    "users": ["u1"],
}


def test_export_import_keeps_agents(tmp_path: Path) -> None:
    src, dst = str(tmp_path / "src.db"), str(tmp_path / "dst.db")
    seed(src)
    out = io.StringIO()
    export_store(src, out, None)
    import_store(dst, io.StringIO(out.getvalue()))
    with Memory(dst, embedder="hashing") as mem:
        assert scoped(mem) == EXPECTED


def test_migrate_to_postgres_keeps_agents(tmp_path: Path, pg_url: str) -> None:
    src = str(tmp_path / "src.db")
    seed(src)
    migrate(src, pg_url, searches=0, embedder="hashing")
    with Memory(url=pg_url, embedder="hashing") as mem:
        assert scoped(mem) == EXPECTED
