"""mnemo.AsyncMemory: one twin per Memory method (the drift guard), real awaits on both
stores, the same exceptions as the sync API, concurrency, and nothing run on the event loop.

Each test drives a real event loop with ``asyncio.run`` (no async test plugin needed).
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import re
import threading
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pytest

from mnemo import AsyncMemory, Memory, NotFoundError, StorageError, ValidationError
from mnemo.embedders.hashing import HashingEmbedder
from mnemo.memory.threaded import public_methods

T = TypeVar("T")


def run(factory: Callable[[], Awaitable[T]], timeout: float = 60) -> T:
    """Run the coroutine made by ``factory`` on a fresh event loop, bounded by ``timeout``."""

    async def bounded() -> T:
        return await asyncio.wait_for(factory(), timeout)

    return asyncio.run(bounded())


# ---- the drift guard (issue 23's "async twin per method") --------------------------------------


def same_signature(twin: Callable[..., Any], sync: Callable[..., Any]) -> bool:
    """Whether two signatures are the same, a builtin the twin's class shadows (``list``,
    which is also a method) written ``builtins.list`` in the twin."""
    return str(inspect.signature(twin)).replace("builtins.", "") == str(
        inspect.signature(sync)
    ).replace("builtins.", "")


def test_every_public_memory_method_has_an_awaitable_twin_with_its_signature() -> None:
    names = public_methods(Memory)
    assert {"add", "add_messages", "search", "context", "list", "get", "close"} <= set(names)
    for name in names:
        twin = getattr(AsyncMemory, name, None)
        assert twin is not None, f"Memory.{name} has no twin on AsyncMemory"
        assert inspect.iscoroutinefunction(twin), f"AsyncMemory.{name} is not async"
        sync = getattr(Memory, name)
        assert same_signature(twin, sync), name
        if name != "close":  # close is written by hand (it also stops the threads)
            assert inspect.getdoc(twin) == inspect.getdoc(sync), name


def test_the_constructor_takes_exactly_memorys_arguments() -> None:
    assert inspect.signature(AsyncMemory) == inspect.signature(Memory)
    opens = inspect.signature(AsyncMemory.open).parameters
    assert opens == inspect.signature(Memory).parameters


# ---- behaviour on both stores --------------------------------------------------------------------


def test_awaited_calls_match_the_sync_api(target: dict[str, str]) -> None:
    async def main() -> None:
        async with await AsyncMemory.open(**target, embedder="hashing") as mem:
            ids = await mem.add_messages(
                [
                    {"role": "user", "content": "I adopted a cat named Miso"},
                    {"role": "assistant", "content": "Lovely name!"},
                ],
                user_id="u1",
                session_id="s1",
            )
            assert len(ids) == 2
            item = await mem.add("Ann likes tea", user_id="u1", tags=["drink"])
            hits = await mem.search("cat", user_id="u1")
            assert hits[0].content == "I adopted a cat named Miso"
            assert (await mem.get(item.id)).content == "Ann likes tea"
            updated = await mem.update(item.id, content="Ann likes green tea")
            assert updated.content == "Ann likes green tea"
            assert [m.id for m in await mem.list("u1")] == [item.id]
            assert [m.content for m in await mem.messages("u1", session_id="s1")] == [
                "I adopted a cat named Miso",
                "Lovely name!",
            ]
            bundle = await mem.context("what pet do I have?", user_id="u1")
            assert "Miso" in bundle.render()
            assert (await mem.stats()).messages == 2
            await mem.drain()
            await mem.delete(item.id)
            assert [u.user_id for u in await mem.users()] == ["u1"]

    run(main)


def test_errors_are_the_sync_apis_own_exception_classes(target: dict[str, str]) -> None:
    """Each bad call raises on the awaiting side exactly what the sync call raises."""
    bad_calls: list[tuple[str, tuple[Any, ...], dict[str, Any], type[Exception]]] = [
        ("add_messages", ([{"role": "wizard", "content": "x"}], "u1"), {}, ValidationError),
        ("search", ("q", ""), {}, ValidationError),
        ("get", ("mem_nope",), {}, NotFoundError),
        ("delete", ("mem_nope",), {}, NotFoundError),
        ("jobs", (), {"limit": 0}, ValidationError),
    ]

    async def main(amem: AsyncMemory) -> None:
        for name, args, kwargs, expected in bad_calls:
            with pytest.raises(expected) as sync_error:
                getattr(amem.sync, name)(*args, **kwargs)
            with pytest.raises(expected) as async_error:
                await getattr(amem, name)(*args, **kwargs)
            assert type(async_error.value) is type(sync_error.value), name
            assert str(async_error.value) == str(sync_error.value), name
        assert await amem.messages("u1") == []  # nothing written by any of them

    amem = AsyncMemory(**target, embedder="hashing")
    try:
        run(lambda: main(amem))
    finally:
        run(amem.close)


def test_many_parallel_awaits_lose_nothing(target: dict[str, str]) -> None:
    n_users, per_user = 4, 12

    async def main() -> None:
        async with AsyncMemory(**target, embedder="hashing") as mem:
            writes = [
                mem.add_messages(
                    [{"role": "user", "content": f"note {i} of user {u}"}], f"u{u}", "s"
                )
                for u in range(n_users)
                for i in range(per_user)
            ]
            searches = [mem.search("note", user_id=f"u{u}") for u in range(n_users)]
            results = await asyncio.gather(*writes, *searches)
            ids = [i for r in results[: len(writes)] for i in r]
            assert len(set(ids)) == n_users * per_user
            for u in range(n_users):
                stored = await mem.messages(f"u{u}", limit=1000)
                assert sorted(m.content for m in stored) == sorted(
                    f"note {i} of user {u}" for i in range(per_user)
                )
                # one session per user, its turns numbered 1..n without gap or repeat
                assert sorted(m.seq for m in stored) == list(range(1, per_user + 1))

    run(main)


def test_close_waits_for_the_calls_in_flight_then_refuses_new_ones(
    target: dict[str, str],
) -> None:
    async def main() -> None:
        mem = AsyncMemory(**target, embedder="hashing")
        pending = [
            asyncio.ensure_future(
                mem.add_messages([{"role": "user", "content": f"turn {i}"}], "u1", "s")
            )
            for i in range(10)
        ]
        await asyncio.sleep(0)  # let every call reach the pool
        await mem.close()
        assert all(t.done() and t.exception() is None for t in pending)
        with pytest.raises(StorageError, match="closed"):
            await mem.search("turn", user_id="u1")
        await mem.close()  # twice is harmless

    run(main)
    with Memory(**target, embedder="hashing") as mem:  # every acknowledged write is there
        assert sorted(m.content for m in mem.messages("u1")) == sorted(
            f"turn {i}" for i in range(10)
        )


# ---- nothing blocks the event loop -----------------------------------------------------------


class GatedEmbedder(HashingEmbedder):
    """The hashing embedder that, once armed, waits in ``embed_batch`` until the event loop
    opens its gate: if the call ran on the loop's thread, the loop could never open it."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.armed = False
        self.threads: set[str] = set()
        self.waited: list[bool] = []

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if self.armed:
            self.threads.add(threading.current_thread().name)
            self.waited.append(self.gate.wait(timeout=10))
        return super().embed_batch(texts)


