// The generated classes declare `[Symbol.dispose]()`: see index.d.ts.
/// <reference lib="esnext.disposable" />
// `streamseal/bot`, and `streamseal` in Node: the front end's entry
// (index.d.ts) with a bot runtime's calls, which its module adds
// (`OpenedInvocation`, a runtime's decision cards and the answers to them).
// Every type comes from the generated declarations; nothing is restated.
export * from "./index.js";
// What only this module has, and `PendingOpens` with the invocation's
// steps with every prepare that returns one: these shadow the front end
// module's declarations.
export {
  OpenedInvocation,
  PendingOpens,
  prepareOpen,
  prepareOpenMessage,
  prepareOpenMessages,
  prepareOpenStep,
  prepareOpenDecisionCard,
  openDecisionAnswer,
  prepareOpenDecisionAnswer,
  prepareOpenInvocation,
  prepareSealDecisionCard,
  sealDecisionCard,
  // The tools' exports (tests and tools, not front ends): not in the
  // browser's first module.
  aadEncode,
  aadParse,
  createBundle,
  openBundle,
  hazmatCreateBundleWithRandomness,
  hazmatPrepareSealWithRandomness,
  hazmatSealWithRandomness,
  hazmatWrapStreamKeyWithRandomness,
  hazmatXeddsaSign,
  hazmatXeddsaSignWithRandomness,
  hazmatXeddsaVerify,
} from "../dist/streamseal_bot.js";
export type { AadContents, AadSender } from "../dist/streamseal_bot.js";
import type {
  CompleteSealedReply,
  CreateDecisionRequest,
  DecisionAnswer,
  DecisionCardContent,
  DecisionOption,
  DecisionResolved,
  IdentityKey,
  Invocation,
  Keyring,
  OpenedInvocation,
  OwnKeys,
  PresentedKey,
  SealedCompleteRequest,
  SealedMessageRequest,
  SealedStepRequest,
  SealedStepStartedRequest,
  StreamState,
  TrustStore,
} from "../dist/streamseal_bot.js";
import type { OpenOptions, SealOptions } from "./index.js";

/**
 * `openDecisionAnswer`, with AES-256-GCM on `options.backend`: the proven
 * answer, or a rejection with the `StreamsealError` `openDecisionAnswer`
 * throws.
 */
export declare function openDecisionAnswerAsync(
  keyring: Keyring,
  trust: TrustStore,
  card: CreateDecisionRequest,
  event: DecisionResolved,
  own?: OwnKeys | null,
  presented?: PresentedKey[] | null,
  options?: OpenOptions,
): Promise<DecisionAnswer>;

/**
 * `OpenedInvocation.open`, with AES-256-GCM of the prompt and the history on
 * `options.backend`: the opened invocation, or a rejection with the
 * `StreamsealError` `OpenedInvocation.open` throws. `state` records what the
 * synchronous call records; persist it afterwards.
 */
export declare function openInvocationAsync(
  invocation: Invocation,
  state: StreamState,
  trust: TrustStore,
  botId: string,
  identities: IdentityKey | IdentityKey[],
  presented?: PresentedKey[] | null,
  options?: OpenOptions,
): Promise<OpenedInvocation>;

/** `sealDecisionCard`, with AES-256-GCM on `options.backend`. */
export declare function sealDecisionCardAsync(
  keyring: Keyring,
  identity: IdentityKey,
  subject: string,
  streamId: string,
  decisionId: string,
  runtimeSessionId: string,
  invocationId: string,
  cardOptions: DecisionOption[],
  allowNote: boolean,
  content: DecisionCardContent,
  options?: SealOptions,
): Promise<CreateDecisionRequest>;

/**
 * `invocation.sealReply`, with AES-256-GCM on `options.backend` (the
 * signature, the seal's count and the key commitment in WebAssembly, under
 * the invocation's keyring): the same body, or a rejection with the
 * `StreamsealError` `sealReply` throws.
 */
export declare function sealReplyAsync(
  invocation: OpenedInvocation,
  messageId: string,
  text: string,
  options?: SealOptions,
): Promise<SealedCompleteRequest>;

/** `invocation.sealCompleteReply`, with AES-256-GCM on `options.backend`. */
export declare function sealCompleteReplyAsync(
  invocation: OpenedInvocation,
  messageId: string,
  text: string,
  options?: SealOptions,
): Promise<CompleteSealedReply>;

/** `invocation.sealMessage` (a follow-up message), with AES-256-GCM on `options.backend`. */
export declare function sealFollowUpAsync(
  invocation: OpenedInvocation,
  messageId: string,
  text: string,
  options?: SealOptions,
): Promise<SealedMessageRequest>;

/**
 * `invocation.sealStepStarted`, with AES-256-GCM on `options.backend`
 * (without a `text` nothing is sealed, as in the synchronous call).
 */
export declare function sealStepStartedAsync(
  invocation: OpenedInvocation,
  stepId: string,
  stepType: string,
  messageId?: string | null,
  text?: string | null,
  options?: SealOptions,
): Promise<SealedStepStartedRequest>;

/** `invocation.sealStep`, with AES-256-GCM on `options.backend`. */
export declare function sealStepAsync(
  invocation: OpenedInvocation,
  stepId: string,
  stepType: string,
  messageId: string | null | undefined,
  text: string,
  durationMs?: number | null,
  options?: SealOptions,
): Promise<SealedStepRequest>;

/** `invocation.sealDecisionCard`, with AES-256-GCM on `options.backend`. */
export declare function sealRuntimeDecisionCardAsync(
  invocation: OpenedInvocation,
  streamId: string,
  decisionId: string,
  cardOptions: DecisionOption[],
  allowNote: boolean,
  content: DecisionCardContent,
  runtimeSessionId: string,
  options?: SealOptions,
): Promise<CreateDecisionRequest>;
