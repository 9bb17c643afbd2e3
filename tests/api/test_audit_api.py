"""``GET /v1/users/{id}/audit`` and ``POST .../audit/fix`` over real HTTP on both stores: the
findings of a seeded user, the safe fixes, a person's fix by id, refused bodies."""

from __future__ import annotations

from pathlib import Path

from api_support import served
from audit_support import AFTER_FIX, EXPECTED, seed

from mnemo import Memory


def test_audit_routes(target: dict[str, str], tmp_path: Path) -> None:
    path = target.get("path", str(tmp_path / "unused.db"))
    with Memory(**target, embedder="hashing") as mem:
        seed(mem)
    with served(path, database_url=target.get("url"), serve_worker=False) as (_, c):
        got = c.get("/v1/users/u1/audit")
        assert got.status_code == 200, got.text
        report = got.json()
        assert {(f["kind"], f["detail"], f["fix"]["safe"]) for f in report["findings"]} == EXPECTED
        assert report["counts"] == {"duplicate": 1, "contradiction": 1, "stale": 1, "junk": 2}
        for unknown in (c.get("/v1/users/nobody/audit"), c.post("/v1/users/nobody/audit/fix")):
            assert unknown.status_code == 404, unknown.text
            assert unknown.json()["error"]["message"] == "no user 'nobody' in tenant 'default'"

        fixed = c.post("/v1/users/u1/audit/fix").json()
        assert fixed["applied"] == 3
        listed = c.get("/v1/memories", params={"user_id": "u1", "limit": 100}).json()["data"]
        assert {m["content"] for m in listed} == AFTER_FIX

        [question] = [f["id"] for f in report["findings"] if f["detail"] == "question"]
        one = c.post("/v1/users/u1/audit/fix", json={"safe": False, "apply": [question]})
        assert [f["id"] for f in one.json()["findings"] if f["applied"]] == [question]

        bad = c.post("/v1/users/u1/audit/fix", json={"apply": ["mem_1"]})
        assert bad.status_code == 422 and "finding ids" in bad.text
        assert c.post("/v1/users/u1/audit/fix", json={"fix": True}).status_code == 422
