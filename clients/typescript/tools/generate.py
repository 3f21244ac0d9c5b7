#!/usr/bin/env python3
"""Generate clients/typescript/src/api.ts from the repository's openapi.yaml.

    python3 tools/generate.py           # write src/api.ts
    python3 tools/generate.py --check   # exit 1 when src/api.ts differs from what would be written

The output is a pure function of openapi.yaml (the spec's own order, no dates, no
environment), so the check is a drift test: edit the spec, regenerate, commit both.

What it writes:
  * one TypeScript type per component schema: an object becomes an interface (required members
    plain, the others optional), enum/const a union of literals, oneOf/anyOf a union, allOf an
    intersection, OpenAPI 3.1 `type: [x, "null"]` a union with null, additionalProperties an
    index signature, a schema with no type (any JSON) `JSONValue`;
  * per operation, a `…Query` type of its query parameters;
  * the class `TreeSessionsApi`: one async method per operationId (HEAD operations are left out:
    they answer what GET does without a body), over the hand-written `Transport`.
"""
import argparse
import json
import re
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent                       # clients/typescript
SPEC = PACKAGE.parent.parent / "openapi.yaml"  # ../../openapi.yaml from the package
OUT = PACKAGE / "src" / "api.ts"

METHODS = ("get", "put", "post", "patch", "delete", "head", "options")
IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
# Path parameters whose values are item ids: integers are ids too (`/items/42`).
PATH_PARAM_TYPES = {"itemId": "NodeId"}


class Spec:
    def __init__(self, doc):
        self.doc = doc
        components = doc.get("components", {})
        self.schemas = components.get("schemas", {})
        self.parameters = components.get("parameters", {})
        self.responses = components.get("responses", {})
        self.request_bodies = components.get("requestBodies", {})

    def resolve(self, obj, table):
        """Follows a local $ref into `table` (parameters, responses, request bodies)."""
        seen = 0
        while isinstance(obj, dict) and "$ref" in obj:
            ref = obj["$ref"]
            prefix, _, name = ref.rpartition("/")
            if prefix not in ("#/components/parameters", "#/components/responses",
                              "#/components/requestBodies"):
                raise SystemExit(f"generate.py: unsupported $ref {ref}")
            obj = getattr(self, table)[name]
            seen += 1
            if seen > 32:
                raise SystemExit(f"generate.py: $ref loop at {ref}")
        return obj


def comment(text, indent):
    """A JSDoc comment of `text` (None: nothing)."""
    if not text:
        return []
    lines = str(text).strip().replace("*/", "*\\/").splitlines()
    if len(lines) == 1:
        return [f"{indent}/** {lines[0]} */"]
    return [f"{indent}/**"] + [f"{indent} * {line}".rstrip() for line in lines] + [f"{indent} */"]


def prop_name(name):
    return name if IDENT.match(name) else json.dumps(name)


def literal(value):
    return json.dumps(value, ensure_ascii=False)


def ref_name(ref):
    prefix, _, name = ref.rpartition("/")
    if prefix != "#/components/schemas":
        raise SystemExit(f"generate.py: unsupported schema $ref {ref}")
    return name


def union(parts):
    out = []
    for part in parts:
        if part not in out:
            out.append(part)
    if "JSONValue" in out:
        return "JSONValue"
    return " | ".join(out) if out else "never"


def wrap(text):
    """Parenthesizes a union or intersection used as an array element."""
    return f"({text})" if (" | " in text or " & " in text) and not text.startswith("{") else text


def ts_type(schema, indent=""):
    """The TypeScript type of a schema, as an expression."""
    if schema is True or schema is None:
        return "JSONValue"
    if schema is False:
        return "never"
    if "$ref" in schema:
        return ref_name(schema["$ref"])
    if "const" in schema:
        return literal(schema["const"])
    if "enum" in schema:
        return union([literal(v) for v in schema["enum"]])
    if "allOf" in schema:
        return " & ".join(wrap(ts_type(s, indent)) for s in schema["allOf"])
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return union([ts_type(s, indent) for s in schema[key]])
    types = schema.get("type")
    if types is None:
        if "properties" in schema or "additionalProperties" in schema:
            types = "object"
        elif "items" in schema or "prefixItems" in schema:
            types = "array"
        else:
            return "JSONValue"
    if isinstance(types, list):
        return union([single_type(t, schema, indent) for t in types])
    return single_type(types, schema, indent)


