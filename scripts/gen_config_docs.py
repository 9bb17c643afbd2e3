"""Regenerate docs/configuration.md from Settings: python scripts/gen_config_docs.py"""

from __future__ import annotations

from pathlib import Path

from mnemo.config.settings import PRESETS, Settings

INTRO = """# Configuration

mnemo has one frozen `Settings` object. Each setting can be given, highest priority first, as a
constructor argument (`Memory(path, search_limit=5)` or `Settings(...)`), as an environment
variable `MNEMO_<NAME>`, as a key in a TOML file named by `config_file` / `MNEMO_CONFIG_FILE`
(top level or under `[mnemo]`), or by the chosen preset; otherwise the default applies.
Nothing reads the environment at import time.
"""

EXAMPLE = """## Example TOML

```toml
[mnemo]
path = "memory/mnemo.db"
embedder = "local"
search_limit = 8
```
"""


def render() -> str:
    """The whole Markdown page."""
    lines = [INTRO, "| setting | env var | default | meaning |", "|---|---|---|---|"]
    for name, field in Settings.model_fields.items():
        default = "unset" if field.default is None else f"`{field.default}`"
        lines.append(f"| `{name}` | `MNEMO_{name.upper()}` | {default} | {field.description} |")
    lines += [
        "",
        "## Presets",
        "",
        "A preset reproduces one seed design's documented numbers; explicit settings still win.",
        "",
        "| preset | settings it changes |",
        "|---|---|",
    ]
    for preset, values in PRESETS.items():
        changes = ", ".join(f"`{k}={v}`" for k, v in values.items())
        lines.append(f"| `{preset}` | {changes or 'none (the measured defaults)'} |")
    return "\n".join(lines) + "\n\n" + EXAMPLE


if __name__ == "__main__":
    target = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"
    target.write_text(render(), encoding="utf-8")
    print(f"wrote {target}")
