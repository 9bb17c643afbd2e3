"""CI guard rails: under ``CI=true`` a PostgreSQL that is missing or does not answer fails the
run (pytest and ``make test`` alike), and so does a missing Chromium for the web UI's browser
tests; on a developer's machine those tests are skipped. ``make test`` installs Chromium when it
is missing and make runs as root.

Each case runs the real pytest (on one PostgreSQL test) or the real ``make test`` recipe (with
a stand-in for the venv's pytest, since setup, lint and typecheck are not what is tested) in a
subprocess with a controlled environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PG_TEST = "tests/storage/test_postgres_jobs.py::test_claim_filters_kinds_and_respects_run_after"
UNREACHABLE = "postgresql://postgres@127.0.0.1:1/postgres"  # nothing listens on port 1
BROWSER_TEST = "tests/ui/test_ui_browser.py::test_docs_render_offline"


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CI" and not k.startswith("MNEMO_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.update(extra)
    return env


def run_pytest(**extra: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("psycopg")  # without the extra the PostgreSQL modules are not collected
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", PG_TEST],
        cwd=ROOT,
        env=environment(**extra),
        capture_output=True,
        text=True,
        timeout=120,
    )


def summary(out: subprocess.CompletedProcess[str]) -> str:
    """pytest's last line, e.g. ``1 skipped in 0.1s``."""
    return out.stdout.strip().splitlines()[-1]


def test_without_a_server_postgres_tests_skip_locally() -> None:
    out = run_pytest()
    assert out.returncode == 0, out.stdout + out.stderr
    assert summary(out).startswith("1 skipped") and "MNEMO_TEST_DATABASE_URL" in out.stdout


def test_without_a_server_postgres_tests_fail_under_ci() -> None:
    out = run_pytest(CI="true")
    assert out.returncode == 1, out.stdout + out.stderr
    assert summary(out).startswith("1 error")  # failed in the pg_url fixture's setup
    assert "CI=true, so PostgreSQL tests must run" in out.stdout


def test_an_unreachable_server_skips_locally_and_fails_under_ci() -> None:
    local = run_pytest(MNEMO_TEST_DATABASE_URL=UNREACHABLE)
    assert local.returncode == 0, local.stdout + local.stderr
    assert summary(local).startswith("1 skipped") and "does not answer" in local.stdout
    ci = run_pytest(MNEMO_TEST_DATABASE_URL=UNREACHABLE, CI="true")
    assert ci.returncode == 1, ci.stdout + ci.stderr
    assert summary(ci).startswith("1 error") and "does not answer" in ci.stdout


