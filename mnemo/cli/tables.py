"""Rich tables shared by the commands: search hits with their stage scores, and the titles of
tables that quote what a user typed or stored."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from mnemo.schemas import Hit


def title_text(title: str) -> Text:
    """A table title shown as it is, in the style Rich gives titles: a title may quote a query,
    a user or a path, and Rich would read brackets in a plain ``str`` title as markup.

    >>> title_text("1 hits for '[/]'").plain
    "1 hits for '[/]'"
    """
    return Text(title, style="table.title")


def hits_table(hits: list[Hit], title: str, explain: bool = False) -> Table:
    """A table of hits: each one's ``relevance`` (the number to read; marked ``~`` when it is
    not calibrated, see docs/scores.md) and, with ``explain``, every stage's score. The title
    (it may quote a query) and the contents are Text, never read as markup."""
    table = Table(title=title_text(title), show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("relevance", justify="right")
    table.add_column("kind")
    table.add_column("when")
    table.add_column("content", overflow="fold")
    if explain:
        table.add_column("stages", overflow="fold")
    for i, h in enumerate(hits, 1):
        who = f"{h.name or h.role}: " if h.kind == "message" and (h.name or h.role) else ""
        rel = "-" if h.relevance is None else f"{'' if h.calibrated else '~'}{h.relevance:.3f}"
        # Text: the content as stored, never read as markup ("[/]" in it would raise)
        row: list[str | Text] = [str(i), rel, h.kind, h.created_at.strftime("%Y-%m-%d")]
        row.append(Text(who + h.content))
        if explain:
            row.append(" ".join(f"{k}={v:.3g}" for k, v in h.scores.items()))
        table.add_row(*row)
    return table
