// A consumer's own page: it knows the package only by its name.
import {
  init,
  IdentityKey,
  Keyring,
  StreamsealError,
  TrustStore,
  open,
  seal,
  unwrapStreamKey,
  wrapStreamKey,
  type OpenedEnvelope,
  type Slot,
} from "streamseal";
import { StreamsealWorker } from "streamseal/worker";

const ROOT = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";

async function main(): Promise<string> {
  await init();
  const slot: Slot = {
    kind: "message",
    streamId: ROOT,
    messageId: "msg_1",
    authorId: "usr_1",
    authorType: "user",
    revision: 1,
  };
  const owner = new Keyring(ROOT);
  owner.generateKey(0);
  const ownerKey = IdentityKey.generate("user", "owner-key");
  const reader = IdentityKey.generate("user", "reader-key");
  const ring = new Keyring(ROOT);
  unwrapStreamKey(ring, wrapStreamKey(owner, 0, ownerKey, reader.recipient()), reader, [
    ownerKey.recipient(),
  ]);
  const sealed = seal(owner, ownerKey, "usr_1", slot, new TextEncoder().encode("built by Vite"));
  const pins = new TrustStore("tofu");
  pins.observe("usr_1", ownerKey.recipient());
  const opened: OpenedEnvelope = open(ring, pins, slot, sealed);
  const text = new TextDecoder().decode(opened.plaintext);
  if (text !== "built by Vite" || opened.sealedBy.status !== "unverified") {
    throw new Error(`opened the wrong thing: ${text}`);
  }
  try {
    open(ring, pins, { ...slot, revision: 2 }, sealed);
    throw new Error("a moved ciphertext opened");
  } catch (e) {
    if (!(e instanceof StreamsealError) || e.code !== "AAD_MISMATCH") {
      throw e;
    }
  }
  // The same package in a module Worker, bundled by Vite from
  // `new Worker(new URL(...), { type: "module" })`.
  const worker = StreamsealWorker.start();
  const remote = await worker.callStatic("IdentityKey.generate", ["user", "worker-key"]);
  const recipient: { keyId: string } = await remote.call("recipient");
  const codes: string[] = await worker.run("errorCodes");
  worker.terminate();
  if (recipient.keyId !== "worker-key" || !codes.includes("AAD_MISMATCH")) {
    throw new Error("the worker answered wrongly");
  }
  return `ok ${text}`;
}

// The second module, `streamseal/api`, fetched only when the page first
// talks to the service: run.mjs calls this after the page is done and
// checks the network log (no api .wasm before, one after).
async function loadApi(): Promise<string> {
  const api = await import("streamseal/api");
  await api.init();
  const request = api.buildRequest(
    { baseUrl: "https://chat.example.test", workspaceId: "ws_01J80000000000000000000001", apiKey: "svc_bk_secret" },
    { endpoint: "getStream", streamId: "stream_01J80000000000000000000010" },
  );
  try {
    api.buildRequest({ baseUrl: "https://chat.example.test", workspaceId: "nope", apiKey: "k" }, { endpoint: "getMe" });
    throw new Error("a bad workspace id was accepted");
  } catch (e) {
    // One error class for both modules.
    if (!(e instanceof StreamsealError) || e.code !== "INVALID_FIELD") throw e;
  }
  return `${request.method} ${new URL(request.url).pathname}`;
}
(window as unknown as { loadApi: () => Promise<string> }).loadApi = loadApi;

const out = document.getElementById("out");
main().then(
  (result) => {
    if (out) out.textContent = result;
  },
  (error: unknown) => {
    if (out) out.textContent = `failed: ${String(error)}`;
  },
);
