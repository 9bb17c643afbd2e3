"""mnemo's REST server and OpenAI-compatible proxy (FastAPI); see docs/server.md."""

from mnemo.api.app import create_app
from mnemo.api.server import serve

__all__ = ["create_app", "serve"]
