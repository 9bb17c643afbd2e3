"""The file store's watcher: hand edits reach the store, API writes do not echo back."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mnemo import Memory
from mnemo.files import layout

DEADLINE_S = 10.0


def wait_for(cond: Callable[[], bool], what: str) -> None:
    """Poll ``cond`` until it holds or the deadline passes (then fail)."""
    end = time.monotonic() + DEADLINE_S
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


class Batches:
    """Collects the watcher's batch outcomes."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.all: Counter[str] = Counter()
        self.n = 0

    def __call__(self, counts: Counter[str]) -> None:
        with self.lock:
            self.all.update(counts)
            self.n += 1


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[tuple[Memory, Batches, Path]]:
    mem = Memory(
        str(tmp_path / "db.sqlite"),
        embedder="hashing",
        files_dir=str(tmp_path / "files"),
        files_debounce_ms=20,
    )
    batches = Batches()
    mem.watch_files(on_batch=batches)
    yield mem, batches, (tmp_path / "files").resolve()
    mem.close()


def file_of(root: Path, id: str, under: str = "entries") -> Path:
    (found,) = [p for p in (root / under).rglob(f"*__{id}.md")]
    return found


def test_hand_edit_updates_the_memory(watched: tuple[Memory, Batches, Path]) -> None:
    mem, _batches, root = watched
    item = mem.add("User likes tea", "u1", tags=["drinks"])
    path = file_of(root, item.id)
    before = layout.parse(path.read_text()).front["updated_at"]
    path.write_text(path.read_text().replace("likes tea", "likes green tea"))
    wait_for(lambda: mem.get(item.id).content == "User likes green tea", "the edit")
    entry = mem.history(item.id)[-1]
    assert (entry.event, entry.actor) == ("UPDATE", "file")
    assert mem.search("green tea", user_id="u1")[0].id == item.id  # re-embedded
    wait_for(lambda: layout.parse(path.read_text()).front["updated_at"] > before, "the rewrite")


def test_hand_delete_soft_deletes(watched: tuple[Memory, Batches, Path]) -> None:
    mem, _batches, root = watched
    item = mem.add("User owns a bike", "u1")
    file_of(root, item.id).unlink()
    wait_for(lambda: mem.history(item.id)[-1].event == "DELETE", "the delete")
    assert mem.history(item.id)[-1].actor == "file"
    assert mem.list("u1") == []
    wait_for(lambda: bool(list((root / "deleted").rglob(f"*{item.id}.md"))), "deleted/ file")


def test_new_hand_file_adds_a_memory(watched: tuple[Memory, Batches, Path]) -> None:
    mem, _batches, root = watched
    folder = root / "entries/u1/_global/facts"
    folder.mkdir(parents=True)
    (folder / "note.md").write_text("---\nuser_id: u1\n---\nUser plays chess\n")
    wait_for(lambda: [m.content for m in mem.list("u1")] == ["User plays chess"], "the add")
    (item,) = mem.list("u1")
    assert mem.history(item.id)[0].actor == "file"
    wait_for(lambda: not (folder / "note.md").exists(), "the hand file replaced")
    assert layout.parse(file_of(root, item.id).read_text()).id == item.id


def test_api_writes_do_not_echo(watched: tuple[Memory, Batches, Path]) -> None:
    mem, batches, _root = watched
    item = mem.add("User likes tea", "u1")
    mem.update(item.id, content="User likes coffee")
    mem.add_messages([{"role": "user", "content": "hello"}], user_id="u1")
    other = mem.add("User owns a bike", "u1")
    mem.delete(other.id)
    wait_for(lambda: batches.n >= 1, "the watcher to see the API's writes")
    time.sleep(0.3)  # a bounded quiet period: any echo would land in it
    assert [h.actor for h in mem.history(item.id)] == ["api", "api"]
    assert [h.actor for h in mem.history(other.id)] == ["api", "api"]
    assert set(batches.all) <= {"unchanged", "unknown"}, batches.all


def test_edit_through_file_then_api_no_loop(watched: tuple[Memory, Batches, Path]) -> None:
    mem, _batches, root = watched
    item = mem.add("one", "u1")
    path = file_of(root, item.id)
    path.write_text(path.read_text().replace("\none\n", "\ntwo\n"))
    wait_for(lambda: mem.get(item.id).content == "two", "the file edit")
    mem.update(item.id, content="three")
    wait_for(lambda: layout.parse(path.read_text()).body == "three", "the API rewrite")
    time.sleep(0.3)
    assert [h.actor for h in mem.history(item.id)] == ["api", "file", "api"]
    assert mem.get(item.id).content == "three"


def test_turn_edit_is_undone(watched: tuple[Memory, Batches, Path]) -> None:
    mem, batches, root = watched
    (mid,) = mem.add_messages([{"role": "user", "content": "I adopted a cat"}], user_id="u1")
    path = file_of(root, mid)
    path.write_text(path.read_text().replace("a cat", "a dog"))
    wait_for(lambda: batches.all["turn_restored"] >= 1, "the turn report")
    wait_for(lambda: layout.parse(path.read_text()).body == "I adopted a cat", "the restore")
    assert mem.get(mid).content == "I adopted a cat"


def test_stop_ends_the_thread(tmp_path: Path) -> None:
    mem = Memory(str(tmp_path / "db"), embedder="hashing", files_dir=str(tmp_path / "f"))
    watcher = mem.watch_files()
    assert watcher.running
    mem.stop_files()
    assert not watcher.running
    mem.close()


def test_server_mirrors_and_watches(tmp_path: Path) -> None:
    from api_support import served

    root = (tmp_path / "files").resolve()
    with served(str(tmp_path / "db.sqlite"), files_dir=str(root), files_debounce_ms=20) as (
        _,
        client,
    ):
        item = client.post("/v1/memories", json={"user_id": "u1", "content": "likes tea"}).json()
        path = file_of(root, item["id"])
        path.write_text(path.read_text().replace("likes tea", "likes mint tea"))

        def content() -> str:
            return str(client.get(f"/v1/memories/{item['id']}").json()["content"])

        wait_for(lambda: content() == "likes mint tea", "the server's watcher")


def test_many_api_rewrites_never_echo(watched: tuple[Memory, Batches, Path]) -> None:
    """The watcher reads files while the API rewrites and deletes them: it must never take a
    file mnemo is replacing for a hand edit (which would revert the update) nor a file mnemo is
    deleting for one (which would report a second delete)."""
    mem, batches, _root = watched
    items = [mem.add(f"User likes tea {i}", "u1") for i in range(4)]
    for round_ in range(25):
        for item in items:
            mem.update(item.id, content=f"User likes tea {item.id} {round_}")
    for item in items[:2]:
        mem.delete(item.id)
    wait_for(lambda: batches.n >= 1, "the watcher to see the API's writes")
    time.sleep(0.3)  # a bounded quiet period: any echo would land in it
    for item in items:
        assert {h.actor for h in mem.history(item.id)} == {"api"}
    assert sorted(m.content for m in mem.list("u1")) == sorted(
        f"User likes tea {item.id} 24" for item in items[2:]
    )
    assert set(batches.all) <= {"unchanged", "unknown"}, batches.all
