// Load: `node load.js [--loops 200] [--seconds 60] [--bin path]` (from
// js/bench, after the package's build and `cargo build -p streamseal-cli`).
// Starts `streamseal serve` with one bot per loop and no rate limit, then
// runs that many bot loops concurrently through createClient over loopback,
// each round: the owner sends a message to the bot's session (a minted
// clientMessageId), the bot claims the invocation, records a step and
// completes with a reply. When the time is up, every session's messages are
// read back and checked: each owner message exactly once, each with exactly
// one reply, nothing lost. The loops are plaintext: what is loaded is the
// stand-in and the HTTP path, not the client's crypto (measured elsewhere).
// Prints the figures and one `RESULT_JSON` line for `cargo xtask bench`.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import * as api from "../src/api-node.js";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const LOOPS = Number(arg("loops", 200));
const SECONDS = Number(arg("seconds", 60));
const BIN = arg("bin", process.env.STREAMSEAL_BIN ?? fileURLToPath(new URL("../../target/debug/streamseal", import.meta.url)));

const child = spawn(BIN, ["serve", "--port", "0", "--rate-limit", "0", "--bots", String(LOOPS)], {
  stdio: ["ignore", "pipe", "inherit"],
});
const seed = JSON.parse(await new Promise((resolve, reject) => {
  createInterface({ input: child.stdout }).once("line", resolve);
  child.once("exit", (code) => reject(new Error(`streamseal serve exited with ${code}`)));
}));
const peakRss = () => {
  try {
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
    return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
};

const retry = { baseDelayMs: 50, maxDelayMs: 1000, maxAttempts: 6, maxWaitMs: 10_000 };
const client = (key) => api.createClient({ baseUrl: seed.baseUrl, workspaceId: seed.workspaceId, apiKey: key, retry, timeoutMs: 10_000 });
const owner = client(seed.user.key);
const ok = (result, what) => {
  if (result.status !== "ok") throw new Error(`${what}: ${JSON.stringify(result.failure ?? String(result.error))}`);
  return result.response.data.data;
};

const sessions = await Promise.all(
  seed.bots.map(async (bot, i) => {
    const botApi = client(bot.key);
    const link = ok(await botApi.call({
      endpoint: "createSession",
      body: { runtimeKind: "alpha-local", instanceId: `m-${i}`, runtimeSessionId: `load-${i}`, displayName: `Load ${i}` },
    }), "createSession");
    return { botApi, stream: link.rootStreamId, instance: `m-${i}`, sent: [], rounds: 0 };
  }),
);

const latencies = [];
let requests = 0;
const deadline = Date.now() + SECONDS * 1000;
async function loop(s, n) {
  while (Date.now() < deadline) {
    const started = performance.now();
    const sent = ok(await owner.call({ endpoint: "sendMessage", streamId: s.stream, body: { content: `round ${s.rounds} of loop ${n}` } }), "sendMessage");
    s.sent.push(sent.data.clientMessageId);
    requests += 1;
    let invocation = null;
    while (!invocation) {
      invocation = ok(await s.botApi.call({
        endpoint: "claimInvocation",
        body: { runtimeKind: "alpha-local", instanceId: s.instance, supportedCapabilities: ["active-scratchpad"], claimTtlSeconds: 60 },
      }), "claimInvocation").data;
      requests += 1;
    }
    const claim = { instanceId: s.instance, claimToken: invocation.claimToken };
    ok(await s.botApi.call({ endpoint: "invocationStep", invocationId: invocation.id, body: { ...claim, stepType: "thinking", content: "on it" } }), "invocationStep");
    ok(await s.botApi.call({ endpoint: "completeInvocation", invocationId: invocation.id, body: { ...claim, finalMessageMarkdown: `re: ${invocation.promptMarkdown}` } }), "completeInvocation");
    requests += 2;
    latencies.push(performance.now() - started);
    s.rounds += 1;
  }
}
const started = performance.now();
await Promise.all(sessions.map((s, n) => loop(s, n)));
const elapsed = (performance.now() - started) / 1000;

// Read every session back and check it.
let lost = 0;
let duplicated = 0;
let unanswered = 0;
let messages = 0;
for (const s of sessions) {
  const all = [];
  for await (const page of owner.pages({ endpoint: "listMessages", streamId: s.stream, query: { after: 0, limit: 100 } })) {
    all.push(...page.data.data.data);
  }
  messages += all.length;
  const byId = new Map();
  for (const m of all.filter((m) => m.authorType === "user")) byId.set(m.clientMessageId, (byId.get(m.clientMessageId) ?? 0) + 1);
  for (const id of s.sent) {
    const count = byId.get(id) ?? 0;
    if (count === 0) lost += 1;
    if (count > 1) duplicated += count - 1;
  }
  const prompts = all.filter((m) => m.authorType === "user").map((m) => m.content);
  const replies = new Set(all.filter((m) => m.authorType === "bot").map((m) => m.content));
  unanswered += prompts.filter((p) => !replies.has(`re: ${p}`)).length;
  if (all.length !== 2 * s.rounds) duplicated += Math.max(0, all.length - 2 * s.rounds);
}
const rss = peakRss();
child.kill();

latencies.sort((a, b) => a - b);
const q = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
const result = {
  loops: LOOPS,
  seconds: Math.round(elapsed * 10) / 10,
  rounds: latencies.length,
  roundsPerSecond: Math.round((latencies.length / elapsed) * 10) / 10,
  requests,
  requestsPerSecond: Math.round(requests / elapsed),
  medianRoundMs: Math.round(q(0.5) * 10) / 10,
  p99RoundMs: Math.round(q(0.99) * 10) / 10,
  messages,
  lost,
  duplicated,
  unanswered,
  servePeakRssBytes: rss,
};
console.error(
  `[load] ${LOOPS} bot loops for ${result.seconds} s: ${result.rounds} rounds (${result.roundsPerSecond}/s), ` +
    `${result.requests} requests (${result.requestsPerSecond}/s), round median ${result.medianRoundMs} ms, p99 ${result.p99RoundMs} ms; ` +
    `${messages} messages read back: ${lost} lost, ${duplicated} duplicated, ${unanswered} unanswered; serve peak RSS ${(rss / 2 ** 20).toFixed(1)} MiB`,
);
console.log(`RESULT_JSON ${JSON.stringify(result)}`);
if (lost || duplicated || unanswered) process.exit(1);
