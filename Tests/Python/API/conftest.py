"""Fixtures of the openapi.yaml suite: the spec, the servers (started by Tests/Python/conftest.py)
and a client that checks every answer against the spec."""
import pytest

from openapi_check import API, LIMITED_FLAGS, MAIN_FLAGS, SECURED_FLAGS, Spec


@pytest.fixture(scope="session")
def spec():
    return Spec()


@pytest.fixture(scope="session")
def api(spec, tree_server, signing_key_file):
    return API(spec, {"main": tree_server(*MAIN_FLAGS).url, "limited": tree_server(*LIMITED_FLAGS).url,
                      "secured": tree_server(*SECURED_FLAGS, "--signing-key-file", str(signing_key_file)).url})
