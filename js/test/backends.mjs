// The package's opens through each backend, for the tests that run in Node
// and in Chromium alike (no Node API here). `viaBackend(pkg, backend)` is
// the package with `open`, `openMessage`, `openMessages`, `openStep`,
// `openDecisionCard`, `openDecisionAnswer` and `OpenedInvocation.open`
// answered by the async opens on `backend`, and the seals of the invocations
// it opens (`sealReply`, `sealStep`, ...) by the async seals ("webcrypto": AES-256-GCM in the platform's
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
    // The class itself (instanceof, its other statics), its `open` async,
    // and the invocations it opens sealing through the async seals.
    OpenedInvocation: new Proxy(pkg.OpenedInvocation, {
      get(target, name, receiver) {
        if (name !== "open") return Reflect.get(target, name, receiver);
        return async (invocation, state, trust, botId, identities, presented) =>
          sealingVia(pkg, await pkg.openInvocationAsync(invocation, state, trust, botId, identities, presented, options), options);
      },
    }),
  };
}

// `opened` (an OpenedInvocation) with its seals answered by the async seals
// on `options.backend`. Every other method runs on the object itself (so
// `free()` unregisters the object wasm-bindgen registered), and the package's
// functions take the proxy as the object (`instanceof`, its pointer).
function sealingVia(pkg, opened, options) {
  const seals = {
    sealReply: (messageId, text) => pkg.sealReplyAsync(opened, messageId, text, options),
    sealCompleteReply: (messageId, text) => pkg.sealCompleteReplyAsync(opened, messageId, text, options),
    sealMessage: (messageId, text) => pkg.sealFollowUpAsync(opened, messageId, text, options),
    sealStepStarted: (stepId, stepType, messageId, text) => pkg.sealStepStartedAsync(opened, stepId, stepType, messageId, text, options),
    sealStep: (stepId, stepType, messageId, text, durationMs) => pkg.sealStepAsync(opened, stepId, stepType, messageId, text, durationMs, options),
    sealDecisionCard: (streamId, decisionId, cardOptions, allowNote, content, runtimeSessionId) =>
      pkg.sealRuntimeDecisionCardAsync(opened, streamId, decisionId, cardOptions, allowNote, content, runtimeSessionId, options),
  };
  return new Proxy(opened, {
    get(target, name) {
      if (Object.hasOwn(seals, name)) return seals[name];
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? (...args) => value.apply(target, args) : value;
    },
  });
}