def single_type(kind, schema, indent):
    if kind == "string":
        return "string"
    if kind in ("integer", "number"):
        return "number"
    if kind == "boolean":
        return "boolean"
    if kind == "null":
        return "null"
    if kind == "array":
        prefix = schema.get("prefixItems")
        if prefix and schema.get("minItems") == len(prefix) and schema.get("maxItems") == len(prefix):
            return "[" + ", ".join(ts_type(s, indent) for s in prefix) + "]"
        return wrap(ts_type(schema.get("items", True), indent)) + "[]"
    if kind == "object":
        return "{\n" + "\n".join(object_members(schema, indent + "  ")) + f"\n{indent}}}"
    raise SystemExit(f"generate.py: unsupported type {kind!r}")


def object_members(schema, indent):
    lines = []
    required = set(schema.get("required", []))
    props = schema.get("properties", {})
    member_types = []
    for name, sub in props.items():
        sub_type = ts_type(sub, indent)
        member_types.append(sub_type)
        doc = sub.get("description") if isinstance(sub, dict) else None
        if isinstance(sub, dict) and "contentSchema" in sub:
            doc = (doc + "\n\n" if doc else "") + (
                f"JSON text of `{ts_type(sub['contentSchema'], indent)}` ({sub.get('contentMediaType', 'application/json')}).")
        lines += comment(doc, indent)
        optional = "" if name in required else "?"
        lines.append(f"{indent}{prop_name(name)}{optional}: {sub_type};")
    extra = schema.get("additionalProperties")
    if extra is None and not props:
        extra = True
    if extra is not None and extra is not False:
        value = ts_type(extra, indent)
        if props:
            # An index signature must admit every named member's type too.
            value = union([value] + member_types + ["undefined"])
        lines.append(f"{indent}[key: string]: {value};")
    return lines


def schema_declaration(name, schema):
    lines = comment(schema.get("description"), "")
    if schema.get("type") == "object" and not any(k in schema for k in ("oneOf", "anyOf", "allOf", "enum", "const")):
        lines.append(f"export interface {name} {{")
        lines += object_members(schema, "  ")
        lines.append("}")
    else:
        lines.append(f"export type {name} = {ts_type(schema)};")
    return lines


def camel(header):
    """If-None-Match → ifNoneMatch, Last-Event-ID → lastEventId."""
    words = re.split(r"[^A-Za-z0-9]+", header)
    words = [w for w in words if w]
    return words[0].lower() + "".join(w[:1].upper() + w[1:].lower() for w in words[1:])


def pascal(op_id):
    return op_id[:1].upper() + op_id[1:]


