"""Prompt templates: Markdown files in ``mnemo/llm/prompts/``, filled by name.

A template's placeholders are identifiers in single braces, ``{user_message}``; every other
brace (JSON examples) is literal text.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

from mnemo.errors import ValidationError

_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def prompt_names() -> list[str]:
    """Names of the shipped prompts (file names without ``.md``), sorted."""
    folder = resources.files("mnemo.llm").joinpath("prompts")
    return sorted(p.name[:-3] for p in folder.iterdir() if p.name.endswith(".md"))


@lru_cache(maxsize=64)
def load_prompt(name: str) -> str:
    """The text of ``mnemo/llm/prompts/<name>.md``; ValidationError for an unknown name."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValidationError(f"invalid prompt name {name!r}")
    path = resources.files("mnemo.llm").joinpath("prompts", f"{name}.md")
    if not path.is_file():
        raise ValidationError(f"no prompt named {name!r}; known: {prompt_names()}")
    return path.read_text(encoding="utf-8")


def placeholders(template: str) -> set[str]:
    """The placeholder names a template uses."""
    return set(_PLACEHOLDER.findall(template))


def render_prompt(name: str, **values: str) -> str:
    """Prompt ``name`` with each ``{placeholder}`` replaced by ``values[placeholder]``."""
    return fill(load_prompt(name), name, **values)


def fill(template: str, name: str, **values: str) -> str:
    """``template`` with each ``{placeholder}`` replaced by ``values[placeholder]``.

    Substitution is one pass (a value containing ``{x}`` is not expanded again). A placeholder
    without a value, or a value without a placeholder, raises ValidationError naming ``name``.
    """
    wanted = placeholders(template)
    missing, extra = sorted(wanted - set(values)), sorted(set(values) - wanted)
    if missing or extra:
        raise ValidationError(
            f"prompt {name!r} takes {sorted(wanted)}; missing {missing}, unexpected {extra}"
        )
    return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), template)
