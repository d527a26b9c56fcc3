// The fixture both Chromium tests open: a passphrase key record (set up
// with `kdf`), generation 0 made by its owner for itself, and a history of
// `texts` the owner sealed as messages `ids`, built with the Node entry as
// the server would store them.
export const ROOT = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
export const OWNER = "usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q1";
export const PASSPHRASE = "correct horse battery staple";

export function sealedHistory(pkg, { kdf, texts, ids }) {
  const setup = pkg.setUp("key_owner_laptop", new TextEncoder().encode(PASSPHRASE), {
    algorithm: "argon2id",
    version: 19,
    ...kdf,
  });
  const owner = setup.takeIdentity();
  const ownKey = { ...setup.record, createdAt: "2026-11-21T10:00:00Z" };
  setup.free();
  // The owner's device made generation 0 (its own key is always an accepted sender).
  const state = new pkg.StreamState(ROOT);
  const self = pkg.TrustedKey.own(OWNER, owner);
  const roll = state.prepareRoll(owner, self);
  const wraps = roll.wraps;
  state.commitRoll(roll);
  const ring = state.keyring();
  const messages = texts.map((text, i) => ({
    id: ids[i],
    streamId: ROOT,
    sequence: String(i + 1),
    authorId: OWNER,
    authorType: "user",
    content: "",
    replyCount: 0,
    metadata: {},
    revision: 1,
    createdAt: "2026-11-21T10:00:00Z",
    sealed: pkg.sealMessage(ring, owner, OWNER, ROOT, ids[i], text).sealed,
  }));
  const publicKey = owner.recipient().publicKey;
  for (const o of [state, self, roll, ring, owner]) o.free();
  return {
    rootStreamId: ROOT,
    userId: OWNER,
    ownKey,
    publicKey,
    keyWraps: { currentKeyGeneration: 0, ownerUserId: OWNER, wraps },
    messages,
  };
}