class Operation:
    def __init__(self, spec, path, method, item, op, name):
        self.spec = spec
        self.path = path
        self.method = method
        self.op = op
        self.name = name
        params = {}
        for raw in item.get("parameters", []) + op.get("parameters", []):
            p = spec.resolve(raw, "parameters")
            params[(p["name"], p["in"])] = p  # the operation's own override the path's
        self.path_params = [params[(n, "path")] for n in re.findall(r"{([^}]+)}", path)]
        self.query_params = [p for p in params.values() if p["in"] == "query"]
        self.header_params = [p for p in params.values() if p["in"] == "header"]
        self.body = self.request_body()
        self.result = self.response()

    def request_body(self):
        raw = self.op.get("requestBody")
        if raw is None:
            return None
        body = self.spec.resolve(raw, "request_bodies")
        content = body.get("content", {})
        json_types = [ts_type(c.get("schema", True)) for t, c in content.items() if is_json(t)]
        raw_body = any(not is_json(t) for t in content)
        parts = json_types + (["RawBody"] if raw_body else [])
        return {"type": union(parts), "required": bool(body.get("required")), "media": list(content)}

    def response(self):
        kinds, types, not_modified = [], [], False
        for status, raw in self.op.get("responses", {}).items():
            status = str(status)
            if status == "304":
                not_modified = True
            if not status.startswith("2"):
                continue
            response = self.spec.resolve(raw, "responses")
            content = response.get("content", {})
            if not content:
                kinds.append("none")
            for media, c in content.items():
                if media == "text/event-stream":
                    kinds.append("stream")
                elif is_json(media):
                    kinds.append("json")
                    types.append(ts_type(c.get("schema", True)))
                else:
                    kinds.append("text")
                    types.append("string")
        if "stream" in kinds:
            return {"kind": "stream", "type": "Response", "not_modified": False, "accept": False}
        kinds = sorted(set(kinds))
        if kinds == ["none"]:
            value, kind = "undefined", "none"
        elif kinds == ["json"]:
            value, kind = union(types), "json"
        elif kinds == ["text"]:
            value, kind = "string", "text"
        else:
            value, kind = union(types + (["undefined"] if "none" in kinds else [])), "auto"
        return {"kind": kind, "type": value, "not_modified": not_modified,
                "accept": len([k for k in kinds if k != "none"]) > 1 or len(types) > 1}

    def query_type_name(self):
        return pascal(self.name) + "Query"

    def query_declaration(self):
        if not self.query_params:
            return []
        lines = comment(f"Query parameters of `{self.name}` ({self.method.upper()} {self.path}).", "")
        lines.append(f"export type {self.query_type_name()} = {{")
        for p in self.query_params:
            lines += comment(p.get("description"), "  ")
            optional = "" if p.get("required") else "?"
            lines.append(f"  {prop_name(p['name'])}{optional}: {ts_type(p.get('schema', True), '  ')};")
        lines.append("};")
        return lines

    def signature_parts(self):
        args = []
        for p in self.path_params:
            args.append(f"{p['name']}: {PATH_PARAM_TYPES.get(p['name'], ts_type(p.get('schema', True)))}")
        if self.body is not None:
            args.append(f"body{'' if self.body['required'] else '?'}: {self.body['type']}")
        if self.query_params:
            required = any(p.get("required") for p in self.query_params)
            args.append(f"query{'' if required else '?'}: {self.query_type_name()}")
        option_members = [f"{camel(p['name'])}?: {ts_type(p.get('schema', True))}" for p in self.header_params]
        if self.result["accept"]:
            option_members.append("accept?: string")
        return args, option_members

    def method_lines(self):
        args, option_members = self.signature_parts()
        options_type = "RequestOptions" + (" & { " + "; ".join(option_members) + " }" if option_members else "")
        result = self.result
        answer = "Response" if result["kind"] == "stream" else f"Answer<{result['type']}>"
        summary = self.op.get("summary", "")
        doc = f"`{self.method.upper()} {self.path}`: {summary}".rstrip(": ")
        if result["kind"] == "stream":
            doc += "\n\nAnswers the open `Response` (its body is the event stream; follow it with `followEventStream`)."
        if result["not_modified"]:
            doc += "\n\nWith `ifNoneMatch` naming the current version the answer is `304` with `value: null`."
        lines = [""] + comment(doc, "  ")
        params = args + [f"options?: {options_type}"]
        if result["not_modified"]:
            # Overloads: without ifNoneMatch there is no 304, so the value is never null.
            lines.append(f"  {self.name}({', '.join(args + [f'options?: {options_type} & {{ ifNoneMatch?: undefined }}'])}): Promise<{answer}>;")
            lines.append(f"  {self.name}({', '.join(required_args(args) + [f'options: {options_type}'])}): Promise<{answer} | Answer<null>>;")
            answer = f"{answer} | Answer<null>"
        lines.append(f"  async {self.name}({', '.join(params)}): Promise<{answer}> {{")
        lines.append("    const request: RequestSpec = {")
        lines.append(f"      method: {literal(self.method.upper())},")
        lines.append(f"      path: {self.path_expression()},")
        if self.query_params:
            lines.append("      query,")
        if self.header_params:
            pairs = ", ".join(f"{literal(p['name'])}: options?.{camel(p['name'])}" for p in self.header_params)
            lines.append(f"      headers: {{ {pairs} }},")
        if self.body is not None:
            lines.append("      body,")
        lines.append(f"      expect: {literal(result['kind'])},")
        if result["accept"]:
            lines.append("      accept: options?.accept,")
        lines.append("      signal: options?.signal,")
        lines.append("    };")
        if result["kind"] == "stream":
            lines.append("    return this.transport.open(request);")
        else:
            lines.append(f"    return (await this.transport.request(request)) as {answer};")
        lines.append("  }")
        return lines

    def path_expression(self):
        parts = re.split(r"({[^}]+})", self.path)
        out = ""
        for part in parts:
            if part.startswith("{") and part.endswith("}"):
                out += "${encodeURIComponent(String(" + part[1:-1] + "))}"
            else:
                out += part.replace("`", "\\`").replace("${", "\\${")
        return "`" + out + "`"


