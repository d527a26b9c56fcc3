// The sans-IO endpoints through the shipped package's second module
// (`streamseal/api`, loaded on first use): buildRequest,
// parseResponse, the catalogue (endpoints, endpoint, endpointCount,
// missingScope) and the paging helpers, under the names the UniFFI binding
// shares (names.test.mjs checks that).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { shippedApi as pkg, shipped as main, throwsCode } from "./load.mjs";

const ctx = { baseUrl: "https://chat.example.test/", workspaceId: "ws_01J80000000000000000000001", apiKey: "svc_bk_secret" };
const fixture = (name) => readFileSync(new URL(`../../tests/fixtures/wire/${name}`, import.meta.url), "utf8");
const header = (req, name) => req.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];

test("endpoints, endpoint, endpointCount: 58 rows of the core's catalogue; missingScope", () => {
  const rows = pkg.endpoints();
  assert.equal(pkg.endpointCount(), 58);
  assert.equal(rows.length, pkg.endpointCount());
  assert.equal(new Set(rows.map((r) => r.id)).size, 58);
  const send = pkg.endpoint("sendMessage");
  assert.deepEqual(send, rows.find((r) => r.id === "sendMessage"));
  assert.deepEqual(send, {
    id: "sendMessage",
    family: "messages",
    method: "POST",
    pathTemplate: "/streams/{streamId}/messages",
    pathParams: ["streamId"],
    scope: { kind: "scope", scope: "messages:write" },
    auth: "bearer",
    claimBound: false,
    idempotent: false,
    conflictMayMeanLanded: false,
  });
  const hook = pkg.endpoint("postWebhook");
  assert.equal(hook.auth, "secretUrl");
  assert.deepEqual(hook.scope, { kind: "noKey" });
  assert.deepEqual(hook.pathParams, ["hookId", "secret"]);
  for (const row of rows) assert.deepEqual(pkg.endpoint(row.id), row);
  throwsCode(assert, pkg, () => pkg.endpoint("noSuchEndpoint"), "INVALID_FIELD");
  assert.equal(pkg.missingScope("sendMessage", ["messages:read"]), "messages:write");
  assert.equal(pkg.missingScope("sendMessage", ["messages:write"]), undefined);
  // An unknown id is INVALID_FIELD, as in the UniFFI binding.
  throwsCode(assert, pkg, () => pkg.missingScope("noSuchEndpoint", []), "INVALID_FIELD");
});

test("buildRequest: path escaping, bearer, JSON body, retry safety", () => {
  const req = pkg.buildRequest(ctx, {
    endpoint: "sendMessage",
    streamId: "stream_01J80000000000000000000010",
    body: { content: "ship it", clientMessageId: "cmid_1" },
  });
  assert.equal(req.method, "POST");
  assert.equal(req.path, "/api/v1/workspaces/ws_01J80000000000000000000001/streams/stream_01J80000000000000000000010/messages");
  assert.equal(req.url, `https://chat.example.test${req.path}`);
  assert.equal(header(req, "Authorization"), "Bearer svc_bk_secret");
  assert.equal(header(req, "Content-Type"), "application/json");
  assert.equal(req.body.kind, "json");
  assert.deepEqual(JSON.parse(req.body.value), { content: "ship it", clientMessageId: "cmid_1" });
  assert.equal(req.retrySafe, true);
  const get = pkg.buildRequest({ ...ctx, serviceVersion: "2026-07-22" }, { endpoint: "getStream", streamId: "a/b c" });
  assert.equal(get.path, "/api/v1/workspaces/ws_01J80000000000000000000001/streams/a%2Fb%20c");
  assert.equal(header(get, "Service-Version"), "2026-07-22");
  assert.equal(get.body, null);
  const list = pkg.buildRequest(ctx, { endpoint: "listMessages", streamId: "stream_1", query: { before: 10, limit: 5 } });
  assert.deepEqual(list.query, [["before", "10"], ["limit", "5"]]);
});

