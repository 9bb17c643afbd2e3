"""Regenerate docs/configuration.md from Settings: python scripts/gen_config_docs.py"""

from __future__ import annotations

import sys
from pathlib import Path

from mnemo.config import GROUPS, PRESETS, SettingsGroup

INTRO = """# Configuration

mnemo has one frozen `Settings` object. Each setting can be given, highest priority first, as a
constructor argument (`Memory(path, search_limit=5)` or `Settings(...)`), as an environment
variable `MNEMO_<NAME>`, as a key in a TOML file (top level or under `[mnemo]`), or by the
chosen preset; otherwise the default applies. The TOML file is the one named by `config_file`
/ `MNEMO_CONFIG_FILE`, else `mnemo.toml` in the working directory when there is one (only
one file is read: a named file replaces `./mnemo.toml`, it is not merged with it).
Nothing reads the environment at import time. On the command line, `--db` is a constructor
argument for the store: it wins over both `MNEMO_PATH` and `MNEMO_DATABASE_URL` (a path given
to `--db` is used even when `MNEMO_DATABASE_URL` is set), and `--set KEY=VALUE` (`mnemo serve`,
`mnemo eval`) is a constructor argument too: it wins over the variable and the file.

The store's location, wherever it is given (`--db`, `path` / `MNEMO_PATH`, `database_url` /
`MNEMO_DATABASE_URL`, the TOML file, `Memory(path)`, `Memory(url=...)`), is read one way: a
plain path is a SQLite file; `sqlite:///abs/path.db` (the URL's path, so `/abs/path.db`),
`sqlite:relative.db` and `file:` URIs are SQLite files too (`sqlite://` alone is in memory);
`postgresql://` and `postgres://` URLs select PostgreSQL. Any other scheme (`mysql://`,
`postgresql+psycopg://`, ...) and a SQLite URL with a host or a query are refused with a
`ConfigError` (one `error:` line, exit status 2, on the command line) before anything is
created.

A `MNEMO_*` variable that names no setting is ignored with a warning, one line per variable
and process (logger `mnemo.config`, on stderr unless logging is configured), naming the
closest setting: `mnemo: ignoring MNEMO_DATABSE_URL: not a mnemo setting (did you mean
MNEMO_DATABASE_URL?)`. It is a warning rather than an error so that another tool's `MNEMO_*`
variable does not stop mnemo; `MNEMO_API_KEY` (`mnemo chat`), `MNEMO_TEST_DATABASE_URL` and
`MNEMO_TEST_CHROMIUM` (the tests) are known and not warned about.

The settings are grouped by component below. Every name is flat (`settings.rrf_k`,
`MNEMO_RRF_K`, `rrf_k = 30` in TOML); each group is also a type in `mnemo.config`
(`RetrievalSettings`, ...) that a `Settings` instance satisfies, so a component can depend on
its group only.
"""

EXAMPLE = """## Example TOML

```toml
[mnemo]
path = "memory/mnemo.db"
embedder = "local"
search_limit = 8
```
"""


def _group(group: type[SettingsGroup]) -> list[str]:
    """The section of one group: heading, its one-line summary and its table."""
    title = group.__name__.removesuffix("Settings")
    module = group.__module__.replace(".", "/") + ".py"
    summary = (group.__doc__ or "").strip().splitlines()[0]
    lines = [f"## {title}", "", f"`{group.__name__}` ({module}): {summary}", ""]
    lines += ["| setting | env var | default | meaning |", "|---|---|---|---|"]
    for name, field in group.model_fields.items():
        default = "unset" if field.default is None else f"`{field.default}`"
        lines.append(f"| `{name}` | `MNEMO_{name.upper()}` | {default} | {field.description} |")
    return [*lines, ""]


def render() -> str:
    """The whole Markdown page."""
    lines = [INTRO]
    for group in GROUPS:
        lines += _group(group)
    lines += [
        "## Presets",
        "",
        "A preset reproduces one published design's documented numbers; explicit settings "
        "still win.",
        "",
        "| preset | settings it changes |",
        "|---|---|",
    ]
    for preset, values in PRESETS.items():
        changes = ", ".join(f"`{k}={v}`" for k, v in values.items())
        lines.append(f"| `{preset}` | {changes or 'none (the measured defaults)'} |")
    return "\n".join(lines) + "\n\n" + EXAMPLE


TARGET = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"

if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        sys.exit(0 if TARGET.read_text(encoding="utf-8") == render() else 1)
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET}")