@pytest.fixture
def fake_bin(tmp_path: Path) -> Path:
    """A venv bin/ whose pytest only reports what it was given."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    script = bin_ / "pytest"
    script.write_text(
        '#!/bin/sh\necho "pytest ran with url=[$MNEMO_TEST_DATABASE_URL]'
        ' chromium=[$MNEMO_TEST_CHROMIUM]"\n'
    )
    script.chmod(0o755)
    return bin_


def run_make(fake_bin: Path, tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    # -o: take setup, lint and typecheck as done; only the test recipe runs.
    skip = ["-o", "setup", "-o", ".venv/.torch", "-o", "lint", "-o", "typecheck"]
    extra.setdefault("CHROMIUM", sys.executable)  # present: no install attempted
    extra.setdefault("QEMU", sys.executable)  # likewise
    cmd = [
        make, "-s", *skip, f"BIN={fake_bin}", f"CHROMIUM={extra.pop('CHROMIUM')}",
        f"QEMU={extra.pop('QEMU')}", "test",
    ]  # fmt: skip
    return subprocess.run(
        cmd, cwd=ROOT, env=environment(**extra), capture_output=True, text=True, timeout=60
    )


def test_make_test_fails_under_ci_when_postgres_cannot_start(
    fake_bin: Path, tmp_path: Path
) -> None:
    failing = tmp_path / "pgvector.sh"
    failing.write_text("echo 'initdb: cannot start' >&2\nexit 3\n")
    for script in (str(tmp_path / "missing.sh"), str(failing)):
        out = run_make(fake_bin, tmp_path, CI="true", PGVECTOR=script)
        assert out.returncode != 0, out.stdout + out.stderr
        assert "CI=true: the PostgreSQL tests must run, but no server" in out.stderr
        assert "pytest ran" not in out.stdout
    (ROOT / ".pgvector.log").unlink(missing_ok=True)


def test_make_test_skips_postgres_locally_and_uses_a_given_server(
    fake_bin: Path, tmp_path: Path
) -> None:
    out = run_make(fake_bin, tmp_path, PGVECTOR=str(tmp_path / "missing.sh"))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "its tests will be skipped" in out.stdout and "pytest ran with url=[]" in out.stdout
    assert f"chromium=[{sys.executable}]" in out.stdout
    url = "postgresql://u@127.0.0.1:5/db"
    out = run_make(fake_bin, tmp_path, CI="true", MNEMO_TEST_DATABASE_URL=url)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"pytest ran with url=[{url}]" in out.stdout


def test_browser_tests_skip_locally_and_fail_under_ci_without_chromium(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-chromium")
    cmd = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", BROWSER_TEST]
    local = subprocess.run(
        cmd, cwd=ROOT, env=environment(MNEMO_TEST_CHROMIUM=missing), capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert local.returncode == 0, local.stdout + local.stderr
    assert summary(local).startswith("1 skipped") and "apt-get install -y chromium" in local.stdout
    ci = subprocess.run(
        cmd, cwd=ROOT, env=environment(MNEMO_TEST_CHROMIUM=missing, CI="true"),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ci.returncode == 1, ci.stdout + ci.stderr
    assert "CI=true, so the browser tests must run" in ci.stdout


def fake_tools(fake_bin: Path, uid: int) -> Path:
    """``id`` answering ``uid`` and an ``apt-get`` that logs its arguments, in ``fake_bin``;
    returns the log."""
    log = fake_bin / "apt-get.log"
    (fake_bin / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    (fake_bin / "apt-get").write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    for name in ("id", "apt-get"):
        (fake_bin / name).chmod(0o755)
    return log


def test_make_test_installs_chromium_when_missing_and_root(fake_bin: Path, tmp_path: Path) -> None:
    log = fake_tools(fake_bin, 0)
    path = f"{fake_bin}{os.pathsep}{os.environ.get('PATH', '')}"
    url = "postgresql://u@127.0.0.1:5/db"
    missing = str(tmp_path / "no-chromium")
    out = run_make(fake_bin, tmp_path, PATH=path, MNEMO_TEST_DATABASE_URL=url, CHROMIUM=missing)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "installing chromium" in out.stdout
    assert log.read_text().splitlines()[-1] == "install -y -qq chromium"
    assert f"chromium=[{missing}]" in out.stdout
    (ROOT / ".chromium.log").unlink(missing_ok=True)


def test_make_test_only_warns_without_chromium_when_not_root(
    fake_bin: Path, tmp_path: Path
) -> None:
    log = fake_tools(fake_bin, 1000)
    path = f"{fake_bin}{os.pathsep}{os.environ.get('PATH', '')}"
    url = "postgresql://u@127.0.0.1:5/db"
    missing = str(tmp_path / "no-chromium")
    out = run_make(fake_bin, tmp_path, PATH=path, MNEMO_TEST_DATABASE_URL=url, CHROMIUM=missing)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "browser tests will be skipped" in out.stdout and not log.exists()


def test_make_test_installs_qemu_when_missing_and_root(fake_bin: Path, tmp_path: Path) -> None:
    """The AVX2 kernel tests need qemu-user (tests/embedders/test_avx2_kernels.py)."""
    log = fake_tools(fake_bin, 0)
    path = f"{fake_bin}{os.pathsep}{os.environ.get('PATH', '')}"
    url = "postgresql://u@127.0.0.1:5/db"
    out = run_make(
        fake_bin, tmp_path, PATH=path, MNEMO_TEST_DATABASE_URL=url, QEMU="no-such-qemu-here"
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "installing qemu-user" in out.stdout
    assert log.read_text().splitlines()[-1] == "install -y -qq qemu-user"
    (ROOT / ".qemu.log").unlink(missing_ok=True)


def test_make_demo_installs_the_package_without_extras(tmp_path: Path) -> None:
    """``make demo`` sets up what the demo needs; the test tools and servers come with
    ``make test`` (``.venv/.dev``, ``.venv/.torch``)."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    venv = tmp_path / "venv"
    dry = subprocess.run(
        [make, "-n", f"VENV={venv}", "demo"], cwd=ROOT, capture_output=True, text=True,
        timeout=60, env=environment(),
    )  # fmt: skip
    assert dry.returncode == 0, dry.stderr
    installs = [line for line in dry.stdout.splitlines() if "pip install" in line]
    assert installs[-1].rstrip().endswith('-e "."'), installs
    assert not any("dev" in line or "server" in line for line in installs)
    test = subprocess.run(
        [make, "-n", f"VENV={venv}", "test"], cwd=ROOT, capture_output=True, text=True,
        timeout=60, env=environment(),
    )  # fmt: skip
    assert any("server,dev,postgres" in line for line in test.stdout.splitlines())