test("buildRequest: webhooks carry no key, uploads describe the part, sealed calls carry the callback token", () => {
  const hook = pkg.buildRequest({ ...ctx, apiKey: undefined }, { endpoint: "postWebhook", hookId: "hook_1", secret: "s3cret", body: { content: "deployed" } });
  assert.equal(header(hook, "Authorization"), undefined);
  const compat = pkg.buildRequest({ ...ctx, apiKey: undefined }, { endpoint: "postCompatWebhook", hookId: "hook_1", secret: "s3cret", body: { text: "hi" } });
  assert.ok(compat.path.endsWith("/hooks/hook_1/s3cret/compat"));
  const upload = pkg.buildRequest(ctx, { endpoint: "uploadAttachment", upload: { filename: "a.png", contentType: "image/png" } });
  assert.deepEqual(upload.body, { kind: "multipart", value: { field: "file", filename: "a.png", contentType: "image/png" } });
  throwsCode(assert, pkg, () => pkg.buildRequest({ ...ctx, apiKey: undefined }, { endpoint: "getMe" }), "INVALID_FIELD");
  const [v] = JSON.parse(readFileSync(new URL("../../tests/vectors/streamseal/invocations.json", import.meta.url), "utf8")).vectors;
  const sealed = pkg.buildRequest(ctx, {
    endpoint: "sealedComplete",
    invocationId: v.invocation.id,
    callbackToken: v.invocation.sealedContext.callbackToken,
    body: v.sealedComplete,
  });
  assert.equal(header(sealed, "X-Service-Callback-Token"), "cbt_golden_vector_token");
  assert.deepEqual(JSON.parse(sealed.body.value), v.sealedComplete);
});

test("buildRequest: validation before sending, with details; bad shapes", () => {
  assert.throws(
    () => pkg.buildRequest(ctx, { endpoint: "sendMessage", streamId: "stream_1", body: { content: "" } }),
    (e) => e instanceof pkg.StreamsealError && e.code === "VALIDATION_FAILED" && typeof e.details === "object",
  );
  // The second module's glue throws the class the first module's entry exports: the one
  // registered under the package's versioned key (which must follow package.json's version).
  assert.throws(() => pkg.buildRequest(ctx, { endpoint: "nope" }), (e) => e instanceof main.StreamsealError);
  const [major, minor] = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version.split(".");
  assert.equal(globalThis[Symbol.for(`streamseal@${major}.${minor}:StreamsealError`)], main.StreamsealError);
  // An unknown endpoint is a validation failure of `endpoint` (issue 17; request_decoding.test.mjs).
  throwsCode(assert, pkg, () => pkg.buildRequest(ctx, { endpoint: "nope" }), "VALIDATION_FAILED");
  throwsCode(assert, pkg, () => pkg.buildRequest({ ...ctx, workspaceId: "nope" }, { endpoint: "getMe" }), "INVALID_FIELD");
  throwsCode(assert, pkg, () => pkg.buildRequest(ctx, { endpoint: "getStream", streamId: ".." }), "VALIDATION_FAILED");
});

test("parseResponse: a typed 2xx, the resolved version and rate limits", () => {
  const req = pkg.buildRequest(ctx, { endpoint: "listMessages", streamId: "stream_1", query: {} });
  const body = fixture("message_list_2026-08-21.json");
  const parsed = pkg.parseResponse(req, {
    status: 200,
    headers: [["Service-Version", "2026-08-21"], ["RateLimit-Remaining", "59"]],
    body,
  });
  assert.equal(parsed.status, "ok");
  assert.equal(parsed.response.endpoint, "listMessages");
  assert.equal(parsed.response.version, "2026-08-21");
  assert.equal(parsed.response.rateLimit.remaining, 59);
  assert.equal(parsed.response.data.kind, "messages");
  assert.ok(Array.isArray(parsed.response.data.data.data));
});

