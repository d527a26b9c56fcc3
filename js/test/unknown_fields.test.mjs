// API §9.6 (issue 17): response fields the library does not know are kept
// and returned, at the top level and in nested objects, by parseResponse;
// and the response shapes of §1/§4 (`complete` under `data`, a memo result
// wrapping its memo, `GET delegations` with its paging).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { shippedApi as pkg } from "./load.mjs";

const ctx = { baseUrl: "https://chat.example.test/", workspaceId: "ws_01J80000000000000000000001", apiKey: "svc_bk_secret" };
const fixture = (name) => JSON.parse(readFileSync(new URL(`../../tests/fixtures/wire/${name}`, import.meta.url), "utf8"));

function parse(request, body, version = "2026-08-21") {
  const req = pkg.buildRequest(ctx, request);
  const parsed = pkg.parseResponse(req, { status: 200, headers: [["Service-Version", version]], body: JSON.stringify(body) });
  assert.equal(parsed.status, "ok", JSON.stringify(parsed));
  return parsed.response.data;
}

test("a stream page keeps unknown fields at the top level and in each stream", () => {
  const body = fixture("stream_page_2026-08-21.json");
  body.laterTopLevel = { total: 2, ranks: [1, 2.5] };
  body.data[0].laterField = "kept";
  body.data[1].laterField = { nested: { deeper: [null, true, "x"] } };
  const data = parse({ endpoint: "listStreams", query: { type: "channel" } }, body);
  assert.equal(data.kind, "streams");
  assert.deepEqual(data.data.laterTopLevel, { total: 2, ranks: [1, 2.5] });
  assert.equal(data.data.data[0].laterField, "kept");
  assert.deepEqual(data.data.data[1].laterField, { nested: { deeper: [null, true, "x"] } });
  // Nothing else changed: the page is the body, field for field.
  assert.deepEqual(data.data, body);
});

test("the 2026-07-12 shape keeps them too, through its own field names", () => {
  const body = fixture("stream_page_2026-07-12.json");
  body.data[0].laterField = 7;
  const data = parse({ endpoint: "listStreams", query: { type: "channel" } }, body, "2026-07-12");
  assert.equal(data.data.data[0].laterField, 7);
});

test("unknown fields at several depths of a message list, a memo and a sealed claim", () => {
  const list = fixture("unknown_fields_message_list_2026-08-21.json");
  const messages = parse({ endpoint: "listMessages", streamId: "stream_1", query: {} }, list);
  assert.deepEqual(messages.data, list);
  assert.equal(messages.data.data[0].pinned, true);
  assert.equal(messages.data.data[0].attachments[0].exif.iso, 200);
  assert.equal(messages.data.slots["shared:msg_01J80000000000000000000023@2"].authorName, "Grace");

  const memo = fixture("unknown_fields_memo_get.json");
  const got = parse({ endpoint: "getMemo", memoId: "memo_1" }, memo);
  assert.deepEqual(got.data, memo.data);
  assert.equal(got.data.memo.confidence, 0.92);
  assert.equal(got.data.sourceStream.memberCount, 12);

  const claim = fixture("unknown_fields_claim_sealed.json");
  const claimed = parse(
    { endpoint: "claimInvocation", body: { runtimeKind: "custom", instanceId: "i1", supportedCapabilities: [], claimTtlSeconds: 60 } },
    claim,
  );
  assert.equal(claimed.data.serverTime, claim.serverTime);
  assert.equal(claimed.data.data.sealedContext.trigger.locale, "en-GB");
  assert.deepEqual(claimed.data.data.sealedContext.reply.attachmentLimit, { count: 4, bytes: 10485760 });
});

test("complete reads `{data: {invocationId, message}, slots}` (API §4, §4.10) and returns it so", () => {
  const body = fixture("invocation_completed_2026-08-21.json");
  const data = parse(
    { endpoint: "completeInvocation", invocationId: "inv_1", body: { instanceId: "i1", claimToken: "clm_1", noResponse: true } },
    body,
  );
  assert.equal(data.kind, "invocationCompleted");
  assert.deepEqual(data.data, body);
  assert.equal(data.data.data.invocationId, "inv_01J80000000000000000000040");
});

test("a memo result is returned nested under `memo`, whichever reading came (API §2.5)", () => {
  const nested = parse({ endpoint: "searchMemos", body: { query: "ship" } }, fixture("memo_search.json"));
  const flat = parse({ endpoint: "searchMemos", body: { query: "ship" } }, fixture("memo_search_flat.json"));
  assert.deepEqual(flat, nested);
  assert.equal(nested.data.data[0].memo.title, "Ship on Friday");
  assert.equal(nested.data.data[0].distance, 0.25);
});

test("GET delegations keeps hasMore and cursor (API §1)", () => {
  const data = parse({ endpoint: "listDelegations", query: {} }, fixture("delegation_list.json"));
  assert.equal(data.kind, "delegations");
  assert.equal(data.data.hasMore, true);
  assert.equal(data.data.cursor, "cur_deleg_2");
});

test("keys beside `data` come back in `response.extra`, and crypto records keep theirs", () => {
  // API §1: a single object comes as {"data": ...}; §9.6: new fields are kept.
  const body = fixture("key_wraps.json");
  body.meta = { requestId: "req_1", cost: [1, 2.5] };
  body.data.wraps[0].laterField = ["a", { b: null }];
  const req = pkg.buildRequest(ctx, { endpoint: "getKeyWraps", streamId: "stream_01J80000000000000000000010" });
  const parsed = pkg.parseResponse(req, { status: 200, headers: [], body: JSON.stringify(body) });
  assert.equal(parsed.status, "ok", JSON.stringify(parsed));
  assert.deepEqual(parsed.response.extra, { meta: { requestId: "req_1", cost: [1, 2.5] } });
  assert.equal(parsed.response.data.kind, "keyWraps");
  assert.deepEqual(parsed.response.data.data, body.data);
  // A body that is the result itself keeps them in the result instead.
  const page = fixture("stream_page_2026-08-21.json");
  page.laterTopLevel = 1;
  const listed = pkg.parseResponse(pkg.buildRequest(ctx, { endpoint: "listStreams", query: { type: "channel" } }),
    { status: 200, headers: [], body: JSON.stringify(page) });
  assert.deepEqual(listed.response.extra, {});
  assert.equal(listed.response.data.data.laterTopLevel, 1);
});
