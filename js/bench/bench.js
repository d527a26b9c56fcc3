// The benchmark body shared by Node (node.js) and headless Chromium
// (chromium.js + page.html): the streamseal package against what a web or
// Node app would otherwise pick, measured side by side in one run.
//
// Every comparison interleaves its contenders sample by sample (alternating
// who goes first), so both see the same machine load; the table reports
// medians of per-operation times and their ratios. A sample repeats the
// operation until it lasts at least `minSampleMs`, so coarse browser timers
// do not matter.
//
// The sender's XEdDSA signature that every envelope seal makes and every
// open verifies (envelope version 2) is measured alone over 1 KiB
// (`hazmatXeddsaSign` / `hazmatXeddsaVerify`, as the native `signature`
// group does), interleaved with the 1 KiB seal and open, and printed beside
// them with its share of their median: in Node, whose module has those
// tools' exports; the browser's first module has not (since 2026-11-30).

const ROOT = "stream_01J80000000000000000000010";
const OWNER = "usr_01J80000000000000000000002";
const enc = new TextEncoder();

function median(values) {
  const v = [...values].sort((a, b) => a - b);
  const n = v.length;
  return n % 2 === 1 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

function bytes(n, seed) {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
}

function messageId(i) {
  return `msg_01J8${String(i).padStart(22, "0")}`;
}

function slotOf(id) {
  return { kind: "message", streamId: ROOT, messageId: id, authorId: OWNER, authorType: "user", revision: 1 };
}

/** How many calls of `op` make one sample last at least `minMs`. */
async function calibrate(op, minMs) {
  let reps = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) await op();
    const dt = performance.now() - t0;
    if (dt >= minMs || reps >= 1 << 20) return reps;
    reps = dt <= 0 ? reps * 8 : Math.min(reps * 8, Math.ceil((reps * minMs * 1.2) / dt));
  }
}

/**
 * Interleaved medians of several contenders: `contenders` is
 * `[[name, op], ...]` where `op` is a (possibly async) function doing one
 * operation. Returns `{name: medianMs}`.
 */
async function compare(contenders, { samples, minSampleMs }) {
  const reps = [];
  for (const [, op] of contenders) {
    await op(); // warm up (JIT, first allocation)
    reps.push(await calibrate(op, minSampleMs));
  }
  const times = contenders.map(() => []);
  for (let s = 0; s < samples; s++) {
    const order = contenders.map((_, i) => i);
    if (s % 2 === 1) order.reverse();
    for (const i of order) {
      const op = contenders[i][1];
      const n = reps[i];
      const t0 = performance.now();
      for (let k = 0; k < n; k++) await op();
      times[i].push((performance.now() - t0) / n);
    }
  }
  const out = {};
  contenders.forEach(([name], i) => {
    out[name] = median(times[i]);
  });
  return out;
}

/**
 * Runs every row. `lib` is the streamseal package (already initialised),
 * `deps` the comparison libraries: `{hpke: {CipherSuite, HkdfSha256,
 * Aes256Gcm, DhkemX25519HkdfSha256}, dhkemX25519: {DhkemX25519HkdfSha256},
 * hashWasmArgon2id, openpgpArgon2id}`. `log` prints progress. Returns
 * `{rows, budgets}`.
 */
