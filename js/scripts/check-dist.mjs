// `prepack`: refuses to pack without the built module. `dist/` is not in
// git; `cargo xtask wasm` (or `cargo xtask package npm`) builds it. Every
// `dist/` entry of package.json's `files` must exist.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const missing = pkg.files
  .filter((f) => f.startsWith("dist/"))
  .filter((f) => !existsSync(join(root, f)));
if (missing.length > 0) {
  console.error(
    `streamseal: refusing to pack without the built module (missing ${missing.join(", ")}); ` +
      "run `cargo xtask wasm` first",
  );
  process.exit(1);
}
