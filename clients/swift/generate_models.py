#!/usr/bin/env python3
"""Writes the Swift client's models, one for every component schema of openapi.yaml.

    python3 clients/swift/generate_models.py          # writes Sources/TreeSessionsClient/Generated/Models.swift
    python3 clients/swift/generate_models.py --check  # exit 1 when that file is not what the spec gives

The output is deterministic (the spec's order, no dates), so `--check` is a drift test:
scripts/check-clients.sh runs it (in .ci/run), and fails until the models are written anew.

How schemas become Swift:
- an object: a `struct … : JSONObjectModel, Codable, Sendable, Equatable` with CodingKeys for the
  JSON names and its own `init(from:)` / `encode(to:)`, so that presence and `null` round-trip:
    required            -> `T`             always written
    required, nullable  -> `T?`            always written, `nil` as `null`
    optional            -> `T?`            written when not nil
    optional, nullable  -> `Nullable<T>?`  absent (nil), `.null`, or `.value(…)`
    any JSON value      -> `JSONValue?`    absent (nil) or a value, `null` included (`.null`)
  A required member with one possible value (`op`, `expandAll: true`) is not stored: it is
  written as it must be, and checked when read.
- a string enum: a `String` enum; inline ones nest in their struct.
- `oneOf` / `anyOf` of several kinds: an enum with associated values, whose `encode(to:)`
  writes the chosen value as it is and whose `init(from:)` picks the alternative whose members
  (or JSON shape) match (see `OneOf` in Client/JSONSupport.swift).
- `NodeId` (a string or an integer): an enum that keeps which it was.
- scalars, arrays and maps with a name: typealiases.
The hand-written parts the output uses: JSONValue, Nullable, JSONObjectModel, OneOf, and
Problem (Client/Problem.swift: the `Problem` schema, also an Error).
"""
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SPEC = os.path.join(ROOT, "openapi.yaml")
OUT = os.path.join(ROOT, "Sources", "TreeSessionsClient", "Generated", "Models.swift")

# Schemas written by hand (in Client/), which the generated code refers to by name.
HANDWRITTEN = {"Problem"}

# Names for inline schemas that would otherwise be nested types of their own in several places.
INLINE_NAMES = {
    ("Row", "aggregates"): "AggregateValue",
    ("Child", "aggregates"): "AggregateValue",
    ("AggregateValue", "statistic"): "AggregateStatistic",
    ("Reload", "items"): "ReloadRange",
}

# Case names of unions whose alternatives are not all named schemas with a common suffix.
UNION_CASES = {
    "Expand": ["mode", "depth"],
    "CreateSessionBody": ["upload", "nodes"],
    "InsertItemsBody": ["asChildren", "before", "after", "nodes"],
    "EventStream": ["event", "text"],
    "AggregateValue": ["count", "statistic"],
}

SWIFT_KEYWORDS = {
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
    "inout", "internal", "let", "open", "operator", "private", "protocol", "public", "rethrows", "static",
    "struct", "subscript", "typealias", "var", "break", "case", "continue", "default", "defer", "do",
    "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "switch", "where", "while",
    "as", "catch", "false", "is", "nil", "super", "self", "Self", "throw", "throws", "true", "try",
}


def ident(name):
    return f"`{name}`" if name in SWIFT_KEYWORDS else name


def upper_first(name):
    return name[:1].upper() + name[1:]


def lower_first(name):
    # "SetExpanded" -> "setExpanded"; leading acronyms are not expected here.
    return name[:1].lower() + name[1:]


def doc(text, indent):
    """A `///` comment of the schema's description, re-wrapped at 100 columns."""
    if not text:
        return []
    words = " ".join(str(text).split()).split(" ")
    lines, line = [], ""
    width = 100 - len(indent) - 4
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return [f"{indent}/// {l}" for l in lines]


def swift_string(value):
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


