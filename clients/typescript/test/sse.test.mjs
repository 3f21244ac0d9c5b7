// The SSE parser: CRLF/CR/LF line ends, multi-line data, comments, retry, ids, and the same
// stream fed in chunks split at every byte.
import test from "node:test";
import assert from "node:assert/strict";
import { SSEParser } from "../dist/index.js";

const stream =
  "\uFEFFretry: 2000\r\n\r\n" +
  "event: reset\r\nid: 7\r\ndata: {\"version\":7,\"total\":5,\"reason\":\"subscribed\"}\r\n\r\n" +
  ": heartbeat\n\n" +
  "event: change\nid: 8\ndata: {\"a\":\ndata:  1}\ndata\n\n" +
  "event:change\rid:9\rdata:é✓ 𝄞\r\r" +
  "data: no type\n\n" +
  "event: end\ndata: {\"reason\":\"deleted\"}\n\n" +
  "event: ignored\nid: 10\n\n" +
  "data: after an id-only event\r\n\r\n";

const expected = [
  { type: "reset", data: "{\"version\":7,\"total\":5,\"reason\":\"subscribed\"}", lastEventId: "7" },
  { type: "change", data: "{\"a\":\n 1}\n", lastEventId: "8" },
  { type: "change", data: "é✓ 𝄞", lastEventId: "9" },
  { type: "message", data: "no type", lastEventId: "9" },
  { type: "end", data: "{\"reason\":\"deleted\"}", lastEventId: "9" },
  { type: "message", data: "after an id-only event", lastEventId: "10" },
];

test("parses a whole stream", () => {
  const p = new SSEParser();
  assert.deepEqual(p.push(stream), expected);
  assert.equal(p.retry, 2000);
});

test("split at every character and at every byte, the same events", () => {
  const bytes = new TextEncoder().encode(stream);
  for (let cut = 0; cut <= bytes.length; cut++) {
    const p = new SSEParser();
    const got = [...p.push(bytes.slice(0, cut)), ...p.push(bytes.slice(cut))];
    assert.deepEqual(got, expected, `cut at byte ${cut}`);
  }
  for (let cut = 0; cut <= stream.length; cut++) {
    const p = new SSEParser();
    assert.deepEqual([...p.push(stream.slice(0, cut)), ...p.push(stream.slice(cut))], expected, `cut at char ${cut}`);
  }
  const p = new SSEParser();
  const got = [];
  for (const b of bytes) got.push(...p.push(new Uint8Array([b])));
  assert.deepEqual(got, expected, "one byte at a time");
  assert.equal(p.retry, 2000);
});

test("retry takes digits only; an event without data is not dispatched; CR then LF across chunks is one line end", () => {
  const p = new SSEParser();
  assert.deepEqual(p.push("retry: 12x\n\nretry: 500\n\nevent: x\n\n"), []);
  assert.equal(p.retry, 500);
  assert.deepEqual(p.push("data: a\r"), []);
  assert.deepEqual(p.push("\ndata: b\r"), []);
  assert.deepEqual(p.push("\n\r\n"), [{ type: "message", data: "a\nb", lastEventId: "" }]);
});
