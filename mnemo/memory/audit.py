"""The memory audit of :class:`mnemo.Memory`: ``audit`` (see :mod:`mnemo.ops.audit`)."""

from __future__ import annotations

from collections.abc import Sequence

from mnemo.memory.tenant import TenantService
from mnemo.ops.audit.findings import AuditReport
from mnemo.ops.audit.run import Auditor, AuditRequest
from mnemo.ops.steps import ProgressFactory


class Audit(TenantService):
    """The audit of one tenant's facts and profile."""

    def audit(
        self,
        user_id: str | None = None,
        *,
        fix: bool = False,
        apply: Sequence[str] | None = None,
        progress: ProgressFactory | None = None,
    ) -> AuditReport:
        """Audit the live facts and active profile values of ``user_id`` (None: every user
        of the tenant): near-duplicate facts, contradictions, stale values and junk, each
        finding naming its memories and offering a fix that goes through history (merge,
        supersede or delete; see docs/audit.md).

        ``fix=True`` applies the safe fixes (exact copies, junk with no content word, a
        value superseded in time where the fact rules read one state); ``apply`` applies
        the fixes of the findings it names by id, whatever their safety (a person's
        decision). ``progress`` opens a bar for the users audited (``(label, total)`` -> a
        context yielding ``advance(n)``). Returns the :class:`~mnemo.ops.audit.findings.
        AuditReport`; each finding's ``applied`` says which fixes this call made.
        """
        q = AuditRequest.of(user_id, fix, apply)
        return Auditor(self.store, self.settings, self.embed).run(q, progress)


__all__ = ["Audit"]