test("parseResponse: a body that does not read keeps the status, version echo and rate limits (API §8, §9.3)", () => {
  const req = pkg.buildRequest(ctx, { endpoint: "listMessages", streamId: "stream_1", query: {} });
  const headers = [["Service-Version", "2026-07-24"], ["RateLimit-Limit", "60"], ["RateLimit-Remaining", "0"], ["RateLimit-Reset", "9"]];
  const bad = pkg.parseResponse(req, { status: 200, headers, body: "{" });
  assert.equal(bad.status, "malformed");
  assert.equal(bad.failure.code, "MALFORMED_JSON");
  assert.equal(bad.failure.status, 200);
  assert.equal(bad.failure.endpoint, "listMessages");
  assert.equal(bad.failure.version, "2026-07-24");
  assert.equal(bad.failure.shape, "2026-07-24");
  assert.deepEqual(
    [bad.failure.rateLimit.limit, bad.failure.rateLimit.remaining, bad.failure.rateLimit.resetSeconds],
    [60, 0, 9],
  );
  const failed = pkg.parseResponse(req, { status: 503, headers, body: "<html>" });
  assert.equal(failed.status, "failed");
  assert.equal(failed.failure.version, "2026-07-24");
  assert.equal(failed.failure.rateLimit.remaining, 0);
});

test("parseResponse and noResponseRetryFacts read only endpoint, retrySafe and serviceVersion of the request", () => {
  const req = pkg.buildRequest({ ...ctx, serviceVersion: "2026-07-24" }, { endpoint: "listMessages", streamId: "stream_1", query: {} });
  const facts = { endpoint: req.endpoint, retrySafe: req.retrySafe, serviceVersion: req.serviceVersion };
  assert.equal(facts.serviceVersion, "2026-07-24");
  const response = { status: 200, headers: [], body: fixture("message_list_2026-07-24.json") };
  // The same result from the whole request and from the three fields; the
  // other fields (the body, the headers with the key) are never read.
  const whole = pkg.parseResponse(req, response);
  assert.equal(whole.status, "ok");
  assert.equal(whole.response.shape, "2026-07-24");
  assert.deepEqual(pkg.parseResponse(facts, response), whole);
  assert.deepEqual(pkg.parseResponse({ ...facts, body: 5, headers: "x" }, response), whole);
  const down = { status: 503, headers: [], body: "" };
  assert.deepEqual(pkg.parseResponse(facts, down), pkg.parseResponse(req, down));
  assert.deepEqual(pkg.noResponseRetryFacts(facts), pkg.noResponseRetryFacts(req));
  // Those three are still checked.
  for (const bad of [{ retrySafe: true }, { endpoint: "listMessages" }, { ...facts, endpoint: "noSuchEndpoint" }, { ...facts, retrySafe: "yes" }]) {
    throwsCode(assert, pkg, () => pkg.parseResponse(bad, response), "MALFORMED_JSON");
    throwsCode(assert, pkg, () => pkg.noResponseRetryFacts(bad), "MALFORMED_JSON");
  }
});

test("parseResponse: 429 with headers, a named error, the compat webhook's plain text", () => {
  const send = pkg.buildRequest(ctx, { endpoint: "sendMessage", streamId: "stream_1", body: { content: "x", clientMessageId: "c1" } });
  const limited = pkg.parseResponse(send, { status: 429, headers: [["Retry-After", "7"]], body: fixture("error_rate_limited.json") });
  assert.equal(limited.status, "failed");
  assert.equal(limited.failure.status, 429);
  assert.equal(limited.failure.retryAfter, 7);
  assert.equal(limited.failure.retrySafe, true);
  assert.equal(limited.failure.action, "retryAfterWait");
  const claim = pkg.buildRequest(ctx, { endpoint: "claimDelegation", delegationId: "del_1", body: { claimedByLabel: "runner-1" } });
  const notOpen = pkg.parseResponse(claim, { status: 409, headers: [], body: fixture("error_delegation_not_open.json") });
  assert.equal(notOpen.failure.code, "DELEGATION_NOT_OPEN");
  const compat = pkg.buildRequest({ ...ctx, apiKey: undefined }, { endpoint: "postCompatWebhook", hookId: "h", secret: "s", body: { text: "hi" } });
  const plain = pkg.parseResponse(compat, { status: 400, headers: [], body: "invalid payload" });
  assert.equal(plain.status, "failed");
  assert.equal(plain.failure.message, "invalid payload");
});

