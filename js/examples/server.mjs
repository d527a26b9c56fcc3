// A tiny static server for the example page, on 127.0.0.1 only. Serves
// js/ (so the page imports the package as built) and the fixture JSON the
// test writes; .wasm goes out as application/wasm unless `wasmMime` says
// otherwise (to exercise the package's fallback).
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
};

export function serve({ fixture, wasmMime = "application/wasm" } = {}) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://127.0.0.1").pathname);
    if (path === "/examples/fixture.json" && fixture) {
      res.writeHead(200, { "content-type": TYPES[".json"] });
      res.end(JSON.stringify(fixture));
      return;
    }
    const file = normalize(join(ROOT, path.endsWith("/") ? `${path}index.html` : path));
    if (!file.startsWith(ROOT) || file.includes(`${sep}node_modules${sep}`)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      const ext = extname(file);
      res.writeHead(200, { "content-type": ext === ".wasm" ? wasmMime : TYPES[ext] ?? "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` }));
  });
}
