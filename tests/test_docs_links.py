"""The README's and docs' relative links and images point at files of the repository (the
web UI's screenshots in docs/screenshots/ included), so a renamed or unsaved file is caught."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: ``[text](target)`` and ``![alt](target)``; the target ends at a space, ``)`` or ``#``.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s#]+)[^)]*\)")


def relative_targets(md: Path) -> list[str]:
    """The link targets of ``md`` that name a path (no URL scheme, no bare anchor)."""
    text = re.sub(r"```.*?```", "", md.read_text(encoding="utf-8"), flags=re.S)
    return [t for t in LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:", t)]


def test_the_readme_shows_a_ui_screenshot() -> None:
    images = [t for t in relative_targets(ROOT / "README.md") if t.endswith(".png")]
    assert any(t.startswith("docs/screenshots/") for t in images), images


def test_every_relative_link_and_image_exists() -> None:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = [
        f"{md.relative_to(ROOT)} -> {target}"
        for md in files
        for target in relative_targets(md)
        if not (md.parent / target).exists()
    ]
    assert broken == []
