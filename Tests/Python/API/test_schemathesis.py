"""Schemathesis with all its checks against a fresh tree-server, on the spec that server serves
(GET /openapi.yaml, which must be the repository's file byte for byte; see schemathesis.toml).
Its event streams are checked too: Schemathesis reads each event and checks it against the
response's schema (StreamEvent, each `data` against its contentSchema).

A second, smaller run sends every request with a session token of the `reader` role, on a
server with an admin token and a signing-key file: each request goes to the token's session
(and view), and besides Schemathesis's checks, `reader_never_edits` (schemathesis_hooks.py)
fails any 2xx answer to a request a reader may not make (negative_data_rejection is left out:
see schemathesis-reader.toml).

MAX_EXAMPLES (default 50) test cases per operation and phase, READER_MAX_EXAMPLES (default 10)
in the reader's run; SCHEMATHESIS_SEED for a reproducible run.
"""
import os
import subprocess
import sys
from pathlib import Path

import requests

from openapi_check import MAIN_FLAGS, TOKEN, served_spec

HERE = Path(__file__).resolve().parent
# The reader's session: every kind of node, so that item routes reach real items.
READER_TREE = {"nodes": [
    {"id": "docs", "title": "Documents", "children": [
        {"id": 1, "title": "Report", "data": {"size": 3}}, {"id": "lazy", "title": "Lazy", "hasChildren": True}]},
    {"id": "pics", "title": "Pictures", "expanded": True, "children": [{"title": "Face"}]},
], "name": "Read only", "labels": {"run": "reader"}}


def schemathesis(spec, url, config, max_examples, *extra, env=None, cwd):
    seed = os.environ.get("SCHEMATHESIS_SEED")
    command = [sys.executable, str(HERE / "run_schemathesis.py"), "--no-color",
               "--config-file", str(HERE / config), "run", str(spec),
               "--url", url, "--checks", "all", "--max-examples", max_examples,
               "--workers", "2", "--request-timeout", "30", *extra, *(["--seed", seed] if seed else [])]
    # From a scratch directory, so that Schemathesis keeps its crash cache out of the checkout.
    return subprocess.run(command, cwd=cwd, timeout=1800, env=env)


def test_schemathesis(tree_server, tmp_path):
    server = tree_server(*MAIN_FLAGS)
    # The served bytes, from a file: loaded from its URL, Schemathesis leaves GET /openapi.yaml out.
    spec = tmp_path / "openapi.yaml"
    spec.write_bytes(served_spec(server.url))
    result = schemathesis(spec, server.url, "schemathesis.toml", os.environ.get("MAX_EXAMPLES", "50"), cwd=tmp_path)
    assert result.returncode == 0, f"schemathesis failed (exit {result.returncode}); its report is above"
    assert server.alive(), "tree-server died during the run:\n" + server.log_tail()


def test_schemathesis_reader(tree_server, signing_key_file, tmp_path):
    server = tree_server(*MAIN_FLAGS, "--token", TOKEN, "--signing-key-file", str(signing_key_file))
    spec = tmp_path / "openapi.yaml"
    spec.write_bytes(served_spec(server.url))
    admin = {"Authorization": f"Bearer {TOKEN}"}
    created = requests.post(server.url + "/sessions", json=READER_TREE, headers=admin, timeout=30)
    assert created.status_code == 201, created.text
    sid = created.json()["id"]
    view = requests.post(f"{server.url}/sessions/{sid}/views", headers=admin, timeout=30)
    assert view.status_code == 201, view.text
    minted = requests.post(f"{server.url}/sessions/{sid}/tokens", json={"role": "reader", "ttl": 7200},
                           headers=admin, timeout=30)
    assert minted.status_code == 201, minted.text
    before = tree_of(server.url, sid, admin)
    env = dict(os.environ, TREE_READER_SESSION=sid, TREE_READER_VIEW=view.json()["id"])
    result = schemathesis(spec, server.url, "schemathesis-reader.toml", os.environ.get("READER_MAX_EXAMPLES", "10"),
                          "--header", f"Authorization: Bearer {minted.json()['token']}",
                          "--exclude-checks", "negative_data_rejection", env=env, cwd=tmp_path)
    assert result.returncode == 0, f"schemathesis (reader token) failed (exit {result.returncode}); its report is above"
    assert server.alive(), "tree-server died during the run:\n" + server.log_tail()
    # The tree is as the admin made it: no edit got through.
    assert tree_of(server.url, sid, admin) == before


def tree_of(url, sid, headers):
    """The session's nodes (ids, titles, data, children), whatever their expansion."""
    def shape(nodes):
        return [(n.get("id"), n["title"], n.get("data"), shape(n.get("children", []))) for n in nodes]
    response = requests.get(f"{url}/sessions/{sid}/tree", headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    return shape(response.json()["nodes"])