def required_args(args):
    """In the second overload `options` is required, so optional arguments before it become `T | undefined`."""
    out = []
    for a in args:
        name, _, typ = a.partition(": ")
        out.append(f"{name[:-1]}: {typ} | undefined" if name.endswith("?") else a)
    return out


def is_json(media):
    media = media.split(";")[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def operations(spec):
    ops, skipped, names = [], [], {}
    for path, item in spec.doc.get("paths", {}).items():
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            op_id = op.get("operationId") or (method + re.sub(r"[^A-Za-z0-9]+", "_", path).title().replace("_", ""))
            if method in ("head", "options"):
                skipped.append(f"{op_id} ({method.upper()} {path})")
                continue
            # An operationId must be unique in a spec; should one repeat (on another path or
            # method), the later ones get a numbered name so that none is lost.
            count = names.get(op_id, 0) + 1
            names[op_id] = count
            name = op_id if count == 1 else f"{op_id}{count}"
            ops.append(Operation(spec, path, method, item, op, name))
    duplicates = sorted(n for n, c in names.items() if c > 1)
    return ops, skipped, duplicates


HEADER = """\
// generated by tools/generate.py from openapi.yaml; do not edit
// (regenerate: python3 clients/typescript/tools/generate.py; a test checks it is current)

import type { Answer, RawBody, RequestOptions, RequestSpec } from "./transport.js";
import { Transport } from "./transport.js";

/** Any JSON value: what the spec leaves untyped (a node's `data`). */
export type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };
"""


def generate(doc):
    spec = Spec(doc)
    info = doc.get("info", {})
    lines = HEADER.splitlines()
    lines += ["", f"/** The API description this file was generated from: {info.get('title', '')} {info.get('version', '')} (OpenAPI {doc.get('openapi', '')}). */",
              f"export const specVersion = {literal(info.get('version', ''))};", ""]
    lines.append("// ---- Schemas (components.schemas, in the spec's order) ----")
    for name, schema in spec.schemas.items():
        lines.append("")
        lines += schema_declaration(name, schema)
    ops, skipped, duplicates = operations(spec)
    lines += ["", "// ---- Query parameters, one type per operation that has any ----"]
    for op in ops:
        decl = op.query_declaration()
        if decl:
            lines.append("")
            lines += decl
    lines += ["", "/**",
              " * One typed method per operation of openapi.yaml, on a `Transport` (base URL, bearer token,",
              " * `fetch`). Each answers `{ status, etag, location, value }` with the typed JSON of the 2xx",
              " * answer (text for CSV, NDJSON, path lists, YAML, metrics; the open `Response` for event",
              " * streams); a non-2xx answer throws a `ProblemError`.",
              " *",
              " * Left out: the HEAD operations, which answer what their GET does without a body:"]
    lines += [f" *   {s}" for s in skipped]
    if duplicates:
        lines.append(" * operationIds given more than once (later ones numbered): " + ", ".join(duplicates))
    else:
        lines.append(" * Every operationId is unique in the spec.")
    lines += [" */", "export class TreeSessionsApi {",
              "  constructor(readonly transport: Transport) {}",
              "",
              "  /** A client of the server at `baseUrl`, with an optional bearer token. */",
              "  static at(baseUrl: string, token: string | null = null): TreeSessionsApi {",
              "    return new TreeSessionsApi(new Transport({ baseUrl, token }));",
              "  }"]
    for op in ops:
        lines += op.method_lines()
    lines += ["}", "", "/** The operations `TreeSessionsApi` has, in the spec's order. */",
              "export const operationIds = ["]
    lines += [f"  {literal(op.name)}," for op in ops]
    lines += ["] as const;", ""]
    text = "\n".join(lines)
    # RawBody is used only when some operation takes a text body; keep the import honest.
    if "RawBody" not in text.split("export type JSONValue", 1)[1]:
        text = text.replace("import type { Answer, RawBody, ", "import type { Answer, ")
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 when src/api.ts is not what would be written")
    args = parser.parse_args()
    with open(SPEC, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    text = generate(doc)
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else None
        if current != text:
            print(f"{OUT.relative_to(PACKAGE)} is not what tools/generate.py writes from openapi.yaml: "
                  "run python3 clients/typescript/tools/generate.py", file=sys.stderr)
            return 1
        print(f"{OUT.relative_to(PACKAGE)} is current")
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(PACKAGE)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
