// Headless Chromium runner: `node chromium.js [--quick]` (from js/bench).
// Serves js/ over loopback HTTP (cross-origin isolated, so timers are
// precise), opens page.html in /usr/bin/chromium through playwright-core,
// prints the table and one `RESULT_JSON` line that `cargo xtask bench` reads.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const require = createRequire(import.meta.url);
const quick = process.argv.includes("--quick");
const root = fileURLToPath(new URL("..", import.meta.url)); // js/
const types = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".wasm": "application/wasm",
  ".json": "application/json",
};

const server = createServer(async (req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
  const file = join(root, path);
  if (!file.startsWith(root)) {
    res.writeHead(403).end();
    return;
  }
  try {
    const body = await readFile(file);
    res.writeHead(200, {
      "Content-Type": types[extname(file)] ?? "application/octet-stream",
      "Cross-Origin-Opener-Policy": "same-origin",
      "Cross-Origin-Embedder-Policy": "require-corp",
      "Cache-Control": "no-store",
    });
    res.end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = server.address().port;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
});
let exitCode = 0;
try {
  const page = await browser.newPage();
  page.on("console", (m) => console.error(m.text()));
  page.on("pageerror", (e) => console.error(`[chromium] page error: ${e}`));
  const done = new Promise((resolve) => page.exposeFunction("__benchDone", resolve));
  await page.goto(`http://127.0.0.1:${port}/bench/page.html${quick ? "?quick" : ""}`);
  const out = await Promise.race([
    done,
    new Promise((resolve) => setTimeout(() => resolve({ error: "timed out after 15 minutes" }), 900_000)),
  ]);
  if (out.error) {
    console.error(`chromium bench failed: ${out.error}`);
    exitCode = 1;
  } else {
    if (!out.isolated) console.error("[chromium] note: page not cross-origin isolated (coarse timers)");
    console.log(out.table);
    const versions = Object.fromEntries(
      ["@hpke/core", "@hpke/dhkem-x25519", "hash-wasm", "argon2id", "playwright-core"].map((p) => [
        p,
        require(`${p}/package.json`).version,
      ]),
    );
    console.log(`RESULT_JSON ${JSON.stringify({ env: out.env, versions, ...out.result })}`);
  }
} finally {
  await browser.close();
  server.close();
}
process.exit(exitCode);