class Generator:
    def __init__(self, spec):
        self.schemas = spec["components"]["schemas"]
        self.out = []
        self.emitted_top = set()

    # MARK: Types

    def ref_name(self, schema):
        return schema["$ref"].split("/")[-1]

    def types_of(self, schema):
        t = schema.get("type")
        if t is None:
            return []
        return t if isinstance(t, list) else [t]

    def constant(self, schema):
        """The one value a schema allows, as (swift literal, JSON literal), or None."""
        if "const" in schema:
            value = schema["const"]
        elif isinstance(schema.get("enum"), list) and len(schema["enum"]) == 1:
            value = schema["enum"][0]
        else:
            return None
        if isinstance(value, bool):
            literal = "true" if value else "false"
            return literal, literal
        return swift_string(value), swift_string(value)

    def alternatives(self, schema):
        return schema.get("oneOf") or schema.get("anyOf")

    def is_null(self, schema):
        return self.types_of(schema) == ["null"]

    def resolve(self, schema, owner, member, nested):
        """(Swift type, nullable) of a schema used by `owner.member`; inline types that need a
        declaration are added to `nested` (emitted inside the owner) or emitted at the top."""
        if "$ref" in schema:
            name = self.ref_name(schema)
            target = self.schemas[name]
            if name == "NodeId":
                return "NodeId", False
            if name == "ParentId":
                return "NodeId", True
            nullable = "null" in self.types_of(target) or any(self.is_null(a) for a in (self.alternatives(target) or []))
            return name, nullable
        alternatives = self.alternatives(schema)
        if alternatives:
            rest = [a for a in alternatives if not self.is_null(a)]
            nullable = len(rest) < len(alternatives)
            if len(rest) == 1:
                swift, inner_nullable = self.resolve(rest[0], owner, member, nested)
                return swift, nullable or inner_nullable
            if all(self.types_of(a) == ["string"] for a in rest):
                return "String", nullable
            name = INLINE_NAMES.get((owner, member)) or upper_first(member)
            self.declare_inline(name, schema, nested, owner, member)
            return name, nullable
        types = self.types_of(schema)
        nullable = "null" in types
        types = [t for t in types if t != "null"]
        if not types:
            return "JSONValue", False
        if sorted(types) == ["integer", "string"]:
            return "NodeId", nullable
        t = types[0]
        if t == "string":
            values = schema.get("enum")
            if values and len(values) > 1:
                name = INLINE_NAMES.get((owner, member)) or upper_first(member)
                self.declare_inline(name, schema, nested, owner, member)
                return name, nullable
            return "String", nullable
        if t == "integer":
            return "Int", nullable
        if t == "number":
            return "Double", nullable
        if t == "boolean":
            return "Bool", nullable
        if t == "array":
            items = schema.get("items", {})
            if "$ref" not in items and self.types_of(items) == ["object"] and "properties" in items:
                item = self.inline_item(items, owner, member, nested)
            else:
                item, _ = self.resolve(items, owner, member, nested)
            return f"[{item}]", nullable
        if t == "object":
            if "properties" in schema:
                name = INLINE_NAMES.get((owner, member)) or upper_first(member)
                self.declare_inline(name, schema, nested, owner, member)
                return name, nullable
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict):
                value, _ = self.resolve(extra, owner, member, nested)
                return f"[String: {value}]", nullable
            return "[String: JSONValue]", nullable
        raise SystemExit(f"cannot map {owner}.{member}: {schema}")

    def inline_item(self, schema, owner, member, nested):
        """An array's inline object items: a type named in INLINE_NAMES, else the member's name
        made singular, nested in the owner."""
        name = INLINE_NAMES.get((owner, member))
        if name is None:
            singular = member[:-2] if member.endswith("ches") else member[:-1] if member.endswith("s") else member
            name = upper_first(singular)
        self.declare_inline(name, schema, nested, owner, member)
        return name

    def declare_inline(self, name, schema, nested, owner, member):
        if (owner, member) in INLINE_NAMES:
            if name in self.emitted_top:
                return
            self.emitted_top.add(name)
            saved = self.out
            self.out = []
            self.declare(name, schema, "")
            block = self.out
            self.out = saved
            self.pending_top.append(block)
        else:
            nested.append((name, schema))

    # MARK: Declarations

    def declare(self, name, schema, indent):
        """Appends the declaration of schema `name` to the output."""
        alternatives = self.alternatives(schema)
        types = self.types_of(schema)
        if name == "NodeId":
            return self.node_id(schema, indent)
        if alternatives and len([a for a in alternatives if not self.is_null(a)]) > 1 \
                and not all(self.types_of(a) == ["string"] for a in alternatives if not self.is_null(a)):
            return self.union(name, schema, indent)
        if types and [t for t in types if t != "null"] == ["string"] and schema.get("enum") and len(schema["enum"]) > 1:
            return self.string_enum(name, schema, indent)
        if types == ["object"] and "properties" in schema:
            return self.struct(name, schema, indent)
        nested = []
        swift, nullable = self.resolve(schema, name, "items" if types == ["array"] else name, nested)
        if nested:
            raise SystemExit(f"a typealias with nested types: {name}")
        if nullable and swift == "NodeId":
            swift = "NodeId?"  # ParentId: an id, or null for the roots
        self.out += doc(schema.get("description"), indent)
        self.out.append(f"{indent}public typealias {name} = {swift}")

    def node_id(self, schema, indent):
        self.out += doc(schema.get("description"), indent)
        self.out += [f"{indent}{line}" if line else "" for line in NODE_ID.strip("\n").split("\n")]

    def string_enum(self, name, schema, indent):
        self.out += doc(schema.get("description"), indent)
        self.out.append(f"{indent}public enum {name}: String, Codable, Sendable, CaseIterable {{")
        for value in schema["enum"]:
            case = ident(value)
            self.out.append(f"{indent}    case {case}" if case == value else f"{indent}    case {case} = {swift_string(value)}")
        self.out.append(f"{indent}}}")

    def union(self, name, schema, indent):
        alternatives = [a for a in self.alternatives(schema) if not self.is_null(a)]
        names = UNION_CASES.get(name)
        if names is None:
            refs = [self.ref_name(a) for a in alternatives]
            if len(refs) != len(alternatives) or any(r is None for r in refs):
                raise SystemExit(f"name the cases of {name} in UNION_CASES")
            names = [lower_first(r) for r in strip_common_suffix(refs)]
        nested = []
        cases = []
        for case, alternative in zip(names, alternatives):
            swift, _ = self.resolve(alternative, name, case, nested)
            cases.append((case, swift, alternative))
        self.out += doc(schema.get("description"), indent)
        self.out.append(f"{indent}public enum {name}: Codable, Sendable, Equatable {{")
        for case, swift, alternative in cases:
            self.out += doc(alternative.get("description"), indent + "    ")
            self.out.append(f"{indent}    case {ident(case)}({swift})")
        self.out.append("")
        self.out.append(f"{indent}    public init(from decoder: any Decoder) throws {{")
        self.out.append(f"{indent}        self = try OneOf.decode(from: decoder, {swift_string(name)}, [")
        for case, swift, alternative in cases:
            self.out.append(f"{indent}            {self.choice(swift, alternative)} {{ .{ident(case)}($0) }},")
        self.out.append(f"{indent}        ])")
        self.out.append(f"{indent}    }}")
        self.out.append("")
        self.out.append(f"{indent}    public func encode(to encoder: any Encoder) throws {{")
        self.out.append(f"{indent}        switch self {{")
        for case, swift, _ in cases:
            self.out.append(f"{indent}        case .{ident(case)}(let value): try value.encode(to: encoder)")
        self.out.append(f"{indent}        }}")
        self.out.append(f"{indent}    }}")
        for nested_name, nested_schema in nested:
            self.out.append("")
            self.declare(nested_name, nested_schema, indent + "    ")
        self.out.append(f"{indent}}}")

    def shape(self, schema):
        """The JSON shape an alternative has: object, array, string, integer, number, boolean."""
        if "$ref" in schema:
            target = self.schemas[self.ref_name(schema)]
            if self.ref_name(schema) == "NodeId":
                return "nodeId"
            if self.alternatives(target):
                return None
            return self.shape(target)
        types = [t for t in self.types_of(schema) if t != "null"]
        return types[0] if len(types) == 1 else None

    def choice(self, swift, alternative):
        shape = self.shape(alternative)
        if shape == "object":
            return f"OneOf.Choice(object: {swift}.self)"
        if shape is None:
            return f"OneOf.Choice(union: {swift}.self)"
        return f"OneOf.Choice({swift}.self, shape: .{shape})"

    def struct(self, name, schema, indent):
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        nested = []
        members = []  # (json name, swift name, swift type, mode, description)
        constants = []  # (json name, swift literal)
        for json_name, prop in properties.items():
            const = self.constant(prop)
            if json_name in required and const is not None:
                constants.append((json_name, const[0]))
                continue
            swift, nullable = self.resolve(prop, name, json_name, nested)
            if swift == "JSONValue":
                mode = "any"
                declared = "JSONValue?"
            elif json_name in required:
                mode = "required-nullable" if nullable else "required"
                declared = f"{swift}?" if nullable else swift
            else:
                mode = "optional-nullable" if nullable else "optional"
                declared = f"Nullable<{swift}>?" if nullable else f"{swift}?"
            members.append((json_name, ident(json_name), swift, declared, mode, prop.get("description")))

        self.out += doc(schema.get("description"), indent)
        self.out.append(f"{indent}public struct {name}: JSONObjectModel, Codable, Sendable, Equatable {{")
        i2 = indent + "    "
        for json_name, swift_name, swift, declared, mode, description in members:
            self.out += doc(description, i2)
            self.out.append(f"{i2}public var {swift_name}: {declared}")
        if members:
            self.out.append("")
        params = []
        for json_name, swift_name, swift, declared, mode, _ in members:
            default = "" if mode in ("required", "required-nullable") else " = nil"
            params.append(f"{swift_name}: {declared}{default}")
        if params:
            self.out.append(f"{i2}public init({', '.join(params)}) {{")
            for json_name, swift_name, *_ in members:
                plain = swift_name.strip("`")
                self.out.append(f"{i2}    self.{plain} = {swift_name}")
            self.out.append(f"{i2}}}")
        else:
            self.out.append(f"{i2}public init() {{}}")
        self.out.append("")
        keys = [j for j, _ in constants] + [m[0] for m in members]
        ordered_keys = [k for k in properties if k in keys]
        self.out.append(f"{i2}public static let requiredKeys: Set<String> = [{', '.join(swift_string(k) for k in sorted(required))}]")
        self.out.append(f"{i2}public static let knownKeys: Set<String> = [{', '.join(swift_string(k) for k in ordered_keys)}]")
        constant_entries = ", ".join(f"{swift_string(j)}: {lit}" for j, lit in constants) or ":"
        self.out.append(f"{i2}public static let constantMembers: [String: JSONValue] = [{constant_entries}]")
        if ordered_keys:
            self.out.append("")
            self.out.append(f"{i2}enum CodingKeys: String, CodingKey {{")
            for k in ordered_keys:
                self.out.append(f"{i2}    case {ident(k)}")
            self.out.append(f"{i2}}}")
        self.out.append("")
        self.out.append(f"{i2}public init(from decoder: any Decoder) throws {{")
        if ordered_keys:
            self.out.append(f"{i2}    let container = try decoder.container(keyedBy: CodingKeys.self)")
        else:
            self.out.append(f"{i2}    _ = try decoder.container(keyedBy: OneOf.AnyKey.self)")
        for j, lit in constants:
            self.out.append(f"{i2}    try container.expectConstant({lit}, forKey: .{ident(j)})")
        for json_name, swift_name, swift, declared, mode, _ in members:
            key = f".{swift_name}"
            plain = swift_name.strip("`")
            if mode == "required":
                expr = f"try container.decode({swift}.self, forKey: {key})"
            elif mode in ("required-nullable", "optional"):
                expr = f"try container.decodeIfPresent({swift}.self, forKey: {key})"
            elif mode == "any":
                expr = f"try container.decodePresent(JSONValue.self, forKey: {key})"
            else:
                expr = f"try container.decodePresent(Nullable<{swift}>.self, forKey: {key})"
            self.out.append(f"{i2}    self.{plain} = {expr}")
        self.out.append(f"{i2}}}")
        self.out.append("")
        self.out.append(f"{i2}public func encode(to encoder: any Encoder) throws {{")
        if ordered_keys:
            self.out.append(f"{i2}    var container = encoder.container(keyedBy: CodingKeys.self)")
        else:
            self.out.append(f"{i2}    _ = encoder.container(keyedBy: OneOf.AnyKey.self)")
        for k in ordered_keys:
            constant = next((lit for j, lit in constants if j == k), None)
            if constant is not None:
                self.out.append(f"{i2}    try container.encode({constant}, forKey: .{ident(k)})")
                continue
            json_name, swift_name, swift, declared, mode, _ = next(m for m in members if m[0] == k)
            if mode == "required":
                self.out.append(f"{i2}    try container.encode({swift_name}, forKey: .{swift_name})")
            elif mode == "required-nullable":
                self.out.append(f"{i2}    try container.encodeNullable({swift_name}, forKey: .{swift_name})")
            else:
                self.out.append(f"{i2}    try container.encodeIfPresent({swift_name}, forKey: .{swift_name})")
        self.out.append(f"{i2}}}")
        for nested_name, nested_schema in nested:
            self.out.append("")
            self.declare(nested_name, nested_schema, i2)
        self.out.append(f"{indent}}}")

    # MARK: The file

    def generate(self):
        self.pending_top = []
        body = []
        for name, schema in self.schemas.items():
            if name in HANDWRITTEN:
                body.append(f"// {name}: written by hand, in Client/{name}.swift.")
                body.append("")
                continue
            self.out = []
            self.declare(name, schema, "")
            body += self.out
            body.append("")
            for block in self.pending_top:
                body += block
                body.append("")
            self.pending_top = []
        header = [
            "// Generated by clients/swift/generate_models.py from openapi.yaml: do not edit.",
            "// Run `python3 clients/swift/generate_models.py` after changing the spec.",
            "// swiftlint:disable all",
            "",
        ]
        text = "\n".join(header + body).rstrip("\n") + "\n"
        return text


