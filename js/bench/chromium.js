// Headless Chromium runner: `node chromium.js [--quick]` (from js/bench).
// Serves js/ over loopback HTTP (cross-origin isolated, so timers are
// precise), opens page.html in /usr/bin/chromium through playwright-core,
// prints the table and one `RESULT_JSON` line that `cargo xtask bench` reads.
import { createRequire } from "node:module";
import { launchChromium, serveJs } from "./serve.js";

const require = createRequire(import.meta.url);
const quick = process.argv.includes("--quick");
const server = await serveJs();
const port = server.port;

const browser = await launchChromium();
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