export async function runAll(lib, deps, log, opts = {}) {
  const quick = opts.quick === true;
  const fast = { samples: quick ? 5 : 21, minSampleMs: quick ? 5 : 20 };
  const slow = { samples: quick ? 3 : 5, minSampleMs: 0 };
  const subtle = globalThis.crypto.subtle;
  const rows = [];
  const row = (group, name, ms, baseline, note) => {
    rows.push({ group, name, ms, baseline: baseline ?? null, note: note ?? "" });
  };
  // A part of another row's operation: printed as its share of that row's median.
  const partRow = (group, name, ms, of, ofMs) => {
    rows.push({ group, name, ms, baseline: null, share: { of, ms: ofMs }, note: "" });
  };

  // --- one keyring, and the same key in WebCrypto -------------------------
  const keyBytes = bytes(32, 7);
  const ring = new lib.Keyring(ROOT);
  ring.importKey(0, keyBytes); // the newest key held: sealing uses it
  // Envelope version 2: every seal signs with the author's key (XEdDSA), every
  // open checks the signature against the key the reader pinned.
  const author = lib.IdentityKey.generate("user", "key_owner");
  const authorPublic = author.publicKey;
  const trust = new lib.TrustStore("tofu");
  trust.observe(OWNER, author.recipient());
  const cryptoKey = await subtle.importKey("raw", keyBytes, "AES-GCM", false, [
    "encrypt",
    "decrypt",
  ]);
  const aad = bytes(100, 1); // about the length of a message slot's AAD
  // The floor of a signed open with the platform's primitives: its AES-GCM
  // decrypt, then its Ed25519 verify of what was decrypted (every envelope
  // is signed since issue 16; the async opens verify with WebCrypto's
  // Ed25519 where it has one). Measured beside ours in the same run, so the
  // budgets' misses show what bounds them. Null where WebCrypto has no Ed25519.
  const ed = await subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]).catch(() => null);
  const edSign = (message) => subtle.sign({ name: "Ed25519" }, ed.privateKey, message);
  const edVerify = (signature, message) => subtle.verify({ name: "Ed25519" }, ed.publicKey, signature, message);

  // --- per-call seal/open ---------------------------------------------------
  for (const [size, label] of [
    [1024, "1 KiB"],
    [64 * 1024, "64 KiB"],
  ]) {
    const plain = bytes(size, 3);
    const slot = slotOf(messageId(1));
    const sealed = lib.seal(ring, author, OWNER, slot, plain);
    const iv = bytes(12, 9);
    const ct = new Uint8Array(
      await subtle.encrypt({ name: "AES-GCM", iv, additionalData: aad }, cryptoKey, plain),
    );
    // At 1 KiB, the signature alone beside the seal and open it is part of.
    // (Where the module has the raw XEdDSA exports: the Node entry's bot
    // module; the browser's first module has no tools' exports.)
    const signature = size === 1024 && lib.hazmatXeddsaSign ? lib.hazmatXeddsaSign(author, plain) : null;
    if (signature) lib.hazmatXeddsaVerify(authorPublic, plain, signature);
    log(`open/seal ${label}`);
    const openContenders = [
      ["streamseal open", () => lib.open(ring, trust, slot, sealed)],
      // The async open: AES-256-GCM where "auto" puts it in this runtime.
      ["streamseal openAsync", () => lib.openAsync(ring, trust, slot, sealed)],
      // Each backend forced: the figures "auto" is chosen by.
      ["openAsync webcrypto", () => lib.openAsync(ring, trust, slot, sealed, null, null, { backend: "webcrypto" })],
      ["openAsync wasm", () => lib.openAsync(ring, trust, slot, sealed, null, null, { backend: "wasm" })],
      [
        "WebCrypto decrypt",
        () => subtle.decrypt({ name: "AES-GCM", iv, additionalData: aad }, cryptoKey, ct),
      ],
    ];
    if (signature) {
      openContenders.push(["XEdDSA verify", () => lib.hazmatXeddsaVerify(authorPublic, plain, signature)]);
    }
    if (ed) {
      const edSignature = await edSign(plain);
      openContenders.push([
        "WebCrypto floor",
        async () => {
          await subtle.decrypt({ name: "AES-GCM", iv, additionalData: aad }, cryptoKey, ct);
          if (!(await edVerify(edSignature, plain))) throw new Error("Ed25519 did not verify");
        },
      ]);
    }
    const open = await compare(openContenders, fast);
    row(`open ${label}, per call`, "WebCrypto AES-GCM decrypt (await each)", open["WebCrypto decrypt"]);
    if (ed) {
      row(
        `open ${label}, per call`,
        "floor: WebCrypto AES-GCM decrypt, then Ed25519 verify (await each)",
        open["WebCrypto floor"],
        open["WebCrypto decrypt"],
      );
    }
    row(`open ${label}, per call`, "streamseal open", open["streamseal open"], open["WebCrypto decrypt"]);
    row(`open ${label}, per call`, "streamseal openAsync (auto backend)", open["streamseal openAsync"], open["WebCrypto decrypt"]);
    row(`open ${label}, per call`, "streamseal openAsync (webcrypto backend)", open["openAsync webcrypto"], open["WebCrypto decrypt"]);
    row(`open ${label}, per call`, "streamseal openAsync (wasm backend)", open["openAsync wasm"], open["WebCrypto decrypt"]);
    if (signature) {
      partRow(
        `open ${label}, per call`,
        `XEdDSA verify ${label}`,
        open["XEdDSA verify"],
        "streamseal open",
        open["streamseal open"],
      );
    }
    const sealContenders = [
      ["streamseal seal", () => lib.seal(ring, author, OWNER, slot, plain)],
      ["streamseal sealAsync", () => lib.sealAsync(ring, author, OWNER, slot, plain)],
      ["sealAsync webcrypto", () => lib.sealAsync(ring, author, OWNER, slot, plain, { backend: "webcrypto" })],
      ["sealAsync wasm", () => lib.sealAsync(ring, author, OWNER, slot, plain, { backend: "wasm" })],
      [
        "WebCrypto encrypt",
        () => subtle.encrypt({ name: "AES-GCM", iv, additionalData: aad }, cryptoKey, plain),
      ],
    ];
    if (signature) {
      sealContenders.push(["XEdDSA sign", () => lib.hazmatXeddsaSign(author, plain)]);
    }
    const seal = await compare(sealContenders, fast);
    row(`seal ${label}, per call`, "WebCrypto AES-GCM encrypt (await each)", seal["WebCrypto encrypt"]);
    row(`seal ${label}, per call`, "streamseal seal", seal["streamseal seal"], seal["WebCrypto encrypt"]);
    row(`seal ${label}, per call`, "streamseal sealAsync (auto backend)", seal["streamseal sealAsync"], seal["WebCrypto encrypt"]);
    row(`seal ${label}, per call`, "streamseal sealAsync (webcrypto backend)", seal["sealAsync webcrypto"], seal["WebCrypto encrypt"]);
    row(`seal ${label}, per call`, "streamseal sealAsync (wasm backend)", seal["sealAsync wasm"], seal["WebCrypto encrypt"]);
    if (signature) {
      partRow(
        `seal ${label}, per call`,
        `XEdDSA sign ${label}`,
        seal["XEdDSA sign"],
        "streamseal seal",
        seal["streamseal seal"],
      );
    }
  }

  // --- a 1000 x 512 B history ----------------------------------------------
  log("history 1000 x 512 B");
  const N = 1000;
  const text = "x".repeat(512);
  const messages = [];
  const raw = [];
  for (let i = 0; i < N; i++) {
    const id = messageId(i);
    messages.push({
      id,
      streamId: ROOT,
      sequence: String(i + 1),
      authorId: OWNER,
      authorType: "user",
      authorDisplayName: "Ada",
      content: "[sealed]",
      replyCount: 0,
      metadata: {},
      revision: 1,
      createdAt: "2026-08-01T10:00:00Z",
      sealed: lib.seal(ring, author, OWNER, slotOf(id), enc.encode(text)),
    });
    const iv = bytes(12, i);
    const msgAad = enc.encode(`${ROOT}/${id}/${OWNER}/1`.padEnd(100, "."));
    raw.push({
      iv,
      aad: msgAad,
      signature: ed ? await edSign(enc.encode(text)) : null,
      ct: new Uint8Array(
        await subtle.encrypt(
          { name: "AES-GCM", iv, additionalData: msgAad },
          cryptoKey,
          enc.encode(text),
        ),
      ),
    });
  }
  const check = lib.openMessages(ring, trust, ROOT, messages);
  if (check.length !== N || !check.every((r) => r.status === "opened")) {
    throw new Error("openMessages did not open every message");
  }
  const history = await compare(
    [
      ["openMessages", () => lib.openMessages(ring, trust, ROOT, messages)],
      ["openMessagesAsync", () => lib.openMessagesAsync(ring, trust, ROOT, messages)],
      ["openMessagesAsync webcrypto", () => lib.openMessagesAsync(ring, trust, ROOT, messages, null, null, { backend: "webcrypto" })],
      ["openMessagesAsync wasm", () => lib.openMessagesAsync(ring, trust, ROOT, messages, null, null, { backend: "wasm" })],
      [
        "WebCrypto Promise.all",
        () =>
          Promise.all(
            raw.map((m) =>
              subtle.decrypt({ name: "AES-GCM", iv: m.iv, additionalData: m.aad }, cryptoKey, m.ct),
            ),
          ),
      ],
      [
        "openMessage loop",
        () => {
          for (const m of messages) lib.openMessage(ring, trust, ROOT, m);
        },
      ],
      ...(ed
        ? [
            [
              "WebCrypto floor",
              () =>
                Promise.all(
                  raw.map(async (m) => {
                    const plain = await subtle.decrypt({ name: "AES-GCM", iv: m.iv, additionalData: m.aad }, cryptoKey, m.ct);
                    if (!(await edVerify(m.signature, plain))) throw new Error("Ed25519 did not verify");
                  }),
                ),
            ],
          ]
        : []),
    ],
    { samples: quick ? 5 : 15, minSampleMs: quick ? 10 : 50 },
  );
  const hist = "history 1000 x 512 B";
  row(hist, "WebCrypto AES-GCM decrypt x1000 (Promise.all)", history["WebCrypto Promise.all"]);
  if (ed) {
    row(
      hist,
      "floor: WebCrypto AES-GCM decrypt, then Ed25519 verify, x1000 (Promise.all)",
      history["WebCrypto floor"],
      history["WebCrypto Promise.all"],
    );
  }
  row(hist, "streamseal openMessages (one call)", history.openMessages, history["WebCrypto Promise.all"]);
  row(hist, "streamseal openMessagesAsync (one call, auto backend)", history.openMessagesAsync, history["WebCrypto Promise.all"]);
  row(hist, "streamseal openMessagesAsync (one call, webcrypto backend)", history["openMessagesAsync webcrypto"], history["WebCrypto Promise.all"]);
  row(hist, "streamseal openMessagesAsync (one call, wasm backend)", history["openMessagesAsync wasm"], history["WebCrypto Promise.all"]);
  row(
    hist,
    "streamseal openMessage x1000 (one call each)",
    history["openMessage loop"],
    history["WebCrypto Promise.all"],
  );

  // --- where "auto" sends an async open --------------------------------------
  // The async opens with each backend forced, one message of several sizes
  // and pages of 512 B messages: the crossover the package's "auto" follows
  // in this runtime (js/src/node.js, js/src/browser.js).
  log("async open by backend");
  const cross = "async open by backend (per message)";
  for (const [count, size] of [
    [1, 1024],
    [1, 16 * 1024],
    [1, 32 * 1024],
    [4, 512],
    [16, 512],
  ]) {
    const page = [];
    for (let i = 0; i < count; i++) {
      const id = messageId(100000 + i);
      page.push({ id, streamId: ROOT, authorId: OWNER, authorType: "user", revision: 1, sealed: lib.seal(ring, author, OWNER, slotOf(id), bytes(size, i)) });
    }
    const label = count === 1 ? `one ${size >= 1024 ? `${size / 1024} KiB` : `${size} B`} message` : `a page of ${count} x ${size} B`;
    const by = await compare(
      ["wasm", "webcrypto"].map((backend) => [
        backend,
        () => lib.openMessagesAsync(ring, trust, ROOT, page, null, null, { backend }),
      ]),
      fast,
    );
    row(cross, `${label}: wasm backend`, by.wasm / count);
    row(cross, `${label}: webcrypto backend`, by.webcrypto / count, by.wasm / count);
  }

  // --- where "auto" sends an async seal --------------------------------------
  // The async seal with each backend forced, at several sizes: the crossover
  // the package's "auto" follows for seals in this runtime.
  log("async seal by backend");
  const sealCross = "async seal by backend (per message)";
  for (const size of [1024, 4 * 1024, 16 * 1024, 32 * 1024]) {
    const id = messageId(200000 + size);
    const plain = bytes(size, 3);
    const by = await compare(
      ["wasm", "webcrypto"].map((backend) => [
        backend,
        () => lib.sealAsync(ring, author, OWNER, slotOf(id), plain, { backend }),
      ]),
      fast,
    );
    const label = `one ${size / 1024} KiB message`;
    row(sealCross, `${label}: wasm backend`, by.wasm);
    row(sealCross, `${label}: webcrypto backend`, by.webcrypto, by.wasm);
  }

  // --- HPKE wrap / unwrap of a stream key ----------------------------------
  // Wraps are HPKE auth mode (wrap format 2): the comparisons run auth mode too.
  log("hpke wrap/unwrap");
  const bot = lib.IdentityKey.generate("bot", "machine-a");
  const sender = lib.IdentityKey.generate("user", "owner-key");
  const recipient = bot.recipient();
  const senders = [sender.recipient()];
  const record = lib.wrapStreamKey(ring, 0, sender, recipient);
  const into = new lib.Keyring(ROOT);
  lib.unwrapStreamKey(into, record, bot, senders);
  const suites = [["@hpke/core + @hpke/dhkem-x25519", deps.dhkemX25519.DhkemX25519HkdfSha256]];
  if (opts.nativeX25519 !== false) {
    // @hpke/core's own KEM runs X25519 through WebCrypto where the platform has it.
    suites.push(["@hpke/core (WebCrypto X25519)", deps.hpke.DhkemX25519HkdfSha256]);
  }
  const info = bytes(80, 5); // about the length of a wrap's info
  const hpkeState = [];
  for (const [name, Kem] of suites) {
    try {
      const suite = new deps.hpke.CipherSuite({
        kem: new Kem(),
        kdf: new deps.hpke.HkdfSha256(),
        aead: new deps.hpke.Aes256Gcm(),
      });
      const pair = await suite.kem.generateKeyPair();
      const senderPair = await suite.kem.generateKeyPair();
      const sealed = await suite.seal({ recipientPublicKey: pair.publicKey, senderKey: senderPair, info }, keyBytes);
      await suite.open({ recipientKey: pair, enc: sealed.enc, senderPublicKey: senderPair.publicKey, info }, sealed.ct);
      hpkeState.push({ name, suite, pair, senderPair, sealed });
    } catch (e) {
      log(`  ${name}: unavailable here (${e && e.message})`);
    }
  }
  const wrapContenders = [["streamseal wrapStreamKey", () => lib.wrapStreamKey(ring, 0, sender, recipient)]];
  // `bot` has opened `record` above: a wrap from a sender it has opened one
  // from before (a stream's key distributor, generation after generation).
  // The key keeps DH(skR, pkS) with that sender, so the unwrap computes one
  // X25519, DH(skR, enc), as a member receiving a new generation does.
  // The first wrap from a sender computes both: `firstFrom` cycles through
  // 512 senders, each wrap to another IdentityKey object (`botFirst`) whose
  // cache (at most 256 senders) never holds the next one.
  const botFirst = lib.IdentityKey.fromSecretKey("bot", "machine-a", bot.exportSecretKey());
  const firstFrom = [];
  for (let i = 0; i < 512; i++) {
    const from = lib.IdentityKey.generate("user", `owner-key-${i}`);
    firstFrom.push([lib.wrapStreamKey(ring, 0, from, recipient), [from.recipient()]]);
    from.free();
  }
  let nextFirst = 0;
  const first = () => firstFrom[nextFirst++ % firstFrom.length];
  const unwrapContenders = [
    ["streamseal unwrapStreamKey", () => lib.unwrapStreamKey(into, record, bot, senders)],
    // The async unwrap: HPKE's X25519 where "auto" puts it in this runtime
    // (the platform's: WebCrypto in browsers, node:crypto in Node).
    ["streamseal unwrapStreamKeyAsync", () => lib.unwrapStreamKeyAsync(into, record, bot, senders)],
    [
      "streamseal unwrapStreamKeyAsync, first wrap from its sender",
      () => {
        const [wrap, from] = first();
        return lib.unwrapStreamKeyAsync(into, wrap, botFirst, from);
      },
    ],
  ];
  // The floor of an auth-mode unwrap on the platform's X25519 (WebCrypto's
  // importKey and deriveBits): DH(skR, enc) of the wrap's new enc, all a
  // wrap from a sender seen before needs. A first wrap from a sender also
  // computes DH(skR, pkS), in WASM (never the platform's); two WebCrypto
  // X25519 side by side are a reference for it.
  const x25519Pair = await subtle.generateKey({ name: "X25519" }, false, ["deriveBits"]).catch(() => null);
  if (x25519Pair) {
    const peers = await Promise.all([0, 1].map(() => subtle.generateKey({ name: "X25519" }, true, ["deriveBits"])));
    const raws = await Promise.all(peers.map((p) => subtle.exportKey("raw", p.publicKey)));
    const dh = (raw) =>
      subtle
        .importKey("raw", raw, { name: "X25519" }, true, [])
        .then((pub) => subtle.deriveBits({ name: "X25519", public: pub }, x25519Pair.privateKey, 256));
    unwrapContenders.push(["floor: 1 x WebCrypto X25519", () => dh(raws[0])]);
    unwrapContenders.push(["floor: 2 x WebCrypto X25519", () => Promise.all(raws.map(dh))]);
  }
  for (const s of hpkeState) {
    wrapContenders.push([
      s.name,
      () => s.suite.seal({ recipientPublicKey: s.pair.publicKey, senderKey: s.senderPair, info }, keyBytes),
    ]);
    unwrapContenders.push([
      s.name,
      () =>
        s.suite.open(
          { recipientKey: s.pair, enc: s.sealed.enc, senderPublicKey: s.senderPair.publicKey, info },
          s.sealed.ct,
        ),
    ]);
  }
  const hpkeOpts = { samples: quick ? 5 : 15, minSampleMs: quick ? 5 : 20 };
  const wrap = await compare(wrapContenders, hpkeOpts);
  const unwrap = await compare(unwrapContenders, hpkeOpts);
  const hpkeBase = hpkeState.length > 0 ? hpkeState[0].name : null;
  for (const s of hpkeState) {
    row("HPKE wrap (seal a 32-byte key)", s.name, wrap[s.name]);
  }
  row(
    "HPKE wrap (seal a 32-byte key)",
    "streamseal wrapStreamKey",
    wrap["streamseal wrapStreamKey"],
    hpkeBase && wrap[hpkeBase],
  );
  for (const s of hpkeState) {
    row("HPKE unwrap (open a 32-byte key)", s.name, unwrap[s.name]);
  }
  row(
    "HPKE unwrap (open a 32-byte key)",
    "streamseal unwrapStreamKey",
    unwrap["streamseal unwrapStreamKey"],
    hpkeBase && unwrap[hpkeBase],
  );
  row(
    "HPKE unwrap (open a 32-byte key)",
    "streamseal unwrapStreamKeyAsync (auto backend)",
    unwrap["streamseal unwrapStreamKeyAsync"],
    hpkeBase && unwrap[hpkeBase],
  );
  row(
    "HPKE unwrap (open a 32-byte key)",
    "streamseal unwrapStreamKeyAsync (auto backend), first wrap from its sender",
    unwrap["streamseal unwrapStreamKeyAsync, first wrap from its sender"],
    hpkeBase && unwrap[hpkeBase],
  );
  if (unwrap["floor: 1 x WebCrypto X25519"] !== undefined) {
    row("HPKE unwrap (open a 32-byte key)", "floor: 1 x WebCrypto X25519 (import the enc, deriveBits)", unwrap["floor: 1 x WebCrypto X25519"], hpkeBase && unwrap[hpkeBase]);
    row("HPKE unwrap (open a 32-byte key)", "reference: 2 x WebCrypto X25519 (import, deriveBits; side by side)", unwrap["floor: 2 x WebCrypto X25519"], hpkeBase && unwrap[hpkeBase]);
  }

  // --- Argon2id m=64 MiB t=3 p=1 -------------------------------------------
  log("argon2id m=64MiB t=3 p=1 (a few samples)");
  const params = { algorithm: "argon2id", m: 65536, t: 3, p: 1, version: 19 };
  const password = enc.encode("correct horse battery staple");
  // A user's key record as `POST me/e2e-key` takes it, unlocked as a front
  // end does (`unlock` reads the record, then Argon2id and AES-GCM: what
  // `openBundle` did here before it left the browser's first module).
  const setUp = lib.setUp("key_bench", password, params);
  setUp.takeIdentity().free();
  const ownKey = { ...setUp.record, createdAt: "2026-11-30T00:00:00Z" };
  setUp.free();
  const salt = bytes(16, 11);
  const argon = await compare(
    [
      [
        "streamseal unlock",
        () => lib.unlock(ownKey, password).free(),
      ],
      [
        "openpgpjs argon2id",
        () =>
          deps.openpgpArgon2id({
            password,
            salt,
            parallelism: 1,
            passes: 3,
            memorySize: 65536,
            tagLength: 32,
          }),
      ],
      [
        "hash-wasm argon2id",
        () =>
          deps.hashWasmArgon2id({
            password,
            salt,
            parallelism: 1,
            iterations: 3,
            memorySize: 65536,
            hashLength: 32,
            outputType: "binary",
          }),
      ],
    ],
    slow,
  );
  const a = "Argon2id m=64MiB t=3 p=1";
  row(a, "openpgpjs argon2id", argon["openpgpjs argon2id"]);
  row(a, "hash-wasm argon2id", argon["hash-wasm argon2id"], argon["openpgpjs argon2id"]);
  row(a, "streamseal unlock (Argon2id + AES-GCM)", argon["streamseal unlock"], argon["openpgpjs argon2id"]);

  const ratio = (x, y) => (x && y ? x / y : null);
  // Issue 20's budgets: what the package does by default (the async opens,
  // "auto" backend) against WebCrypto's raw AES-GCM, which does no base64,
  // AAD, commitment or signature work; Node must not be slower than WebCrypto.
  const inNode = typeof process !== "undefined" && Boolean(process.versions?.node);
  const groupMs = (group, name) => rows.find((r) => r.group === group && r.name === name)?.ms;
  const webcrypto = (label) => groupMs(`open ${label}, per call`, "WebCrypto AES-GCM decrypt (await each)");
  const ours = (label) => groupMs(`open ${label}, per call`, "streamseal openAsync (auto backend)");
  const floor = (label) =>
    groupMs(`open ${label}, per call`, "floor: WebCrypto AES-GCM decrypt, then Ed25519 verify (await each)");
  const fasterHpke = Math.min(...hpkeState.map((s) => unwrap[s.name]).filter((x) => x > 0));
  const budgets = [
    {
      name: "open 64 KiB (openAsync) vs WebCrypto raw decrypt per call",
      limit: inNode ? "<= 1.0x" : "<= 1.5x",
      ratio: ratio(ours("64 KiB"), webcrypto("64 KiB")),
      floor: ratio(floor("64 KiB"), webcrypto("64 KiB")),
      max: inNode ? 1.0 : 1.5,
    },
    {
      name: "1000 x 512 B history (openMessagesAsync) vs WebCrypto Promise.all",
      limit: inNode ? "<= 1.0x" : "<= 1.2x",
      ratio: ratio(history.openMessagesAsync, history["WebCrypto Promise.all"]),
      floor: ratio(history["WebCrypto floor"], history["WebCrypto Promise.all"]),
      max: inNode ? 1.0 : 1.2,
    },
    {
      name: "open 1 KiB (openAsync) vs WebCrypto raw decrypt per call",
      limit: inNode ? "<= 1.0x" : "<= 2.0x",
      ratio: ratio(ours("1 KiB"), webcrypto("1 KiB")),
      floor: ratio(floor("1 KiB"), webcrypto("1 KiB")),
      max: inNode ? 1.0 : 2.0,
    },
    {
      name: "HPKE unwrap (unwrapStreamKeyAsync, auto backend; a wrap from a sender seen before) vs the faster of @hpke/core (WebCrypto X25519) and @hpke/core + @hpke/dhkem-x25519",
      limit: "<= 0.5x",
      ratio: Number.isFinite(fasterHpke) ? ratio(unwrap["streamseal unwrapStreamKeyAsync"], fasterHpke) : null,
      floor: Number.isFinite(fasterHpke) && unwrap["floor: 1 x WebCrypto X25519"] !== undefined ? ratio(unwrap["floor: 1 x WebCrypto X25519"], fasterHpke) : null,
      max: 0.5,
    },
    {
      name: "WASM Argon2id m=64MiB t=3 p=1 (bundle unlock) vs openpgpjs argon2id",
      limit: "<= 1.0x",
      ratio: ratio(argon["streamseal unlock"], argon["openpgpjs argon2id"]),
      max: 1.0,
    },
  ];
  for (const b of budgets) b.pass = b.ratio !== null && b.ratio <= b.max;

  ring.free();
  author.free();
  trust.free();
  into.free();
  bot.free();
  botFirst.free();
  sender.free();
  return { rows, budgets };
}

