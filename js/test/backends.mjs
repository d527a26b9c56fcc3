// The package's opens through each backend, for the tests that run in Node
// and in Chromium alike (no Node API here). `viaBackend(pkg, backend)` is
// the package with `open`, `openMessage`, `openMessages`, `openStep`,
// `openDecisionCard`, `openDecisionAnswer` and `OpenedInvocation.open`
// answered by the async opens on `backend` ("webcrypto": AES-256-GCM in the platform's
// WebCrypto; "wasm": in WebAssembly), so a test written against the
// synchronous calls (awaiting their results) runs unchanged through each.
export const BACKENDS = ["sync", "wasm", "webcrypto"];

export function viaBackend(pkg, backend) {
  if (backend === "sync") return pkg;
  const options = { backend };
  // A copy of the module's exports (a namespace object's own properties
  // cannot be shadowed by assignment in every engine).
  return {
    ...pkg,
    open: (keyring, trust, slot, sealed, own, presented) => pkg.openAsync(keyring, trust, slot, sealed, own, presented, options),
    openMessage: (keyring, trust, streamId, message, own, presented) => pkg.openMessageAsync(keyring, trust, streamId, message, own, presented, options),
    openMessages: (keyring, trust, streamId, messages, own, presented) => pkg.openMessagesAsync(keyring, trust, streamId, messages, own, presented, options),
    openStep: (keyring, trust, placement, sealed, own, presented) => pkg.openStepAsync(keyring, trust, placement, sealed, own, presented, options),
    openDecisionCard: (keyring, trust, streamId, card, own, presented) => pkg.openDecisionCardAsync(keyring, trust, streamId, card, own, presented, options),
    openDecisionAnswer: (keyring, trust, card, event, own, presented) => pkg.openDecisionAnswerAsync(keyring, trust, card, event, own, presented, options),
    // The class itself (instanceof, its other statics), its `open` async.
    OpenedInvocation: new Proxy(pkg.OpenedInvocation, {
      get(target, name, receiver) {
        if (name !== "open") return Reflect.get(target, name, receiver);
        return (invocation, state, trust, botId, identities, presented) =>
          pkg.openInvocationAsync(invocation, state, trust, botId, identities, presented, options);
      },
    }),
  };
}
