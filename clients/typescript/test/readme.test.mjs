// The README's client example, as a user pastes it: taken from the repository's README.md,
// run by node from the repository's folder against a server (its address put in), and its
// output compared with what the example shows.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { repo, startServer } from "./server.mjs";

function example() {
  const readme = readFileSync(path.join(repo, "README.md"), "utf8");
  const section = readme.indexOf("## Clients: the row cache");
  assert.ok(section >= 0, "README.md has no section \"Clients: the row cache\"");
  const start = readme.indexOf("```js\n", section);
  const end = readme.indexOf("```", start + 6);
  assert.ok(start >= 0 && end > start, "no js block in the README's clients section");
  return readme.slice(start + 6, end);
}

test("the README's TreeRows example runs as shown", async () => {
  const server = await startServer();
  try {
    const code = example();
    assert.ok(code.includes("http://127.0.0.1:8080"), "the example names the server it talks to");
    const run = spawnSync(process.execPath, ["--input-type=module"], {
      cwd: repo, input: code.replace("http://127.0.0.1:8080", server.url), encoding: "utf8", timeout: 30000,
    });
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split("\n");
    assert.deepEqual(lines.slice(-4), ["Docs", "  README.md", "  API.md", "  CLIENTS.md"], run.stdout);
    // Each change as onChange saw it: the two changes' splices, or a reset when the stream,
    // opening meanwhile, found them before it and was told to read the rows again.
    for (const line of lines.slice(0, -4)) assert.match(line, /^(splices|reset) now [34] rows$/, run.stdout);
    assert.ok(lines.length >= 5, run.stdout);
  } finally {
    await server.stop();
  }
});
