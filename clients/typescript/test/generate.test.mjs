// The drift checks: src/api.ts is what tools/generate.py writes from openapi.yaml, and the
// check does fail when the spec changes.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { operationIds, TreeSessionsApi } from "../dist/index.js";
import { repo } from "./server.mjs";

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

test("src/api.ts is current (python3 tools/generate.py --check)", () => {
  const run = spawnSync("python3", [path.join(pkg, "tools/generate.py"), "--check"], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr + run.stdout);
});

test("the check fails on a changed spec", () => {
  const scratch = mkdtempSync(path.join(tmpdir(), "treesessions-drift-"));
  try {
    mkdirSync(path.join(scratch, "clients/typescript/src"), { recursive: true });
    cpSync(path.join(pkg, "tools"), path.join(scratch, "clients/typescript/tools"), { recursive: true });
    cpSync(path.join(pkg, "src/api.ts"), path.join(scratch, "clients/typescript/src/api.ts"));
    const spec = readFileSync(path.join(repo, "openapi.yaml"), "utf8");
    writeFileSync(path.join(scratch, "openapi.yaml"), spec);
    const same = spawnSync("python3", [path.join(scratch, "clients/typescript/tools/generate.py"), "--check"], { encoding: "utf8" });
    assert.equal(same.status, 0, same.stderr);
    writeFileSync(path.join(scratch, "openapi.yaml"), spec.replace("    Health:\n", "    Health:\n      description: changed\n"));
    const changed = spawnSync("python3", [path.join(scratch, "clients/typescript/tools/generate.py"), "--check"], { encoding: "utf8" });
    assert.equal(changed.status, 1, "the check passed on a changed spec");
    assert.match(changed.stderr, /is not what tools\/generate\.py writes/);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test("every GET/PUT/POST/PATCH/DELETE operation of the spec is a method", () => {
  const spec = readFileSync(path.join(repo, "openapi.yaml"), "utf8");
  const ids = [...spec.matchAll(/^\s+operationId: (\w+)$/gm)].map((m) => m[1]).filter((id) => !id.startsWith("head"));
  assert.deepEqual([...operationIds].sort(), [...new Set(ids)].sort());
  for (const id of operationIds) assert.equal(typeof TreeSessionsApi.prototype[id], "function", id);
});

test("dist/ is what tsc compiles from src/ (build.sh --check)", () => {
  assert.equal(spawnSync("tsc", ["--version"]).status, 0, "tsc is needed (Debian: apt-get install node-typescript)");
  const run = spawnSync(path.join(pkg, "build.sh"), ["--check"], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr + run.stdout);
});
