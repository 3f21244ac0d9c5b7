"""Calls to a running tree-server over one http.client connection, for the scripts'
inline Python and probes (import with scripts/lib on sys.path)."""
import json


def call(c, method, path, payload=None):
    """Sends one request (JSON content type when there is a body); the response body as
    bytes. Exits with the status and the start of the body on a status >= 300."""
    headers = {"Content-Type": "application/json"} if payload is not None else {}
    c.request(method, path, body=payload, headers=headers)
    r = c.getresponse()
    data = r.read()
    if r.status >= 300:
        raise SystemExit(f"FAIL: {method} {path}: {r.status} {data[:300]!r}")
    return data


def call_json(c, method, path, payload=None):
    """`call`, with the response body parsed as JSON (None when empty)."""
    data = call(c, method, path, payload)
    return json.loads(data) if data else None
