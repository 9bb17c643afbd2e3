"""mnemo's REST server and OpenAI-compatible proxy (FastAPI); see docs/server.md.

``from mnemo.api.app import create_app``. Importing this package does not import FastAPI, so
the command line works without the ``server`` extra.
"""
