// createClient over real sockets: a scripted server on 127.0.0.1 answers
// the way a service under load, a lossy network or a hostile server does,
// and the client must retry only what the policy allows, never post a
// message twice, stop on the caller's AbortSignal and bound what it reads.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { shippedApi as pkg } from "./load.mjs";

const WS = "ws_01J80000000000000000000001";
const STREAM = "stream_01J80000000000000000000010";
const fixture = (name) => JSON.parse(readFileSync(new URL(`../../tests/fixtures/wire/${name}`, import.meta.url), "utf8"));
const fast = { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 4, maxWaitMs: 5000 };

/** A server answering each request with `handler(req, body, res)`; the requests seen. */
async function serve(handler) {
  const seen = [];
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    seen.push({ method: req.method, url: req.url, headers: req.headers, body });
    await handler(req, body, res, seen.length);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    seen,
    baseUrl: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

const json = (res, status, value, headers = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(value));
};

test("a 429 with Retry-After is waited out, then the 200 is returned", async () => {
  const server = await serve((req, body, res, n) => {
    if (n === 1) return json(res, 429, fixture("error_rate_limited.json"), { "retry-after": "1", "ratelimit-remaining": "0" });
    json(res, 200, fixture("stream_page_2026-08-21.json"), { "service-version": "2026-08-21" });
  });
  try {
    const retries = [];
    const client = pkg.createClient({ baseUrl: server.baseUrl, workspaceId: WS, apiKey: "svc_bk_secret", retry: fast, onRetry: (r) => retries.push(r) });
    const started = Date.now();
    const result = await client.call({ endpoint: "listStreams", query: { type: "channel" } });
    assert.equal(result.status, "ok");
    assert.equal(result.response.data.kind, "streams");
    assert.equal(server.seen.length, 2);
    assert.equal(retries.length, 1);
    assert.equal(retries[0].step.step, "retry");
    assert.ok(retries[0].step.delayMs >= 1000, "the server's wait comes first");
    assert.ok(Date.now() - started >= 1000);
    assert.equal(server.seen[0].headers.authorization, "Bearer svc_bk_secret");
  } finally {
    await server.close();
  }
});

test("a send whose response is lost is resent with its clientMessageId, and posts once", async () => {
  const stored = new Map();
  const server = await serve((req, body, res, n) => {
    const { clientMessageId } = JSON.parse(body);
    const first = !stored.has(clientMessageId);
    if (first) stored.set(clientMessageId, body);
    // The first answer is lost: the connection drops after the work is done.
    if (n === 1) return res.socket.destroy();
    const reply = fixture("message_send_2026-08-21.json");
    reply.data.clientMessageId = clientMessageId;
    json(res, first ? 201 : 200, reply);
  });
  try {
    const client = pkg.createClient({ baseUrl: server.baseUrl, workspaceId: WS, apiKey: "svc_bk_secret", retry: fast });
    const result = await client.call({ endpoint: "sendMessage", streamId: STREAM, body: { content: "ship it" } });
    assert.equal(result.status, "ok");
    assert.equal(server.seen.length, 2);
    const [a, b] = server.seen.map((s) => JSON.parse(s.body).clientMessageId);
    assert.match(a, /^cmid_/, "minted once");
    assert.equal(a, b, "the resend carries the same id");
    assert.equal(stored.size, 1, "one message, not two");
    assert.equal(result.response.data.data.data.clientMessageId, a);
  } finally {
    await server.close();
  }
});