function fmtMs(ms) {
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  return `${(ms * 1000).toFixed(1)} µs`;
}

/**
 * The result as a Markdown table (medians; ratio = row / its group's
 * baseline; a part of another row's operation gives its share of it).
 */
export function table(env, result) {
  const lines = [
    `| ${env}: group | contender | median | ratio to baseline |`,
    "|---|---|---:|---:|",
  ];
  for (const r of result.rows) {
    const ratio = r.share
      ? `${((100 * r.ms) / r.share.ms).toFixed(0)}% of ${r.share.of}`
      : r.baseline
        ? `${(r.ms / r.baseline).toFixed(3)}x`
        : "baseline";
    lines.push(`| ${r.group} | ${r.name} | ${fmtMs(r.ms)} | ${ratio} |`);
  }
  lines.push(
    "",
    `| ${env}: budget | limit | measured | floor (WebCrypto decrypt + Ed25519 verify) | verdict |`,
    "|---|---|---:|---:|---|",
  );
  for (const b of result.budgets) {
    const measured = b.ratio === null ? "n/a" : `${b.ratio.toFixed(3)}x`;
    const floorText = b.floor == null ? "" : `${b.floor.toFixed(3)}x`;
    lines.push(`| ${b.name} | ${b.limit} | ${measured} | ${floorText} | ${b.pass ? "pass" : "MISS"} |`);
  }
  return lines.join("\n");
}
