// Issue 16 through the shipped package, in Node: sender-signed envelopes
// (a member cannot seal as another, a removed member's old generation
// cannot hand a runtime work), statuses (verified, unverified, presented
// keys), bound clear fields (authorType, invocationId, runtimeSessionId,
// the asked stream) and ids that survive a server assigning its own. The
// same scenarios run in Chromium (examples/playwright.test.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { module as pkg } from "./load.mjs";
import * as forgers from "./forgers.mjs";
import { BACKENDS, viaBackend } from "./backends.mjs";

for (const backend of BACKENDS) {
  test(`forgers (${backend} opens): members sealing as others, a removed member's old generation, moved and rewritten ciphertexts`, async () => {
    forgers.expectForgers(assert, await forgers.run(viaBackend(pkg, backend)));
  });
}
