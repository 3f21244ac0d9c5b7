// Tokens: on a server with an admin token, a reader token minted through the API class reads
// rows and follows events through TreeRows (Authorization: Bearer on the stream too), and its
// edits answer a ProblemError 403.
import test from "node:test";
import assert from "node:assert/strict";
import { ProblemError, TreeRows, TreeSessionsApi } from "../dist/index.js";
import { startServer } from "./server.mjs";

let server;
test.before(async () => { server = await startServer(["--token", "ADMIN"]); });
test.after(async () => { await server?.stop(); });

test("a reader token reads and follows, and may not edit", async () => {
  const admin = TreeSessionsApi.at(server.url, "ADMIN");
  const sid = (await admin.createSession({ nodes: [{ id: "a", title: "A", children: [{ id: "a1", title: "a1" }] }, { id: "b", title: "B" }] })).value.id;
  const minted = await admin.createToken(sid, { role: "reader", ttl: 600 });
  assert.equal(minted.status, 201);
  assert.equal(minted.value.role, "reader");
  assert.match(minted.value.token, /^ts1\./);

  await assert.rejects(TreeSessionsApi.at(server.url).getRows(sid), (e) => e instanceof ProblemError && e.status === 401);

  const reader = TreeSessionsApi.at(server.url, minted.value.token);
  const rows = new TreeRows(reader);
  await rows.open(sid);
  assert.deepEqual((await rows.rows(0, 10)).map((r) => r.id), ["a", "b"]);
  rows.subscribe();
  await rows.expand("a"); // a view change: the reader role may
  assert.deepEqual((await rows.rows(0, 10)).map((r) => r.id), ["a", "a1", "b"]);

  // Another client's edit reaches the reader's cache through its (bearer) event stream.
  await admin.patchItem(sid, "b", { title: "B, renamed" });
  await rows.whenVersion(3, 5000);
  assert.equal((await rows.rows(2, 3))[0].title, "B, renamed");

  await assert.rejects(rows.update("a1", { title: "no" }), (e) => {
    assert.ok(e instanceof ProblemError);
    assert.equal(e.status, 403);
    assert.equal(e.slug, "forbidden");
    return true;
  });
  await assert.rejects(rows.delete("a1"), (e) => e instanceof ProblemError && e.status === 403);
  assert.equal(rows.version, 3);

  const eventsToken = await reader.createEventToken(sid);
  assert.equal(eventsToken.status, 201);
  assert.ok(eventsToken.value.expiresIn > 0);
  const stream = await TreeSessionsApi.at(server.url).getEvents(sid, { access_token: eventsToken.value.token }, { lastEventId: "3" });
  assert.equal(stream.status, 200);
  assert.match(stream.headers.get("Content-Type"), /^text\/event-stream/);
  await stream.body.cancel();
  rows.close();
});

test("a stream refused on connect ends the subscription with an error instead of retrying", async () => {
  const admin = TreeSessionsApi.at(server.url, "ADMIN");
  const sid = (await admin.createSession({ nodes: [{ title: "x" }] })).value.id;
  const rows = new TreeRows(admin);
  await rows.open(sid);
  admin.transport.token = "ts1.not-a-token";
  const ended = new Promise((resolve) => rows.onChange((c) => { if (c.kind === "end") resolve(c); }));
  rows.subscribe();
  const end = await ended;
  assert.equal(end.reason, "error");
  assert.equal(end.error.status, 401);
  assert.equal(rows.subscribed, false);
  rows.close();
});
