"""``/docs`` works offline: Swagger UI's page names no other host, and mnemo serves its script,
style sheet and icon itself."""

from __future__ import annotations

import re
from pathlib import Path

from api_support import served


def test_docs_page_and_its_assets_come_from_mnemo(tmp_path: Path) -> None:
    with served(str(tmp_path / "m.db"), serve_worker=False) as (_, client):
        page = client.get("/docs")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        html = page.text
        assert re.findall(r"(?:https?:)?//[\w.-]+", html) == []  # no external host at all
        urls = re.findall(r"""(?:src|href)=["']([^"']+)["']""", html)
        urls += re.findall(r"url: ?'([^']+)'", html)  # the spec URL in the inline script
        assert "/docs/assets/swagger-ui-bundle.js" in urls and "/openapi.json" in urls
        for url in urls:
            got = client.get(url)
            assert got.status_code == 200, url
        js = client.get("/docs/assets/swagger-ui-bundle.js")
        assert (
            js.headers["content-type"].startswith("text/javascript")
            and "SwaggerUIBundle" in (js.text[:2000])
        )
        css = client.get("/docs/assets/swagger-ui.css")
        assert css.headers["content-type"].startswith("text/css") and ".swagger-ui" in css.text
        assert client.get("/docs/oauth2-redirect").status_code == 200
        missing = client.get("/docs/assets/index.html")  # only the page's own files are served
        assert missing.status_code == 404 and "no docs asset" in missing.json()["error"]["message"]
        assert client.get("/redoc").status_code == 404  # ReDoc would load from a CDN
