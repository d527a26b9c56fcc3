// `streamseal serve` for the tests (js/test/serve.test.mjs, the chat page
// in examples/playwright.test.mjs): started on a free port, its seed, and
// its `/_serve/` routes.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export const BIN = process.env.STREAMSEAL_BIN ?? fileURLToPath(new URL("../../target/debug/streamseal", import.meta.url));

/** Starts `streamseal serve` on a free port; its seed and a stop function. */
export async function startServe(args = []) {
  const child = spawn(BIN, ["serve", "--port", "0", ...args], { stdio: ["ignore", "pipe", "ignore"] });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", resolve);
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`streamseal serve exited with ${code}`)));
  });
  return { seed: JSON.parse(line), stop: () => child.kill() };
}

/** A call of the stand-in's `/_serve/` routes (what the service does in its app). */
export async function control(seed, key, method, path, body) {
  const res = await fetch(seed.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status}`);
  return res.status === 204 ? null : res.json();
}