def test_calls_run_on_the_pool_not_on_the_event_loop(db_path: str) -> None:
    embedder = GatedEmbedder()
    mem = AsyncMemory.wrap(Memory(db_path, embedder=embedder), max_workers=2)

    async def main() -> None:
        embedder.armed = True
        task = asyncio.ensure_future(
            mem.add_messages([{"role": "user", "content": "a blocking embed"}], "u1")
        )
        for _ in range(100):  # the loop keeps running while the call waits on its thread
            await asyncio.sleep(0.01)
            if embedder.threads:
                break
        embedder.gate.set()
        await task
        assert embedder.waited == [True]  # opened by the loop, not by the timeout
        assert all(name.startswith("mnemo-async") for name in embedder.threads)
        await mem.close()

    run(main)


def test_the_callers_context_variables_reach_the_call(db_path: str) -> None:
    request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
    seen: list[str] = []

    class Spy(HashingEmbedder):
        def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
            seen.append(request_id.get())
            return super().embed_batch(texts)

    async def main() -> None:
        async with AsyncMemory(db_path, embedder=Spy()) as mem:
            request_id.set("req-42")
            await mem.add_messages([{"role": "user", "content": "hello"}], "u1")

    run(main)
    assert seen and set(seen) == {"req-42"}


def test_wrap_rejects_a_bad_pool_size(db_path: str) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        for bad in (0, -1, True, 2.5):
            with pytest.raises(ValidationError, match="max_workers"):
                AsyncMemory.wrap(mem, max_workers=bad)  # type: ignore[arg-type]


# ---- the documented example runs ------------------------------------------------------------


def python_blocks(path: Path) -> list[str]:
    """The ```python blocks of a Markdown file."""
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def test_the_documented_async_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = Path(__file__).resolve().parents[2]
    readme = [b for b in python_blocks(root / "README.md") if "AsyncMemory" in b]
    page = python_blocks(root / "docs" / "async.md")
    assert readme and page and readme[0] == page[0]  # one example, shown twice
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MNEMO_EMBEDDER", "hashing")
    exec(compile(page[0], "docs/async.md", "exec"), {"__name__": "example"})
    assert capsys.readouterr().out.startswith("I moved to Lisbon\n")
    assert (tmp_path / "mnemo.db").exists()