test("what may have landed is never resent blindly: read back where a read tells, else unknown", async () => {
  const server = await serve((req, body, res) => res.socket.destroy());
  try {
    const client = pkg.createClient({ baseUrl: server.baseUrl, workspaceId: WS, apiKey: "svc_bk_secret", retry: fast, mintClientMessageIds: false });
    // A send with no clientMessageId: nothing finds it, so its outcome is unknown.
    const result = await client.call({ endpoint: "sendMessage", streamId: STREAM, body: { content: "ship it" } });
    assert.equal(result.status, "lost");
    assert.deepEqual(result.step, { step: "giveUp", reason: "outcomeUnknown", waitMs: null });
    assert.equal(result.attempts, 1);
    assert.equal(server.seen.length, 1, "never resent blindly");
    // A key-wrap post answered 502: its wraps are read back, not posted again.
    const bad = await serve((req, body, res) => json(res, 502, { error: "bad gateway" }));
    try {
      const c = pkg.createClient({ baseUrl: bad.baseUrl, workspaceId: WS, apiKey: "svc_bk_secret", retry: fast });
      const wraps = [{ recipientKind: "user", recipientKeyId: "key_owner", wrapEnc: "ZW5j", wrapCt: "Y3Q=" }];
      const failed = await c.call({ endpoint: "postKeyWraps", streamId: STREAM, body: { keyGeneration: 0, wraps } });
      assert.equal(failed.status, "failed");
      assert.equal(failed.step.step, "readBack");
      assert.equal(failed.step.endpoint, "getKeyWraps");
      assert.equal(bad.seen.length, 1);
    } finally {
      await bad.close();
    }
  } finally {
    await server.close();
  }
});

test("5xx to a read is retried to the policy's limit, then given up", async () => {
  const server = await serve((req, body, res) => json(res, 503, { error: "down" }));
  try {
    const client = pkg.createClient({ baseUrl: server.baseUrl, workspaceId: WS, apiKey: "svc_bk_secret", retry: fast });
    const result = await client.call({ endpoint: "getStream", streamId: STREAM });
    assert.equal(result.status, "failed");
    assert.deepEqual(result.step, { step: "giveUp", reason: "attemptsExhausted", waitMs: null });
    assert.equal(result.attempts, 4);
    assert.equal(server.seen.length, 4);
    const once = pkg.createClient({ baseUrl: server.baseUrl, workspaceId: WS, apiKey: "svc_bk_secret", retry: false });
    assert.equal((await once.call({ endpoint: "getStream", streamId: STREAM })).attempts, 1);
  } finally {
    await server.close();
  }
});

test("a timed-out attempt counts as lost and a read is sent again", async () => {
  const server = await serve((req, body, res, n) => {
    if (n === 1) return; // never answers
    json(res, 200, fixture("stream_page_2026-08-21.json"));
  });
  try {
    const client = pkg.createClient({ baseUrl: server.baseUrl, workspaceId: WS, apiKey: "svc_bk_secret", retry: fast, timeoutMs: 200 });
    const result = await client.call({ endpoint: "listStreams", query: { type: "channel" } });
    assert.equal(result.status, "ok");
    assert.equal(server.seen.length, 2);
  } finally {
    await server.close();
  }
});

test("the caller's AbortSignal stops a call in flight and a wait between attempts", async () => {
  const server = await serve((req, body, res, n) => {
    if (n === 1) return json(res, 429, fixture("error_rate_limited.json"), { "retry-after": "30" });
  });
  try {
    const client = pkg.createClient({ baseUrl: server.baseUrl, workspaceId: WS, apiKey: "svc_bk_secret", retry: { ...fast, maxWaitMs: 60_000 } });
    // Aborted while waiting out the 30 s Retry-After.
    const waiting = new AbortController();
    setTimeout(() => waiting.abort(new Error("user left")), 100);
    await assert.rejects(client.call({ endpoint: "listStreams", query: { type: "channel" } }, { signal: waiting.signal }), /user left/);
    // Aborted while the second request hangs.
    const hanging = new AbortController();
    setTimeout(() => hanging.abort(), 100);
    await assert.rejects(client.call({ endpoint: "listStreams", query: { type: "channel" } }, { signal: hanging.signal }), { name: "AbortError" });
    assert.equal(server.seen.length, 2);
  } finally {
    await server.close();
  }
});

