// What the quick starts read, as the service would have sent it: the user's
// key record (GET me/e2e-key), the stream's key wraps (GET
// streams/{id}/e2e/key-wraps) and its messages (GET streams/{id}/messages),
// written as JSON files into the directory given, with `history.txt`, the
// texts each quick start must print. Built with the installed package and
// the fixture the Chromium tests open (history.mjs), run by `cargo xtask test`.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as pkg from "streamseal";
import { sealedHistory } from "./history.mjs";

await pkg.init();
const dir = process.argv[2];
const texts = ["Plan for Friday?", "Ship the beta, then lunch."];
const ids = ["msg_01JD3QK7C9E1G3J5M7P9S1V3X5", "msg_01JD3QK7C9E1G3J5M7P9S1V3X6"];
const f = sealedHistory(pkg, { kdf: { m: 19456, t: 2, p: 1 }, texts, ids });
writeFileSync(join(dir, "me-e2e-key.json"), JSON.stringify(f.ownKey));
writeFileSync(join(dir, "key-wraps.json"), JSON.stringify(f.keyWraps));
writeFileSync(join(dir, "messages.json"), JSON.stringify(f.messages));
writeFileSync(join(dir, "history.txt"), texts.join("\n") + "\n");
