"""RowCounts: rows per table that a maintenance operation wrote, read or rebuilt."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class RowCounts:
    """Rows per table (``rows``) and their :attr:`total`; the base of the reports of export,
    import and re-embedding."""

    rows: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        """Rows over every table."""
        return sum(self.rows.values())


__all__ = ["RowCounts"]
