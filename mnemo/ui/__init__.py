"""The web UI: ``mnemo serve`` mounts it at ``/ui``.

Server-rendered pages (Jinja2 templates, a little vanilla JavaScript, every asset served from
this package) over one tenant's :class:`~mnemo.Memory`: users and sessions, a conversation's
turns, memories with their history and provenance, the profile, topics, episodes and
summaries, search with every stage's score, edits and erasures behind a confirmation step,
and the job queue. :func:`mnemo.ui.app.create_ui` builds it from two callables -- how a
request's credentials map to a tenant, and that tenant's Memory -- which ``mnemo.cli`` wires
to the REST API's keys and tenants (``ui`` and ``api`` are independent of each other).
"""
