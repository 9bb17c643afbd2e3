"""docs/scaling.md's local multi-process recipe, run as written against the test server."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "scaling.md"


def recipe() -> str:
    """The bash block between the recipe markers of docs/scaling.md."""
    text = DOC.read_text(encoding="utf-8")
    block = re.search(
        r"<!-- recipe:start -->\s*```bash\n(.*?)```\s*<!-- recipe:end -->", text, re.S
    )
    assert block, "docs/scaling.md lost its recipe markers"
    return block.group(1)


def test_the_scaling_recipe_runs_as_documented(pg_url: str, tmp_path: Path) -> None:
    # `mnemo` is this checkout's CLI; the recipe's own URL line keeps the test server's URL.
    prelude = f"mnemo() {{ {sys.executable} -c 'from mnemo.cli.main import app; app()' \"$@\"; }}\n"
    script = tmp_path / "recipe.sh"
    script.write_text("set -euo pipefail\n" + prelude + recipe())
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
    env.update(MNEMO_DATABASE_URL=pg_url, PYTHONPATH=str(ROOT), COLUMNS="200")
    done = subprocess.run(
        ["bash", str(script)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    hits = json.loads(done.stdout[done.stdout.index("[") : done.stdout.rindex("]") + 1])
    assert {h["user_id"] for h in hits} == {"u3"}
    turns = sorted(h["content"] for h in hits if h["kind"] == "message")
    assert turns == [f"process 3 wrote turn {t} about the harbour" for t in (1, 2)]
    stats = done.stdout[done.stdout.rindex("]") :]
    assert re.search(r"users\s*│\s*4", stats) and re.search(r"messages\s*│\s*8", stats)
    jobs = re.search(r"jobs\s*│\s*([^│]*?)\s*│", stats)  # "done 24" (status count, ...)
    assert jobs and "done" in jobs.group(1) and "pending" not in jobs.group(1), stats
