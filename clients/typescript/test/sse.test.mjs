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

// ---- followEventStream: reconnects, backoff, the idle watchdog, fatal answers ----

import { followEventStream, ProblemError } from "../dist/index.js";

const wait = (ms) => new Promise((r) => setTimeout(r, ms));

/** A stream body the test writes to; `cancelled` counts the client's cancels. */
function body(counter) {
  let controller;
  const stream = new ReadableStream({ start: (c) => { controller = c; }, cancel: () => { counter.cancelled++; } });
  return { stream, write: (text) => controller.enqueue(new TextEncoder().encode(text)), close: () => controller.close() };
}

/** Follows a stream whose every connect is answered by `connect(n, signal)`; records the disconnects. */
function follow(connect, options = {}) {
  const log = { opens: 0, delays: [], errors: [], fatal: null, events: [] };
  const handle = followEventStream({
    open: async (lastEventId, signal) => connect(log.opens++, signal),
    lastEventId: () => null,
    onEvent: (e) => { log.events.push(e.type); options.onEvent?.(e); },
    onDisconnect: (error, delayMs) => { log.delays.push(delayMs); log.errors.push(error); },
    onFatal: (error) => { log.fatal = error; },
    ...options,
  });
  return { handle, log };
}

const sse = (stream) => new Response(stream, { status: 200, headers: { "Content-Type": "text/event-stream" } });

test("retry: 0 waits at least 250 ms", async () => {
  const { handle, log } = follow(() => sse("retry: 0\n\n"));
  await wait(100);
  assert.deepEqual(log.delays, [250]);
  assert.equal(log.opens, 1);
  handle.close();
  await handle.done;
});

test("the backoff doubles across connects without events, and starts over after an event", async () => {
  const quiet = follow(() => sse(""), { initialDelayMs: 10 });
  await wait(200);
  quiet.handle.close();
  await quiet.handle.done;
  assert.deepEqual(quiet.log.delays.slice(0, 4), [10, 20, 40, 80]);
  const talking = follow(() => sse("event: change\ndata: {}\n\n"), { initialDelayMs: 10 });
  await wait(100);
  talking.handle.close();
  await talking.handle.done;
  assert.ok(talking.log.delays.length >= 3);
  assert.ok(talking.log.delays.every((d) => d === 10), String(talking.log.delays));
});

test("a stream silent for idleTimeoutMs is aborted and opened again; heartbeats keep it", async () => {
  const counter = { cancelled: 0 };
  const bodies = [];
  const { handle, log } = follow(() => { const b = body(counter); bodies.push(b); return sse(b.stream); }, { idleTimeoutMs: 80, initialDelayMs: 10 });
  await wait(30);
  const beat = setInterval(() => bodies[0].write(": heartbeat\n\n"), 20);
  await wait(200);
  assert.equal(log.opens, 1, "heartbeats keep the stream");
  clearInterval(beat);
  await wait(150);
  assert.ok(log.opens >= 2, "silent: opened again");
  assert.match(String(log.errors[0]?.message), /silent/);
  assert.ok(counter.cancelled >= 1, "the silent body is cancelled");
  handle.close();
  await handle.done;
});

test("a connect that hangs is aborted by the watchdog too", async () => {
  const { handle, log } = follow((n, signal) => new Promise((resolve, reject) => {
    signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
  }), { idleTimeoutMs: 50, initialDelayMs: 10 });
  await wait(150);
  assert.ok(log.opens >= 2);
  handle.close();
  await handle.done;
});

test("an event handler that throws: the body is cancelled, and the stream opened again", async () => {
  const counter = { cancelled: 0 };
  const { handle, log } = follow(() => { const b = body(counter); b.write("event: change\ndata: x\n\n"); return sse(b.stream); },
    { initialDelayMs: 1000, onEvent: () => { throw new Error("handler"); } });
  await wait(50);
  assert.equal(counter.cancelled, 1);
  assert.equal(log.errors[0].message, "handler");
  handle.close();
  await handle.done;
});

for (const status of [429, 503]) {
  test(`a ${status} waits its Retry-After`, async () => {
    const { handle, log } = follow(() => { throw new ProblemError({ type: "about:blank", title: "busy", status, detail: "" }, null, 2); }, { initialDelayMs: 10 });
    await wait(50);
    assert.deepEqual(log.delays, [2000]);
    handle.close();
    await handle.done;
  });
}

test("400, 401, 403 and 404 stop the stream without a retry", async () => {
  for (const status of [400, 401, 403, 404]) {
    const { handle, log } = follow(() => { throw new ProblemError({ type: "about:blank", title: "no", status, detail: "" }); }, { initialDelayMs: 1 });
    await handle.done;
    assert.equal(log.opens, 1);
    assert.equal(log.fatal.status, status);
    assert.deepEqual(log.delays, []);
  }
});
