// Serves the Vite production build (dist/) on 127.0.0.1 and opens it in
// headless Chromium (Debian's /usr/bin/chromium): the page must print
// "ok built by Vite", having fetched the first module alone, and fetch the
// second (`streamseal/api`) only when it first uses it. Also checks the
// build emitted the .wasm as an asset.
import { createServer } from "node:http";
import { readFile, readdir } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const DIST = fileURLToPath(new URL("dist/", import.meta.url));
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm",
};

const assets = await readdir(join(DIST, "assets"));
if (!assets.some((a) => a.endsWith(".wasm"))) {
  throw new Error(`the build emitted no .wasm asset: ${assets.join(", ")}`);
}

const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url, "http://127.0.0.1").pathname);
  const file = normalize(join(DIST, path.endsWith("/") ? `${path}index.html` : path));
  if (!file.startsWith(DIST) || file.includes(`${sep}..${sep}`)) {
    res.writeHead(403).end();
    return;
  }
  try {
    const body = await readFile(file);
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    res.end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address();

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox"],
});
try {
  const page = await browser.newPage();
  const wasm = [];
  page.on("request", (r) => {
    if (r.url().endsWith(".wasm")) wasm.push(new URL(r.url()).pathname);
  });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.waitForFunction(() => document.getElementById("out")?.textContent !== "loading", null, {
    timeout: 30_000,
  });
  const text = await page.textContent("#out");
  if (text !== "ok built by Vite") {
    throw new Error(`the built page says ${JSON.stringify(text)}; page errors: ${errors.join("; ")}`);
  }
  console.log(`vite build ran in Chromium: ${text}`);
  // The first download holds only the first module; the endpoint module
  // comes on first use.
  // (The page's worker fetches the first module too.)
  const isApi = (path) => path.includes("streamseal_api_bg");
  // Nor, ever, the module with a bot runtime's calls (`streamseal/bot`).
  const isBot = (path) => path.includes("streamseal_bot_bg");
  if (wasm.length === 0 || wasm.some(isApi) || wasm.some(isBot)) {
    throw new Error(`before first use the page fetched ${JSON.stringify(wasm)}, not the first module alone`);
  }
  const called = await page.evaluate(() => window.loadApi());
  if (!called.endsWith("/streams/stream_01J80000000000000000000010") || !wasm.some(isApi) || wasm.some(isBot)) {
    throw new Error(`streamseal/api on first use: ${called}; fetched ${JSON.stringify(wasm)}`);
  }
  console.log(`the page fetched ${wasm[0]} first and ${wasm.find(isApi)} on first use of streamseal/api`);
} finally {
  await browser.close();
  server.close();
}
