"""Integer members written with a fraction or an exponent (`2.0`, `2e0`) are integers: JSON
Schema's `type: integer`, and so the spec, Schemathesis and generated clients (Python floats)
take them as such, and the service accepts them; `2.5` stays 422. Each body here is checked to
be valid against the spec's request schema first."""
import json

import jsonschema
import pytest

from openapi_check import pointer_escape


def request_validator(spec, template, method):
    pointer = f"/paths/{pointer_escape(template)}/{method.lower()}/requestBody/content/application~1json/schema"
    return jsonschema.Draft202012Validator({"$ref": "urn:spec#" + pointer}, registry=spec.registry)


@pytest.fixture
def sid(api):
    r = api.request("POST", "/sessions", body={"nodes": [
        {"id": 7, "title": "seven", "children": [{"id": 8, "title": "eight"}]},
        {"id": "b", "title": "bee", "children": [{"title": "leaf"}]},
    ]})
    assert r.status_code == 201, r.text
    return r.json()["id"]


RAW = [
    # label, method, path, JSON text of the body, status
    ("expand 1.0", "POST", "/sessions", '{"nodes": [{"title": "a", "children": [{"title": "b"}]}], "expand": 1.0}', 201),
    ("expand 1e0", "POST", "/sessions", '{"nodes": [{"title": "a", "children": [{"title": "b"}]}], "expand": 1e0}', 201),
    ("id 7.0", "POST", "/sessions", '[{"title": "a", "id": 7.0}]', 201),
    ("id 70e-1", "POST", "/sessions", '[{"title": "a", "id": 70e-1}]', 201),
    ("expandDepth 2.0", "PATCH", "/sessions/{sid}", '{"expandDepth": 2.0}', 200),
    ("expandDepth 2E0", "PATCH", "/sessions/{sid}", '{"expandDepth": 2E0}', 200),
    ("insert index 0.0", "POST", "/sessions/{sid}/items", '{"nodes": [{"title": "n"}], "parentId": 7.0, "index": 0.0}', 201),
    ("insert after 8.0", "POST", "/sessions/{sid}/items", '{"nodes": [{"title": "n", "id": 9.0}], "after": 8.0}', 201),
    ("move index 1e0", "PATCH", "/sessions/{sid}/items/b", '{"parentId": 7.0, "index": 1e0}', 200),
    ("expand 1.5", "POST", "/sessions", '{"nodes": [], "expand": 1.5}', 422),
    ("id 7.5", "POST", "/sessions", '[{"title": "a", "id": 7.5}]', 422),
    ("expandDepth 2.5", "PATCH", "/sessions/{sid}", '{"expandDepth": 2.5}', 422),
    ("insert index 0.5", "POST", "/sessions/{sid}/items", '{"nodes": [{"title": "n"}], "index": 0.5}', 422),
    ("move index 1e-1", "PATCH", "/sessions/{sid}/items/b", '{"parentId": null, "index": 1e-1}', 422),
]


@pytest.mark.parametrize("label, method, path, text, status", RAW, ids=[r[0] for r in RAW])
def test_integer_members(label, method, path, text, status, api, sid):
    path = path.format(sid=sid)
    valid = request_validator(api.spec, api.spec.template(path), method).is_valid(json.loads(text))
    assert valid == (status != 422), f"{text} is {'' if valid else 'not '}valid against the spec"
    r = api.request(method, path, raw=text.encode(), headers={"Content-Type": "application/json"})
    _, problems = api.spec.problems(method, r, status)
    assert not problems, problems


def test_an_integral_id_with_a_fraction_is_the_integer_id(api):
    r = api.request("POST", "/sessions", raw=b'[{"title": "a", "id": 7.0}]', headers={"Content-Type": "application/json"})
    assert r.status_code == 201, r.text
    item = api.request("GET", f"/sessions/{r.json()['id']}/items/7")
    assert item.status_code == 200 and item.json()["id"] == 7, item.text
