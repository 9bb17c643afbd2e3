"""The MCP server: mnemo's memory as Model Context Protocol tools and resources.

:func:`~mnemo.mcp.server.create_server` builds an ``MCPServer`` (the official ``mcp`` SDK)
over a :class:`~mnemo.mcp.source.MemorySource`; :mod:`mnemo.mcp.http` serves it over
streamable HTTP behind an authenticator. ``mnemo mcp`` (stdio or ``--http``) and
``mnemo serve`` (mounted at ``/mcp``) wire it to a store; see docs/mcp.md.
"""
