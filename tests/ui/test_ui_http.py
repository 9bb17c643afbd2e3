"""The web UI over real HTTP (no browser): pages, error pages, the confirmation steps, the
form tokens and cross-site checks, the login cookie, and tenants kept apart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from ui_support import UiServer, dead_job, post_form, seed, token, ui_server

FACT = "Ann keeps bees on the roof of her building"


@pytest.fixture(scope="module")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    """An open server (no API keys) for the module."""
    with ui_server(str(tmp_path_factory.mktemp("ui") / "open.db")) as srv:
        yield srv


@pytest.fixture
def client(open_server: UiServer) -> Iterator[httpx.Client]:
    """A client of the open server."""
    with httpx.Client(base_url=open_server.ui, timeout=30) as c:
        yield c


def test_pages_render_with_the_data_and_security_headers(
    open_server: UiServer, client: httpx.Client
) -> None:
    mem = open_server.memory()
    item = seed(mem, "ann", FACT)
    bare = client.get(open_server.url + "/ui", follow_redirects=False)
    assert bare.status_code == 307 and bare.headers["location"].endswith("/ui/")
    home = client.get("/", follow_redirects=False)
    assert home.status_code == 303 and home.headers["location"] == "/ui/users"
    pages = {
        "/users": "ann",
        "/user?user_id=ann": "s1",
        "/session?user_id=ann&session_id=s1": FACT,
        "/memories?user_id=ann": FACT,
        f"/memories/{item.id}": "Where it came from",
        "/search?user_id=ann&q=bees+roof": "lexical",
        "/jobs": "Jobs",
    }
    for path, text in pages.items():
        r = client.get(path)
        assert r.status_code == 200, (path, r.text[:500])
        assert text in r.text, path
        assert "text/html" in r.headers["content-type"]
        assert "default-src 'self'" in r.headers["content-security-policy"]
        assert r.headers["cache-control"] == "no-store" and r.headers["x-frame-options"] == "DENY"
    detail = client.get(f"/memories/{item.id}").text
    assert f"/ui/turns/{item.source_message_ids[0]}" in detail  # provenance links to its turn
    turn = client.get(f"/turns/{item.source_message_ids[0]}", follow_redirects=False)
    assert turn.status_code == 303
    assert turn.headers["location"].endswith(f"session_id=s1#{item.source_message_ids[0]}")
    css = client.get("/static/ui.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    js = client.get("/static/ui.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")


def test_not_found_and_bad_input_are_html_errors_not_500s(
    open_server: UiServer, client: httpx.Client
) -> None:
    item = seed(open_server.memory(), "bad-input", "Bo plays the oboe")
    cases = {
        "/no/such/page": 404,
        "/memories/mem_unknown": 404,
        "/memories/msg_123": 404,  # a turn id is not a memory
        "/turns/mem_123": 404,
        "/user?user_id=nobody": 404,
        "/user": 422,  # user_id missing
        "/session?user_id=bad-input&session_id=nope": 404,
        "/users?offset=-1": 422,
        "/search?limit=abc": 422,
        "/search?user_id=x&q=y&limit=0": 422,
        "/jobs?status=zombie": 422,
        "/memories?kind=gossip": 422,
        "/static/../app.py": 404,
        "/static/secret.txt": 404,
    }
    for path, status in cases.items():
        r = client.get(path)
        assert r.status_code == status, (path, r.status_code, r.text[:300])
        assert "text/html" in r.headers["content-type"] and 'data-testid="error"' in r.text, path
    no_user = client.get("/search?q=oboe")
    assert no_user.status_code == 200 and "a user id is needed" in no_user.text
    form = token(client.get(f"/memories/{item.id}/edit").text)
    url = f"/memories/{item.id}/edit"
    for fields, message in (
        ({"content": "  "}, "must not be empty"),
        ({"content": "Bo plays the oboe", "importance": "3"}, "between 0 and 1"),
        ({"content": "Bo plays the oboe", "importance": "lots"}, "must be a number"),
        ({"content": "Bo plays the oboe", "tags": "seed", "importance": "0.5"}, "nothing"),
    ):
        r = post_form(client, url, {"csrf": form, **fields})
        assert r.status_code == 422 and message in r.text, (fields, r.text[:300])
    huge = post_form(client, url, {"csrf": form, "content": "x" * 200_000, "confirm": "yes"})
    assert huge.status_code == 422 and "limit" in huge.text  # max_content_chars, from update()
    too_big = post_form(client, url, {"csrf": form, "content": "x" * 1_100_000})
    assert too_big.status_code == 422 and "larger than" in too_big.text
    raw = client.post(url, content=b"{}", headers={"content-type": "application/json"})
    assert raw.status_code == 422 and "expected a form" in raw.text
    assert client.get(f"/memories/{item.id}").text.count("Bo plays the oboe") >= 1


def test_edit_and_delete_go_through_a_confirmation_step(
    open_server: UiServer, client: httpx.Client
) -> None:
    mem = open_server.memory()
    item = seed(mem, "cy", "Cy drinks green tea")
    url = f"/memories/{item.id}/edit"
    form = token(client.get(url).text)
    fields = {"csrf": form, "content": "Cy drinks black coffee", "tags": "drinks", "importance": ""}
    review = post_form(client, url, fields)
    assert review.status_code == 200 and "Save this change?" in review.text
    assert mem.get(item.id).content == "Cy drinks green tea"  # not saved yet
    saved = post_form(client, url, {**fields, "confirm": "yes"})
    assert saved.status_code == 303 and saved.headers["location"].endswith("done=updated")
    changed = mem.get(item.id)
    assert changed.content == "Cy drinks black coffee" and changed.tags == ["drinks"]
    assert [h.actor for h in mem.history(item.id)] == ["api", "ui"]
    assert [h.id for h in mem.search("black coffee", "cy")][:1] == [item.id]
    confirm = client.get(f"/memories/{item.id}/delete")
    assert confirm.status_code == 200 and "Delete this memory?" in confirm.text
    assert mem.get(item.id).deleted_at is None  # the GET deleted nothing
    gone = post_form(client, f"/memories/{item.id}/delete", {"csrf": token(confirm.text)})
    assert gone.status_code == 303 and "done=deleted" in gone.headers["location"]
    assert item.id not in [h.id for h in mem.search("black coffee", "cy")]
    page = client.get(f"/memories/{item.id}")
    assert page.status_code == 200 and 'data-testid="deleted"' in page.text  # history stays
    assert client.get(f"/memories/{item.id}/edit").status_code == 404


def test_erase_needs_the_typed_user_id(open_server: UiServer, client: httpx.Client) -> None:
    mem = open_server.memory()
    seed(mem, "dee", "Dee collects stamps")
    form = client.get("/user/erase?user_id=dee")
    assert form.status_code == 200 and "cannot be undone" in form.text
    fields = {"csrf": token(form.text), "user_id": "dee", "confirm_user_id": "de"}
    wrong = post_form(client, "/user/erase", fields)
    assert wrong.status_code == 422 and "nothing was erased" in wrong.text
    assert mem.sessions("dee") != []
    done = post_form(client, "/user/erase", {**fields, "confirm_user_id": "dee"})
    assert done.status_code == 200 and "Erased user" in done.text
    assert mem.sessions("dee") == [] and mem.list("dee") == []
    assert "dee" not in [u.user_id for u in mem.users()]
    assert client.get("/user/erase?user_id=dee").status_code == 404  # gone: nothing to offer
    assert client.get("/user/erase?user_id=nobody").status_code == 404


def test_dead_jobs_are_shown_with_their_error_and_requeued(
    open_server: UiServer, client: httpx.Client
) -> None:
    mem = open_server.memory()
    dead_job(mem, "eve")
    page = client.get("/jobs?status=dead")
    assert "no handler" in page.text and "Re-queue" in page.text
    r = post_form(client, "/jobs/requeue-dead", {"csrf": token(page.text)})
    assert r.status_code == 303 and r.headers["location"].endswith("requeued=1")
    assert mem.jobs("dead") == [] and any(j.user_id == "eve" for j in mem.jobs("pending"))
    shown = client.get(r.headers["location"].removeprefix("/ui"))
    assert "Put 1 dead job back in the queue" in shown.text


def test_forms_refuse_missing_or_foreign_tokens_and_other_sites(
    open_server: UiServer, client: httpx.Client
) -> None:
    mem = open_server.memory()
    item = seed(mem, "fay", "Fay sails on weekends")
    url = f"/memories/{item.id}/delete"
    good = token(client.get(url).text)
    own = str(client.base_url.copy_with(path="/")).rstrip("/")
    refused = [
        post_form(client, url, {"confirm": "yes"}),  # no token at all
        post_form(client, url, {"csrf": "0" * 64}),
        post_form(client, url, {"csrf": good}, origin="http://evil.example"),
        post_form(client, url, {"csrf": good}, origin="null"),
        post_form(client, url, {"csrf": good}, **{"sec-fetch-site": "cross-site"}),
    ]
    for r in refused:
        assert r.status_code == 403 and 'data-testid="error"' in r.text
    assert post_form(client, url, {}).status_code == 422  # not even a form
    assert mem.get(item.id).deleted_at is None
    ok = post_form(client, url, {"csrf": good}, origin=own, **{"sec-fetch-site": "same-origin"})
    assert ok.status_code == 303


def test_an_open_server_answers_only_to_loopback_names(open_server: UiServer) -> None:
    with httpx.Client(base_url=open_server.ui) as c:
        rebound = c.get("/users", headers={"host": "attacker.example"})
        assert rebound.status_code == 403 and "loopback" in rebound.text
        assert c.get("/users", headers={"host": "localhost"}).status_code == 200
        sneaky = c.get(
            "/users", headers={"host": "attacker.example", "authorization": "Bearer sk-upstream"}
        )
        assert sneaky.status_code == 403  # a non-mnemo bearer proves no key
        login = c.get("/login")
        assert "needs no login" in login.text


def test_keys_login_cookie_and_tenants_kept_apart(tmp_path: Path) -> None:
    with ui_server(str(tmp_path / "keys.db"), ("acme", "globex")) as srv:
        mine = seed(srv.memory("acme"), "ann", "Ann's locker code is 1234")
        theirs = seed(srv.memory("globex"), "bob", "Bob's locker code is 9876")
        with httpx.Client(base_url=srv.ui, timeout=30) as c:
            bounce = c.get("/memories?user_id=ann", follow_redirects=False)
            assert bounce.status_code == 303
            assert bounce.headers["location"] == "/ui/login?next=%2Fui%2Fmemories%3Fuser_id%3Dann"
            assert post_form(c, "/jobs/requeue-dead", {}).status_code == 401
            login = c.get("/login?next=/ui/memories")
            assert 'type="password"' in login.text
            form = {"csrf": token(login.text), "next": "/ui/memories"}
            bad = post_form(c, "/login", {**form, "api_key": "mnemo_nope_nope"})
            assert (
                bad.status_code == 401 and "invalid" in bad.text and "set-cookie" not in bad.headers
            )
            ok = post_form(c, "/login", {**form, "api_key": srv.keys["acme"]})
            assert ok.status_code == 303 and ok.headers["location"] == "/ui/memories"
            cookie = ok.headers["set-cookie"].lower()
            for part in ("httponly", "samesite=strict", "path=/ui/"):
                assert part in cookie, cookie
            page = c.get("/memories")
            assert "code is 1234" in page.text and "code is 9876" not in page.text
            assert 'data-testid="tenant">acme' in page.text
            other = c.get(f"/memories/{theirs.id}")
            assert other.status_code == 404 and "code is 9876" not in other.text
            assert 'data-testid="tenant">acme' in other.text  # the error page keeps the menu
            assert c.get(f"/turns/{theirs.source_message_ids[0]}").status_code == 404
            assert c.get("/user?user_id=bob").status_code == 404
            forged = post_form(c, f"/memories/{theirs.id}/delete", {"csrf": token(page.text)})
            assert forged.status_code == 404 and srv.memory("globex").get(theirs.id)
            out = post_form(c, "/logout", {})
            assert out.status_code == 303 and 'mnemo_ui_key=""' in out.headers["set-cookie"]
            c.cookies.clear()
            assert c.get("/memories", follow_redirects=False).status_code == 303
        # the API key in a header works too; a token made for one key is refused with another
        with httpx.Client(base_url=srv.ui, headers={"X-API-Key": srv.keys["globex"]}) as g:
            view = g.get(f"/memories/{theirs.id}/delete")
            assert view.status_code == 200 and "9876" in view.text
            with httpx.Client(base_url=srv.ui, headers={"X-API-Key": srv.keys["acme"]}) as a:
                mine_token = token(a.get(f"/memories/{mine.id}/delete").text)
            stolen = post_form(g, f"/memories/{theirs.id}/delete", {"csrf": mine_token})
            assert stolen.status_code == 403
        with httpx.Client(base_url=srv.ui) as c:
            evil = c.get("/login?next=//evil.example/x")
            assert 'name="next" value="/ui/"' in evil.text  # no open redirect
            c.cookies.set("mnemo_ui_key", "mnemo_revoked_key", path="/ui/")
            stale = c.get("/users", follow_redirects=False)
            assert stale.status_code == 303 and 'mnemo_ui_key=""' in stale.headers["set-cookie"]
