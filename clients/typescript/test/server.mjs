// Starts a tree-server of its own for a test file: TREE_SERVER, or <repo>/.build/debug/tree-server,
// on 127.0.0.1 with a free port (read from its "listening on" line), memory only; waits for
// /healthz and answers { url, stop }.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, "../../..");

export async function startServer(flags = []) {
  const binary = process.env.TREE_SERVER || path.join(repo, ".build/debug/tree-server");
  const child = spawn(binary, ["--host", "127.0.0.1", "--port", "0", "--data-dir", "none", "--access-log", "false", ...flags], {
    cwd: repo,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tree-server did not report its port:\n${log}`)), 20000);
    const onData = (chunk) => {
      log += chunk.toString();
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("error", (e) => { clearTimeout(timer); reject(e); });
    exited.then(({ code }) => { clearTimeout(timer); reject(new Error(`tree-server exited (${code}):\n${log}`)); });
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20000;
  for (;;) {
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.status === 200) { await r.text(); break; }
    } catch { /* not yet */ }
    if (Date.now() > deadline) throw new Error(`/healthz did not answer:\n${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    log: () => log,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 10000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/** A seeded random number generator (mulberry32): rng() in [0, 1). */
export function seeded(seed) {
  let a = seed >>> 0;
  const rng = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  rng.int = (n) => Math.floor(rng() * n);           // 0 ..< n
  rng.pick = (list) => list[Math.floor(rng() * list.length)];
  return rng;
}
