"""Without the postgres extra the PostgreSQL-only test modules are skipped, not errors: the
``collect_ignore_glob`` of ``tests/conftest.py`` matches the files where they really are."""

from __future__ import annotations

import fnmatch
import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
#: A ``sitecustomize`` under which the postgres extra fails to import, as when not installed.
BLOCK_EXTRA = (
    "import sys\n"
    "for name in ('psycopg', 'psycopg_pool', 'pgvector'):\n"
    "    sys.modules[name] = None\n"
)


def pg_only_globs() -> list[str]:
    """``PG_ONLY`` of ``tests/conftest.py``, read from its source."""
    namespace: dict[str, object] = {}
    for line in (TESTS / "conftest.py").read_text(encoding="utf-8").splitlines():
        if line.startswith("PG_ONLY = "):
            exec(line, namespace)  # one literal list assignment
    globs = namespace["PG_ONLY"]
    assert isinstance(globs, list)
    return [str(g) for g in globs]


def test_each_postgres_only_glob_matches_a_test_module() -> None:
    modules = [str(p) for p in TESTS.rglob("test_*.py")]
    for glob in pg_only_globs():
        pattern = str(TESTS / glob)  # how pytest joins a conftest's glob to its folder
        assert [m for m in modules if fnmatch.fnmatch(m, pattern)], glob


def test_collection_without_the_postgres_extra_has_no_errors(tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text(BLOCK_EXTRA, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            str(TESTS / "storage"),
            str(TESTS / "ops"),
            str(TESTS / "api"),
        ],
        cwd=TESTS.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "error" not in done.stdout.lower().splitlines()[-1]
    assert "test_postgres" not in done.stdout  # ignored, not collected
