"""Fixtures of the openapi.yaml suite: the spec, the servers (started by Tests/conftest.py) and
a client that checks every answer against the spec."""
import pytest

from openapi_check import API, Spec

TOKEN = "check-openapi-token"
# The server under test, with room for every session a run creates.
MAIN_FLAGS = ("--max-sessions", "1000000", "--max-body", "1048576")
# Tiny limits and a token, for 401, 413, 429 and 503.
LIMITED_FLAGS = ("--max-sessions", "1", "--max-total-nodes", "3", "--max-body", "4096", "--token", TOKEN)


@pytest.fixture(scope="session")
def spec():
    return Spec()


@pytest.fixture(scope="session")
def api(spec, tree_server):
    return API(spec, {"main": tree_server(*MAIN_FLAGS).url, "limited": tree_server(*LIMITED_FLAGS).url})
