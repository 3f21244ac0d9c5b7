"""The tree in other forms against a live tree-server: uploads by Content-Type and `format`,
streamed exports by Accept, and exact round trips (export, post back, export again), every
answer checked against openapi.yaml."""
import json
import random

import pytest

ODD = ["a,b", 'say "hi"', "two\nlines", "cr\r\nlf", " lead", "trail ", "ünï 日本 😀", "back\\slash", "x/y", "~1", ""]


def check(api, method, path, status, **kw):
    r = api.request(method, path, **kw)
    body, problems = api.spec.problems(method, r, status)
    assert not problems, problems
    return r


def random_tree(rng, n, integer_ids):
    """Nested upload nodes with odd ids and titles, unique ids, random expansion and data."""
    nodes, frames = [], []
    for k in range(n):
        title = rng.choice(ODD) + str(k % 7) if rng.random() < 0.7 else rng.choice(ODD)
        node = {"id": k if integer_ids and rng.random() < 0.5 else f"{rng.choice(ODD)}#{k}", "title": title}
        if rng.random() < 0.3:
            node["expanded"] = True
        if rng.random() < 0.1:
            node["hasChildren"] = True
        if rng.random() < 0.3:
            node["data"] = rng.choice([{"k": [1, "é"]}, None, "s,\"q\"", 12.5, [], {}])
        frames = frames[: rng.randint(0, len(frames))]
        (frames[-1].setdefault("children", []) if frames else nodes).append(node)
        frames.append(node)
    return {"nodes": nodes}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("accept,integer_ids", [("text/csv", False), ("application/x-ndjson", True)])
def test_exports_round_trip(api, seed, accept, integer_ids):
    rng = random.Random(seed)
    tree = random_tree(rng, 400, integer_ids)
    sid = check(api, "POST", "/sessions", 201, body=tree).json()["id"]
    nested = check(api, "GET", f"/sessions/{sid}/tree", 200).content
    exported = check(api, "GET", f"/sessions/{sid}/tree", 200, headers={"Accept": accept})
    assert exported.headers["Content-Type"].startswith(accept)
    copy = check(api, "POST", "/sessions", 201, raw=exported.content, headers={"Content-Type": accept}).json()["id"]
    assert check(api, "GET", f"/sessions/{copy}/tree", 200).content == nested
    again = check(api, "GET", f"/sessions/{copy}/tree", 200, headers={"Accept": accept})
    assert again.content == exported.content


def test_a_large_csv_export_streams_and_comes_back(api):
    rows = ["id,parentId,title"] + [f"{k},{(k - 1) // 3 if k else ''},\"Item, {k}\"" for k in range(30000)]
    body = ("\n".join(rows) + "\n").encode()
    sid = check(api, "POST", "/sessions", 201, raw=body, headers={"Content-Type": "text/csv"}).json()["id"]
    exported = check(api, "GET", f"/sessions/{sid}/tree?format=csv", 200)
    lines = exported.content.decode().split("\r\n")
    assert lines[0] == "id,parentId,title,expanded,hasChildren,data"
    assert len(lines) == 30002 and lines[-1] == ""
    assert lines[1] == '0,,"Item, 0",,,'


def test_path_lists_from_git_and_back(api):
    listing = b'README.md\nSources/main.swift\n"caf\\303\\251/men\\303\\274.txt"\nSources/Util/\n'
    r = check(api, "POST", "/sessions?format=paths", 201, raw=listing, headers={"Content-Type": "application/x-www-form-urlencoded"})
    sid = r.json()["id"]
    assert r.json()["nodeCount"] == 6
    text = check(api, "GET", f"/sessions/{sid}/tree", 200, headers={"Accept": "text/plain"}).content.decode()
    assert "café/menü.txt" in text.splitlines()
    again = check(api, "POST", "/sessions", 201, raw=text.encode(), headers={"Content-Type": "text/plain"}).json()["id"]
    ids = lambda s: [(n["id"], n["title"]) for n in map(json.loads, check(
        api, "GET", f"/sessions/{s}/tree", 200, headers={"Accept": "application/x-ndjson"}).content.decode().splitlines())]
    assert ids(again) == ids(sid)


def test_refusals_are_documented(api):
    check(api, "POST", "/sessions", 415, raw=b"a", headers={"Content-Type": "application/xml"})
    bad = check(api, "POST", "/sessions", 422, raw=b"id,parentId,title\n1,,a\n2,9,b\n", headers={"Content-Type": "text/csv"})
    assert bad.json()["line"] == 3
    malformed = check(api, "POST", "/sessions", 400, raw=b'id,parentId,title\n1,,"a\n', headers={"Content-Type": "text/csv"})
    assert malformed.json()["type"].endswith("malformed-body")
    sid = check(api, "POST", "/sessions", 201, body=[{"title": "x"}, {"title": "x"}]).json()["id"]
    check(api, "GET", f"/sessions/{sid}/tree", 406, headers={"Accept": "text/plain"})
    check(api, "GET", f"/sessions/{sid}/tree", 406, headers={"Accept": "image/png"})
