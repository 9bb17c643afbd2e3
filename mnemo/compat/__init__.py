"""Compatibility layers: other memory libraries' APIs over a mnemo store.

:mod:`mnemo.compat.mem0` offers mem0's OSS ``Memory`` and ``AsyncMemory`` (method names,
arguments, filter syntax and return shapes), so code written for mem0 runs on mnemo with only
its import changed, and :mod:`mnemo.compat.mem0_import` brings a mem0 store's memories over
(see docs/coming-from-mem0.md). Nothing here is imported by ``import mnemo``.
"""
