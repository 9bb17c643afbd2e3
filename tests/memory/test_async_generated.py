"""The generated awaitable facades: committed files equal to what ``scripts/gen_async.py``
writes now (else: stale, rerun it), what it writes for a method, what it refuses, and mypy
checking awaited calls through the generated types.
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from mnemo import AsyncMemory, Memory
from mnemo.compat import mem0

ROOT = Path(__file__).resolve().parents[2]


def generator() -> ModuleType:
    """scripts/gen_async.py, imported as a module."""
    spec = importlib.util.spec_from_file_location("gen_async", ROOT / "scripts" / "gen_async.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_async"] = module  # dataclasses resolve the module by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def gen() -> ModuleType:
    return generator()


def test_the_committed_generated_modules_are_fresh(gen: ModuleType) -> None:
    for target in gen.TARGETS:
        committed = (ROOT / target.path).read_text(encoding="utf-8")
        assert committed == gen.render(target), (
            f"{target.path} is stale (its sync class {target.sync} changed): "
            f"run `{gen.COMMAND}` and commit the result"
        )


def test_the_targets_are_the_classes_the_facades_are_built_on(gen: ModuleType) -> None:
    by_sync = {t.sync: t for t in gen.TARGETS}
    assert by_sync["mnemo.memory.facade:Memory"].sync_class() is Memory
    assert by_sync["mnemo.compat.mem0_memory:Memory"].sync_class() is mem0.Memory
    assert AsyncMemory.__mro__[1].__name__ == by_sync["mnemo.memory.facade:Memory"].name
    assert mem0.AsyncMemory.__mro__[1].__name__ == by_sync["mnemo.compat.mem0_memory:Memory"].name


def test_no_getattr_escape_hatch() -> None:
    """Every twin is a real method: nothing answers an unknown name with an awaitable."""
    for cls in (AsyncMemory, mem0.AsyncMemory):
        assert all("__getattr__" not in vars(k) for k in cls.__mro__), cls


class Louder(Memory):
    def shout(self, text: str, times: int = 2, *, sep: str = "", **more: Any) -> str:
        """Say ``text`` louder."""
        return sep.join([text.upper()] * times)

    def whisper(self, text: str, /, pad: tuple[int, ...] = (1, 2)) -> list[str]:
        """Say ``text`` softer."""
        return [text.lower()]


def test_each_method_is_one_twin_line(gen: ModuleType) -> None:
    """The generated class lists every public method as ``name = twin(Sync.name)``, after
    the constructor and ``open`` taken from the sync class; nothing of a method's or the
    constructor's signature or docstring is copied."""
    source = gen.render(gen.TARGETS[0])
    for name in gen.twin_names(Memory):
        assert f"    {name} = twin(Memory.{name})\n" in source
    assert "    @constructor(Memory)\n" in source
    assert "    open = opener(Memory)\n" in source
    assert "async def" not in source
    for parameter in inspect.signature(Memory).parameters:  # path, url, ..., overrides
        assert f"{parameter}:" not in source and f"{parameter}=" not in source, parameter


def test_a_twin_keeps_the_method_and_runs_it_on_the_pool(tmp_path: Path) -> None:
    from mnemo.memory.threaded import ThreadedFacade, twin

    class AsyncLouder(ThreadedFacade[Louder]):
        shout = twin(Louder.shout)
        whisper = twin(Louder.whisper)

    async def body() -> None:
        louder = AsyncLouder.wrap(Louder(str(tmp_path / "l.db"), embedder="hashing"))
        try:
            assert await louder.shout("hi", 3, sep="-") == "HI-HI-HI"
            assert await louder.whisper("HEY") == ["hey"]
        finally:
            await louder.close()

    asyncio.run(body())
    assert AsyncLouder.shout.__doc__ == "Say ``text`` louder."
    assert str(inspect.signature(AsyncLouder.whisper)) == str(inspect.signature(Louder.whisper))


def test_the_constructor_and_open_take_the_sync_classs_arguments(tmp_path: Path) -> None:
    """``constructor`` and ``opener`` build the sync object from the sync class's arguments
    (here a subclass's own) and show its signature."""
    from mnemo.memory.threaded import ThreadedFacade, constructor, opener

    class AsyncLouder(ThreadedFacade[Louder]):
        @constructor(Louder)
        def __init__(self, sync: Louder) -> None:
            """Serve a new Louder."""
            self._attach(sync, 2)

        open = opener(Louder)

    async def body() -> None:
        opened = await AsyncLouder.open(str(tmp_path / "o.db"), embedder="hashing")
        made = AsyncLouder(str(tmp_path / "m.db"), embedder="hashing")
        try:
            for louder in (opened, made):
                assert isinstance(louder, AsyncLouder) and isinstance(louder.sync, Louder)
            assert made.sync.settings.path == str(tmp_path / "m.db")
            assert made._pool._max_workers == 2
        finally:
            await opened.close()
            await made.close()

    asyncio.run(body())
    assert inspect.signature(AsyncLouder) == inspect.signature(Louder)
    assert inspect.signature(AsyncLouder.open).parameters == inspect.signature(Louder).parameters
    assert AsyncLouder.__init__.__doc__ == "Serve a new Louder."
    assert AsyncLouder.open.__doc__ is not None and "opened on a thread" in AsyncLouder.open.__doc__


def test_the_script_check_mode_reports_fresh_files() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_async.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.skipif(
    shutil.which("mypy") is None and not Path(sys.executable).with_name("mypy").exists(),
    reason="mypy not installed",
)
def test_mypy_checks_awaited_calls(tmp_path: Path) -> None:
    code = tmp_path / "calls.py"
    code.write_text(
        "from mnemo import AsyncMemory\n"
        "from mnemo.compat.mem0 import AsyncMemory as Mem0\n\n\n"
        "async def main(mem: AsyncMemory, m0: Mem0) -> None:\n"
        '    await mem.search("q", user_id=3)\n'
        '    n: str = await mem.count("u1")\n'
        "    await mem.nope()\n"
        '    await m0.search("q", top_k="5")\n'
        "    AsyncMemory(3)\n"
        "    await AsyncMemory.open(url=4)\n",
        encoding="utf-8",
    )
    mypy = Path(sys.executable).with_name("mypy")
    out = subprocess.run(
        [str(mypy), "--strict", "--no-error-summary", str(code)],
        capture_output=True,
        text=True,
        timeout=280,
        cwd=ROOT,
    )
    lines = [line.split(": error: ")[1] for line in out.stdout.splitlines() if ": error: " in line]
    assert len(lines) == 6, out.stdout + out.stderr
    assert 'Argument "user_id" has incompatible type "int"' in lines[0]
    assert 'expression has type "int", variable has type "str"' in lines[1]
    assert 'has no attribute "nope"' in lines[2]
    assert 'Argument "top_k" has incompatible type "str"' in lines[3]
    assert 'Argument 1 to "AsyncMemory" has incompatible type "int"' in lines[4]
    assert 'Argument "url" has incompatible type "int"' in lines[5]
