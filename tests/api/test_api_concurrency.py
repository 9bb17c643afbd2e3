"""Concurrent requests on one user: writes, updates and searches interleave without errors
(the server shares one vector index per user between its threads)."""

from __future__ import annotations

import threading
import time
import traceback

from mnemo import Memory


def test_searches_during_writes_and_updates_never_fail(mem: Memory) -> None:
    item = mem.add("seed fact about dogs", user_id="u1")
    errors: list[BaseException] = []
    stop = time.monotonic() + 3.0

    def writer(n: int) -> None:
        i = 0
        while time.monotonic() < stop:
            mem.add_messages(
                [{"role": "user", "content": f"w{n} {i} dogs in the park"}], "u1", f"s{n}"
            )
            if i % 5 == 0:
                mem.update(item.id, content=f"seed fact about dogs {n} {i}")  # bumps the generation
            i += 1

    def reader() -> None:
        while time.monotonic() < stop:
            mem.search("dogs park", user_id="u1", session_id="s1", kinds=["message"])
            mem.context("dogs park", "u1", "s1")

    def guard(fn: object, *args: object) -> None:
        try:
            fn(*args)  # type: ignore[operator]
        except BaseException as exc:  # collected and asserted on below
            errors.append(exc)

    threads = [threading.Thread(target=guard, args=(writer, n)) for n in range(3)]
    threads += [threading.Thread(target=guard, args=(reader,)) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    detail = "".join(traceback.format_exception(errors[0])) if errors else ""
    assert errors == [], detail
    assert mem.search("dogs park", user_id="u1")