test("paging: nextCursor, nextMessageQuery, mintClientMessageId", () => {
  assert.equal(pkg.nextCursor(true, "c2"), "c2");
  assert.equal(pkg.nextCursor(false, "c2"), undefined);
  const page = JSON.parse(fixture("message_list_2026-08-21.json"));
  const list = page;
  const next = pkg.nextMessageQuery({ limit: 2 }, { ...list, hasMore: true });
  assert.equal(typeof next.before, "number");
  assert.equal(pkg.nextMessageQuery({}, { ...list, hasMore: false }), undefined);
  // Only the paging fields are read, as by nextPage: messages cut down to
  // their sequence page the same way, and both helpers agree.
  const sequences = list.data.map((m) => Number(m.sequence));
  assert.ok(sequences.length >= 2);
  const bare = { data: list.data.map((m) => ({ sequence: m.sequence })), hasMore: true };
  assert.deepEqual(pkg.nextMessageQuery({ limit: 2 }, bare), next);
  assert.equal(next.before, Math.min(...sequences));
  const forward = pkg.nextMessageQuery({ after: 1 }, bare);
  assert.equal(forward.after, Math.max(...sequences));
  const paged = pkg.nextPage({ endpoint: "listMessages", streamId: "stream_1", query: { after: 1 } }, { kind: "messages", data: bare });
  assert.deepEqual(paged.query, forward);
  // What is read is still checked.
  throwsCode(assert, pkg, () => pkg.nextMessageQuery({}, { ...bare, hasMore: "yes" }), "MALFORMED_JSON");
  throwsCode(assert, pkg, () => pkg.nextMessageQuery({}, { hasMore: true, data: [{}] }), "MALFORMED_JSON");
  const id = pkg.mintClientMessageId(1_700_000_000_000);
  assert.match(id, /^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/);
  throwsCode(assert, pkg, () => pkg.mintClientMessageId(-1), "INVALID_FIELD");
  throwsCode(assert, pkg, () => pkg.mintClientMessageId(1.5), "INVALID_FIELD");
});

test("nextPage: the request of the next page from parseResponse's data", () => {
  const request = { endpoint: "listStreams", query: { type: "channel", limit: 2 } };
  const built = pkg.buildRequest(ctx, request);
  const parsed = pkg.parseResponse(built, { status: 200, headers: [], body: fixture("stream_page_2026-08-21.json") });
  assert.equal(parsed.status, "ok");
  const data = parsed.response.data;
  assert.equal(data.kind, "streams");
  assert.equal(data.data.hasMore, false);
  assert.equal(pkg.nextPage(request, data), undefined);
  const more = { ...data, data: { ...data.data, hasMore: true, cursor: "c2" } };
  const next = pkg.nextPage(request, more);
  assert.deepEqual(next, { endpoint: "listStreams", query: { type: "channel", limit: 2, after: "c2" } });
  assert.ok(pkg.buildRequest(ctx, next).url.endsWith("/streams?type=channel&after=c2&limit=2"));
  // Key order does not matter; another kind, or a request that does not page, gives undefined.
  assert.deepEqual(pkg.nextPage(request, { data: more.data, kind: "streams" }), next);
  assert.equal(pkg.nextPage({ endpoint: "getMe" }, more), undefined);
  assert.equal(pkg.nextPage(request, { kind: "noContent" }), undefined);

  // Messages page backwards by `before` the lowest sequence, forwards by `after` the highest.
  const list = { endpoint: "listMessages", streamId: "stream_1", query: { limit: 2 } };
  const page = pkg.parseResponse(pkg.buildRequest(ctx, list), { status: 200, headers: [], body: fixture("message_list_2026-08-21.json") }).response.data;
  assert.equal(pkg.nextPage(list, page), undefined);
  const morePage = { ...page, data: { ...page.data, hasMore: true } };
  assert.deepEqual(pkg.nextPage(list, morePage), { endpoint: "listMessages", streamId: "stream_1", query: { limit: 2, before: 7 } });
  const forward = { ...list, query: { after: 1 } };
  assert.deepEqual(pkg.nextPage(forward, morePage).query, { after: 42 });

  throwsCode(assert, pkg, () => pkg.nextPage(request, { kind: "streams", data: { data: [] } }), "MALFORMED_JSON");
  throwsCode(assert, pkg, () => pkg.nextPage({ endpoint: "nope" }, more), "VALIDATION_FAILED");
});
