// A CPU profile of one operation of the package in headless Chromium, by
// function: `node profile.mjs <what> [size=1024] [backend=auto] [n=1000]`
// (from js/bench, after `cargo xtask wasm` and `npm ci`), where <what> is
// `open`, `open-floor` (WebCrypto's AES-GCM decrypt then Ed25519 verify),
// `history` (1000 messages of `size` bytes), `unwrap` (backend `sync` for
// the synchronous call), `unwrap-hpke` (@hpke/core, WebCrypto X25519) or
// `x25519-floor` (two WebCrypto X25519 deriveBits). Prints the time per
// call (the profiler adds some), then the functions by self time and by
// inclusive time. For names of the WASM functions, build the module with
// its name section kept (wasm-bindgen --keep-debug, wasm-opt -g) in its
// place in js/dist.
import { launchChromium, serveJs } from "./serve.js";

const [what = "open", size = "1024", backend = "auto", n = "1000"] = process.argv.slice(2);
const server = await serveJs();
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  page.on("pageerror", (e) => console.error(`[chromium] ${e}`));
  const cdp = await page.context().newCDPSession(page);
  const done = new Promise((resolve) => page.exposeFunction("__profileDone", resolve));
  await page.exposeFunction("__profileStart", async () => {
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
    await cdp.send("Profiler.start");
  });
  const query = new URLSearchParams({ what, size, backend, n });
  await page.goto(`http://127.0.0.1:${server.port}/bench/profile.html?${query}`);
  const out = await done;
  if (out.error) throw new Error(out.error);
  const { profile } = await cdp.send("Profiler.stop");
  console.log(`${what} (size ${size}, backend ${backend}): ${out.perCallUs.toFixed(1)} µs per call under the profiler`);
  report(profile);
} finally {
  await browser.close();
  server.close();
}

function report(profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const name = (node) => {
    const f = node.callFrame;
    return `${f.functionName || "(anonymous)"} ${f.url.split("/").pop()}`.trim();
  };
  const samples = new Map();
  for (const id of profile.samples) samples.set(id, (samples.get(id) ?? 0) + 1);
  const self = new Map();
  const inclusive = new Map();
  for (const [id, count] of samples) {
    const leaf = name(nodes.get(id));
    self.set(leaf, (self.get(leaf) ?? 0) + count);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const k = name(nodes.get(at));
      if (!seen.has(k)) inclusive.set(k, (inclusive.get(k) ?? 0) + count);
      seen.add(k);
    }
  }
  const total = profile.samples.length;
  for (const [title, table] of [["self", self], ["inclusive", inclusive]]) {
    console.log(`\nby ${title} time (${total} samples):`);
    for (const [k, count] of [...table].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
      console.log(`${((100 * count) / total).toFixed(1).padStart(6)}%  ${k.slice(0, 150)}`);
    }
  }
}
