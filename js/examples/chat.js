// The chat page: the user's side of a sealed scratchpad with a bot, over
// the service's API (here `streamseal serve`, named in the page's query
// string with the user's key, the stream and the bot's machine key, which
// the user compared out of band). Unlock the key with the passphrase, take
// the stream's keys from the wraps, send a sealed message, wait for the
// bot's sealed reply, and open the conversation: each message says who
// sealed it and how sure that is. The endpoint module is imported on first
// use, as the package's README advises.
import { init, unlock, openKeyWraps, openMessagesAsync, sealMessage, mintMessageId, StreamState, TrustStore, StreamsealError } from "../src/browser.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const config = {
  baseUrl: params.get("serve"),
  workspaceId: params.get("workspace"),
  apiKey: params.get("key"),
  root: params.get("root"),
  bot: params.get("bot"),
  machine: { kind: "bot", keyId: params.get("machineKeyId"), publicKey: params.get("machinePublicKey") },
};
await init();
$("status").textContent = "ready";

/** The typed data of a call that must succeed. */
function ok(result) {
  if (result.status !== "ok") {
    const f = result.failure;
    throw new StreamsealError(f?.code ?? "HTTP_ERROR", f?.message ?? String(result.error));
  }
  return result.response.data.data;
}

$("send").addEventListener("submit", async (event) => {
  event.preventDefault();
  let key, ring, state, trust, machine;
  try {
    const api = await import("../src/api-browser.js");
    await api.init();
    const client = api.createClient({ baseUrl: config.baseUrl, workspaceId: config.workspaceId, apiKey: config.apiKey });
    const me = ok(await client.call({ endpoint: "getMe" }));
    const passphrase = new TextEncoder().encode($("passphrase").value);
    try {
      key = unlock(ok(await client.call({ endpoint: "getOwnE2eKey" })), passphrase);
    } finally {
      passphrase.fill(0);
    }
    // The bot's machine key, pinned (compared out of band), is the sender of this stream's keys.
    trust = new TrustStore("tofu");
    machine = trust.admit(config.bot, config.machine);
    state = new StreamState(config.root);
    state.acceptSender(machine);
    const report = openKeyWraps(state, trust, ok(await client.call({ endpoint: "getKeyWraps", streamId: config.root })), key);
    if (report.skipped.length) $("status").textContent = `skipped: ${report.skipped.map((s) => s.code).join(", ")}`;
    ring = state.keyring();
    const body = sealMessage(ring, key, me.userId, config.root, mintMessageId(Date.now()), $("text").value);
    ok(await client.call({ endpoint: "sendMessage", streamId: config.root, body }));
    $("status").textContent = "sent; waiting for the bot";

    // Poll until the bot's reply is there (a real app listens on the realtime channel).
    let messages = [];
    for (let i = 0; i < 150 && !messages.some((m) => m.authorType === "bot"); i++) {
      if (i) await new Promise((r) => setTimeout(r, 200));
      messages = ok(await client.call({ endpoint: "listMessages", streamId: config.root, query: {} })).data;
    }
    const results = await openMessagesAsync(ring, trust, config.root, messages, { subject: me.userId, keys: key });
    $("history").replaceChildren(
      ...results.map((r) => {
        const li = document.createElement("li");
        li.textContent = r.status === "opened" ? r.message.text : `[${r.code}]`;
        if (r.status === "opened") li.dataset.sealedBy = `${r.message.sealedBy.subject} ${r.message.sealedBy.status}`;
        return li;
      }),
    );
    $("status").textContent = messages.some((m) => m.authorType === "bot") ? "replied" : "no reply";
  } catch (err) {
    $("status").textContent = err instanceof StreamsealError ? `error ${err.code}` : `error ${err}`;
  } finally {
    for (const o of [ring, state, machine, trust, key]) o?.free();
  }
});