test("pages: every page through nextPage; a failed page throws its code", async () => {
  const page = fixture("stream_page_2026-08-21.json");
  const server = await serve((req, body, res) => {
    const after = new URL(req.url, "http://x").searchParams.get("after");
    const n = after ? Number(after.slice(1)) : 0;
    if (n === 3) return json(res, 403, { error: "forbidden", code: "FORBIDDEN" });
    json(res, 200, { ...page, hasMore: n < 4, cursor: `c${n + 1}` });
  });
  try {
    const client = pkg.createClient({ baseUrl: server.baseUrl, workspaceId: WS, apiKey: "svc_bk_secret", retry: fast });
    const seen = [];
    await assert.rejects(async () => {
      for await (const p of client.pages({ endpoint: "listStreams", query: { type: "channel" } })) seen.push(p.data.data.data.length);
    }, (err) => {
      assert.ok(err instanceof pkg.StreamsealError);
      assert.equal(err.code, "FORBIDDEN");
      assert.equal(err.result.failure.status, 403);
      return true;
    });
    assert.deepEqual(seen, [2, 2, 2]);
    assert.deepEqual(server.seen.map((s) => new URL(s.url, "http://x").searchParams.get("after")), [null, "c1", "c2", "c3"]);
  } finally {
    await server.close();
  }
});

test("a hostile server's endless body is cut at maxResponseBytes", async () => {
  let written = 0;
  let closed = false;
  const server = await serve((req, body, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    const chunk = "x".repeat(64 * 1024);
    // Endless: writes until the client goes away.
    const more = () => {
      while (!res.destroyed && res.write(chunk)) written += chunk.length;
      if (!res.destroyed) res.once("drain", more);
    };
    res.on("close", () => (closed = true));
    more();
  });
  try {
    const client = pkg.createClient({ baseUrl: server.baseUrl, workspaceId: WS, apiKey: "svc_bk_secret", retry: fast, maxResponseBytes: 1024 * 1024 });
    await assert.rejects(client.call({ endpoint: "listStreams", query: { type: "channel" } }), { code: "INPUT_TOO_LARGE" });
    for (let i = 0; i < 100 && !closed; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(closed, "the client hung up");
    assert.ok(written < 64 * 1024 * 1024, `read on for ${written} bytes`);
  } finally {
    await server.close();
  }
});

test("a success body that is not UTF-8 is refused, not read with replacement characters", async () => {
  // A stream page whose first displayName carries a byte no UTF-8 text has (0xFF),
  // and the same page after a byte-order mark: a lenient decoder would read
  // the first as U+FFFD and drop the second, where Rust and Python refuse both.
  const honest = Buffer.from(JSON.stringify(fixture("stream_page_2026-08-21.json")));
  const at = honest.indexOf(Buffer.from('"displayName":"')) + 15;
  assert.ok(at > 15, "the fixture has a displayName");
  const bodies = {
    bad: Buffer.concat([honest.subarray(0, at), Buffer.from([0xff]), honest.subarray(at)]),
    bom: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), honest]),
    honest,
  };
  const server = await serve((req, body, res) => {
    const which = new URL(req.url, "http://x").searchParams.get("after") ?? "honest";
    const status = which.startsWith("error-") ? 400 : 200;
    res.writeHead(status, { "content-type": "application/json", "service-version": "2026-08-21" });
    res.end(bodies[which.replace("error-", "")]);
  });
  try {
    const client = pkg.createClient({ baseUrl: server.baseUrl, workspaceId: WS, apiKey: "svc_bk_secret", retry: fast });
    const list = (after) => client.call({ endpoint: "listStreams", query: after ? { type: "channel", after } : { type: "channel" } });
    assert.equal((await list()).status, "ok");
    await assert.rejects(list("bad"), { code: "MALFORMED_JSON", message: /not UTF-8/ });
    const bom = await list("bom");
    assert.equal(bom.status, "malformed");
    assert.equal(bom.failure.code, "MALFORMED_JSON");
    // An error body is only read for its code: kept, with the byte replaced.
    assert.equal((await list("error-bad")).status, "failed");
  } finally {
    await server.close();
  }
});

test("createClient checks its context at once", () => {
  assert.throws(() => pkg.createClient({ baseUrl: "https://x.test", workspaceId: "nope", apiKey: "svc_bk_secret" }), { code: "INVALID_FIELD" });
  assert.throws(() => pkg.createClient({ baseUrl: "https://x.test", workspaceId: WS, fetch: 5 }), { code: "INVALID_FIELD" });
});
