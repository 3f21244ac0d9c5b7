"""Schemathesis with all its checks against a fresh tree-server, on the spec that server serves
(GET /openapi.yaml, which must be the repository's file byte for byte; see schemathesis.toml).
Its event streams are checked too: Schemathesis reads each event and checks it against the
response's schema (StreamEvent, each `data` against its contentSchema).

MAX_EXAMPLES (default 50) test cases per operation and phase; SCHEMATHESIS_SEED for a
reproducible run.
"""
import os
import subprocess
import sys
from pathlib import Path

from openapi_check import MAIN_FLAGS, served_spec

HERE = Path(__file__).resolve().parent


def test_schemathesis(tree_server, tmp_path):
    server = tree_server(*MAIN_FLAGS)
    # The served bytes, from a file: loaded from its URL, Schemathesis leaves GET /openapi.yaml out.
    spec = tmp_path / "openapi.yaml"
    spec.write_bytes(served_spec(server.url))
    seed = os.environ.get("SCHEMATHESIS_SEED")
    command = [sys.executable, str(HERE / "run_schemathesis.py"), "--no-color",
               "--config-file", str(HERE / "schemathesis.toml"), "run", str(spec),
               "--url", server.url, "--checks", "all",
               "--max-examples", os.environ.get("MAX_EXAMPLES", "50"),
               "--workers", "2", "--request-timeout", "30", *(["--seed", seed] if seed else [])]
    # From a scratch directory, so that Schemathesis keeps its crash cache out of the checkout.
    result = subprocess.run(command, cwd=tmp_path, timeout=1800)
    assert result.returncode == 0, f"schemathesis failed (exit {result.returncode}); its report is above"
    assert server.alive(), "tree-server died during the run:\n" + server.log_tail()
