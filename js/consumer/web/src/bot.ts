// Type-checked by `tsc --strict` (not bundled: index.html loads main.ts):
// a bot runtime's calls, which only `streamseal/bot` declares (and
// `streamseal` in Node); the browser's `streamseal` leaves them out.
import { openInvocationAsync, prepareOpenMessages, sealReplyAsync, type IdentityKey, type Invocation, type Keyring, type Message, type OpenedInvocation, type PendingOpens, type SealedCompleteRequest, type StreamState, type TrustStore } from "streamseal/bot";

// The prepares give this module's `PendingOpens` (with the invocation's steps).
export function prepared(keyring: Keyring, trust: TrustStore, streamId: string, messages: Message[]): PendingOpens {
  return prepareOpenMessages(keyring, trust, streamId, messages);
}

export async function reply(
  invocation: Invocation,
  state: StreamState,
  trust: TrustStore,
  machine: IdentityKey,
): Promise<SealedCompleteRequest> {
  const opened: OpenedInvocation = await openInvocationAsync(invocation, state, trust, "bot_01JD3QB0T0000000000000000B", machine);
  try {
    return await sealReplyAsync(opened, "msg_01JD3QH2A7C4E6G8J0K2M4P6R8", `You said: ${opened.prompt}`);
  } finally {
    opened.free();
  }
}