def strip_common_suffix(names):
    """Drops the CamelCase words every name ends with (`…Operation`, `…StreamEvent`), as long as
    every name keeps at least one word."""
    split = [re.findall(r"[A-Z][a-z0-9]*", n) for n in names]
    common = 0
    while all(len(s) > common + 1 for s in split) and len({tuple(s[len(s) - common - 1:]) for s in split}) == 1:
        common += 1
    return ["".join(s[:len(s) - common]) for s in split]


NODE_ID = '''
public enum NodeId: Sendable, Hashable, Codable, CustomStringConvertible,
                    ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case string(String)
    case integer(Int)

    /// The id's string form, which names it in URLs (before percent-encoding): an integer in
    /// decimal. Two ids with the same string form name the same item.
    public var stringForm: String {
        switch self {
        case .string(let text): return text
        case .integer(let value): return String(value)
        }
    }

    public var description: String { stringForm }

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self = .string(text)
        } else {
            self = .integer(try container.decode(Int.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .integer(let value): try container.encode(value)
        }
    }
}
'''


def main():
    check = "--check" in sys.argv[1:]
    with open(SPEC, encoding="utf-8") as f:
        spec = yaml.safe_load(f)
    text = Generator(spec).generate()
    if check:
        try:
            with open(OUT, encoding="utf-8") as f:
                current = f.read()
        except FileNotFoundError:
            current = None
        if current != text:
            print(f"{os.path.relpath(OUT, ROOT)} is not what {os.path.relpath(SPEC, ROOT)} gives: "
                  "run python3 clients/swift/generate_models.py", file=sys.stderr)
            return 1
        print(f"{os.path.relpath(OUT, ROOT)} matches {os.path.relpath(SPEC, ROOT)} "
              f"({len(spec['components']['schemas'])} schemas)")
        return 0
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {os.path.relpath(OUT, ROOT)} ({len(spec['components']['schemas'])} schemas)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
