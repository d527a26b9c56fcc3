//! Acceptance of the sealed flows (issue 4), part 1: the shared sealed
//! scratchpad, end to end, through the public API only.
//!
//! An owner with a passphrase key, a bot runtime on two machines (one key
//! per machine) and a second user share a sealed scratchpad. A fake server
//! turns the request bodies the flows produce into the responses the API
//! would return (`KeyWraps`, `Message` lists, the claimed `Invocation` with
//! its `sealedContext`, `decision:resolved`, `bot:e2e_revoke`), storing
//! nothing but what the bodies carry, so every ciphertext a member opens
//! made the round trip through the wire shapes.
//!
//! Each member keeps a trust store (the keys it pinned) and a persistent
//! state of the root stream (the senders whose wraps it admits, the keys it
//! holds): generations are made with `prepare_roll` / `commit_roll` and
//! admitted only from accepted senders.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use streamseal::ErrorCode;
use streamseal::envelope::SealedPayload;
use streamseal::fingerprint::{fingerprint, safety_number};
use streamseal::identity::{IdentityKey, KeyId, Recipient, RecipientKind};
use streamseal::kdf::{KdfLimits, KdfParams};
use streamseal::sealed::decisions::{
    DecisionAnswer, DecisionCardContent, open_decision_answer, open_decision_card,
    seal_decision_note,
};
use streamseal::sealed::key_wraps::{WrapsReport, open_key_wraps};
use streamseal::sealed::messages::{
    OpenedMessage, check_send_rules, open_message, open_messages, seal_edit, seal_message,
};
use streamseal::sealed::presence::{KeyPolicy, check_key_set, on_revoke, with_machine_key};
use streamseal::sealed::runtime::{
    HistoryEntry, HistoryItem, OpenedInvocation, StepPlacement, open_step,
};
use streamseal::sealed::state::{AdmittedGeneration, StreamState};
use streamseal::sealed::{session, user_key};
use streamseal::sender::{SenderKeys, Signer};
use streamseal::slot::{DecisionOption, Slot, StepPhase};
use streamseal::stream_key::{Keyring, StreamKey};
use streamseal::trust::{TrustLevel, TrustPolicy, TrustStore, TrustedKey};
use streamseal::wire::events::{DecisionResolved, E2eRevoke, Event, SealedSteps};
use streamseal::wire::ids::{DecisionId, MessageId};
use streamseal::wire::invocation::{
    ClaimResponse, Invocation, SealedCompleted, SealedMessagePosted, StepRecorded,
};
use streamseal::wire::keys::{KeyWraps, KeyWrapsStored, OwnKey, OwnerKey};
use streamseal::wire::message::{Message, MessageList, MessageResponse};
use streamseal::wire::presence::{PresenceStatus, RuntimeKind};
use streamseal::wire::requests::Validate;
use streamseal::wire::requests::bot_runtime::PresenceRequest;
use streamseal::wire::requests::decisions::CreateDecisionRequest;
use streamseal::wire::requests::invocation::{
    SealedCompleteRequest, SealedMessageRequest, SealedStepRequest, SealedStepStartedRequest,
    StepType,
};
use streamseal::wire::requests::messages::SendMessageRequest;
use streamseal::wire::requests::streams::PostKeyWrapsRequest;

use crate::support::{mint, sealed_by};

const WS: &str = "ws_01JD3Q00000000000000000000";
const ROOT: &str = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
const THREAD: &str = "stream_01JD3QJ5TH0000000000000T";
const OWNER: &str = "usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q1";
const USER2: &str = "usr_01JD3QS2E3C4N5D6000000000A";
const BOT: &str = "bot_01JD3QB0T0000000000000000B";
const INV: &str = "inv_01JD3QN9E1G3J5M7Q9S1V3X5Z7";
const SESSION: &str = "sess-scratchpad-1";

// ---------------------------------------------------------------------------
// The fake server: stores what the bodies carry, serves it back as the API's
// JSON, parsed into the crate's wire types.
// ---------------------------------------------------------------------------

#[derive(Debug, PartialEq, Eq)]
struct HttpError {
    status: u16,
    code: Option<&'static str>,
}

fn http(status: u16, code: Option<&'static str>) -> HttpError {
    HttpError { status, code }
}

#[derive(Clone, Debug)]
struct StoredStep {
    step_type: StepType,
    message_id: Option<String>,
    started: Option<SealedPayload>,
    completed: Option<SealedPayload>,
}

#[derive(Default)]
struct FakeServer {
    current_generation: u32,
    wraps: Vec<Value>,
    messages: Vec<Value>,
    sequence: u64,
    steps: BTreeMap<(String, String), StoredStep>,
    decisions: BTreeMap<String, Value>,
}

impl FakeServer {
    fn new() -> Self {
        FakeServer::default()
    }

    fn is_sealed(stream_id: &str) -> bool {
        stream_id == ROOT || stream_id == THREAD
    }

    /// `POST streams/{id}/e2e/key-wraps`: current generation only, only
    /// while the generation has no wraps (slots are immutable).
    fn post_key_wraps(
        &mut self,
        stream_id: &str,
        body: &PostKeyWrapsRequest,
    ) -> Result<KeyWrapsStored, HttpError> {
        if stream_id != ROOT {
            return Err(http(400, None));
        }
        body.validate().map_err(|_| http(400, None))?;
        if body.key_generation != self.current_generation {
            return Err(http(409, None));
        }
        let g = body.key_generation;
        if self.wraps.iter().any(|w| w["keyGeneration"] == json!(g)) {
            return Err(http(409, None));
        }
        // The request serialises as the API reads it; store each item with
        // the generation the body names once.
        let wire = serde_json::to_value(body).unwrap();
        for item in wire["wraps"].as_array().unwrap() {
            let mut stored = item.clone();
            stored["keyGeneration"] = json!(g);
            self.wraps.push(stored);
        }
        Ok(serde_json::from_value(json!({ "stored": body.wraps.len() })).unwrap())
    }

    /// `GET streams/{id}/e2e/key-wraps`.
    fn key_wraps(&self, stream_id: &str) -> KeyWraps {
        assert_eq!(stream_id, ROOT, "threads ask for their root's wraps");
        let page = json!({ "data": {
            "currentKeyGeneration": self.current_generation,
            "ownerUserId": OWNER,
            "wraps": self.wraps,
        }});
        serde_json::from_value(page["data"].clone()).unwrap()
    }

    /// Membership changed: the service rolls the stream's current generation
    /// and deletes the wraps only the removed recipient's keys could open.
    fn roll(&mut self, removed_kind: Option<&str>) {
        if let Some(kind) = removed_kind {
            self.wraps.retain(|w| w["recipientKind"] != json!(kind));
        }
        self.current_generation += 1;
    }

    fn store_message(
        &mut self,
        stream_id: &str,
        id: &str,
        author: &str,
        author_type: &str,
        sealed: &SealedPayload,
        client_message_id: Option<&str>,
    ) -> Value {
        self.sequence += 1;
        let mut m = json!({
            "id": id, "streamId": stream_id, "sequence": self.sequence.to_string(),
            "authorId": author, "authorType": author_type, "content": "[sealed]",
            "replyCount": 0, "metadata": {}, "revision": 1,
            "createdAt": format!("2026-11-21T10:{:02}:00Z", self.sequence),
            "sealed": sealed,
        });
        if let Some(c) = client_message_id {
            m["clientMessageId"] = json!(c);
        }
        self.messages.push(m.clone());
        m
    }

    /// `POST streams/{id}/messages`. The body carries the client-minted id
    /// the ciphertext is bound to as `clientMessageId` (issue 16); this
    /// server keeps it as the message's `id` too (`minted` is what the
    /// sender says it minted, checked against the body).
    fn post_message(
        &mut self,
        stream_id: &str,
        minted: &MessageId,
        author: &str,
        body: &SendMessageRequest,
    ) -> Result<MessageResponse, HttpError> {
        let wire = serde_json::to_value(body).unwrap();
        let sealed_stream = Self::is_sealed(stream_id);
        if sealed_stream && wire.get("content").is_some() {
            return Err(http(400, Some("E2E_STREAM_REQUIRES_CIPHERTEXT")));
        }
        if !sealed_stream && wire.get("sealed").is_some() {
            return Err(http(400, Some("E2E_PAYLOAD_REQUIRES_E2E_STREAM")));
        }
        let sealed: SealedPayload =
            serde_json::from_value(wire["sealed"].clone()).map_err(|_| http(400, None))?;
        assert_eq!(wire["clientMessageId"], json!(minted.as_str()));
        let m = self.store_message(
            stream_id,
            minted.as_str(),
            author,
            "user",
            &sealed,
            body.client_message_id.as_deref(),
        );
        Ok(serde_json::from_value(json!({ "data": m, "slots": {} })).unwrap())
    }

    /// A sealed edit (the spec does not show its body): the new ciphertext
    /// replaces the old one and the revision goes up by one.
    fn edit_message(&mut self, id: &str, sealed: &SealedPayload) -> MessageResponse {
        let m = self
            .messages
            .iter_mut()
            .find(|m| m["id"] == json!(id))
            .expect("edited message exists");
        let revision = m["revision"].as_u64().unwrap() + 1;
        m["revision"] = json!(revision);
        m["sealed"] = serde_json::to_value(sealed).unwrap();
        m["editedAt"] = json!("2026-11-21T11:00:00Z");
        serde_json::from_value(json!({ "data": m.clone(), "slots": {} })).unwrap()
    }

    /// `GET streams/{id}/messages`.
    fn list_messages(&self, stream_id: &str) -> MessageList {
        let data: Vec<&Value> = self
            .messages
            .iter()
            .filter(|m| m["streamId"] == json!(stream_id))
            .collect();
        serde_json::from_value(json!({ "data": data, "hasMore": false, "slots": {} })).unwrap()
    }

    fn message_json(&self, id: &str) -> Value {
        self.messages
            .iter()
            .find(|m| m["id"] == json!(id))
            .cloned()
            .expect("message exists")
    }

    /// `POST bot-invocations/claim` for a mention in `trigger_id`: the
    /// `sealedContext` carries the bot's wraps without recipient fields, the
    /// other root-stream messages as history, the trigger's own ciphertext
    /// as prompt, and the reply parameters.
    fn claim(&self, trigger_id: &str) -> Invocation {
        let trigger = self.message_json(trigger_id);
        let wraps: Vec<Value> = self
            .wraps
            .iter()
            .filter(|w| w["recipientKind"] == json!("bot"))
            .map(|w| {
                json!({"keyGeneration": w["keyGeneration"], "wrapEnc": w["wrapEnc"], "wrapCt": w["wrapCt"]})
            })
            .collect();
        let history: Vec<Value> = self
            .messages
            .iter()
            .filter(|m| m["id"] != json!(trigger_id))
            .map(|m| {
                json!({
                    "ciphertext": m["sealed"]["ciphertext"], "envelope": m["sealed"]["envelope"],
                    "role": if m["authorType"] == json!("bot") { "assistant" } else { "user" },
                    "sequence": m["sequence"],
                })
            })
            .collect();
        let claim = json!({ "data": {
            "id": INV, "workspaceId": WS, "rootStreamId": ROOT,
            "activeStreamId": trigger["streamId"], "sourceMessageId": trigger_id,
            "responseStreamId": ROOT,
            "actor": {"type": "bot", "id": BOT, "slug": "helper"},
            "trigger": "mention", "requiredCapability": "mentionable",
            "sourceRevision": trigger["revision"], "authorUserId": trigger["authorId"],
            "mentionedActorSlugs": ["helper"], "claimToken": "clm_s3cr3t",
            "claimExpiresAt": "2026-11-21T12:01:00Z", "runtimeSessionId": SESSION,
            "metadata": {},
            "sealedContext": {
                "callbackToken": "cbt_s3cr3t",
                "wraps": wraps,
                "history": history,
                "prompt": trigger["sealed"],
                "reply": {"keyGeneration": self.current_generation, "senderId": BOT},
                "trigger": {
                    "messageId": trigger_id, "authorName": "Second User",
                    "authorType": "user", "createdAt": trigger["createdAt"],
                },
            },
        }});
        let parsed: ClaimResponse = serde_json::from_value(claim).unwrap();
        parsed.data.expect("an invocation was pending")
    }

    fn record_step(
        &mut self,
        invocation_id: &str,
        step_id: &str,
        step_type: &StepType,
        message_id: Option<&str>,
        payload: Option<SealedPayload>,
        phase: StepPhase,
    ) -> StepRecorded {
        let entry = self
            .steps
            .entry((invocation_id.to_owned(), step_id.to_owned()))
            .or_insert_with(|| StoredStep {
                step_type: step_type.clone(),
                message_id: message_id.map(str::to_owned),
                started: None,
                completed: None,
            });
        match phase {
            StepPhase::Started => entry.started = payload,
            StepPhase::Completed => entry.completed = payload,
        }
        serde_json::from_value(json!({
            "invocationId": invocation_id, "sessionId": "agent-session-1", "stepId": step_id,
        }))
        .unwrap()
    }

    /// `POST bot-invocations/{id}/sealed-steps/started`.
    fn sealed_step_started(
        &mut self,
        invocation_id: &str,
        body: &SealedStepStartedRequest,
    ) -> StepRecorded {
        let wire = serde_json::to_value(body).unwrap();
        let payload = match (wire.get("ciphertext"), wire.get("envelope")) {
            (Some(c), Some(e)) => {
                Some(serde_json::from_value(json!({"ciphertext": c, "envelope": e})).unwrap())
            }
            _ => None,
        };
        self.record_step(
            invocation_id,
            &body.step_id,
            &body.step_type,
            body.message_id.as_deref(),
            payload,
            StepPhase::Started,
        )
    }

    /// `POST bot-invocations/{id}/sealed-steps` (also the socket frames).
    fn sealed_step(&mut self, invocation_id: &str, body: &SealedStepRequest) -> StepRecorded {
        let wire = serde_json::to_value(body).unwrap();
        let payload: SealedPayload = serde_json::from_value(
            json!({"ciphertext": wire["ciphertext"], "envelope": wire["envelope"]}),
        )
        .unwrap();
        self.record_step(
            invocation_id,
            &body.step_id,
            &body.step_type,
            body.message_id.as_deref(),
            Some(payload),
            StepPhase::Completed,
        )
    }

    /// `bot:invocation:sealed-steps` over the socket.
    fn sealed_steps_frames(&mut self, frames: &SealedSteps) {
        let wire = Event::SealedSteps(frames.clone()).payload();
        let parsed = match Event::from_parts("bot:invocation:sealed-steps", wire).unwrap() {
            Event::SealedSteps(s) => s,
            other => panic!("unexpected event {other:?}"),
        };
        for frame in parsed.steps {
            let payload = SealedPayload {
                ciphertext: frame.ciphertext.unwrap(),
                envelope: frame.envelope.unwrap(),
                extra: Default::default(),
            };
            self.record_step(
                &parsed.invocation_id,
                &frame.step_id,
                &frame.step_type,
                frame.message_id.as_deref(),
                Some(payload),
                StepPhase::Completed,
            );
        }
    }

    /// `POST bot-invocations/{id}/sealed-complete`: the reply is stored as a
    /// bot message in the response stream, authored by `reply.senderId`.
    fn sealed_complete(&mut self, body: &SealedCompleteRequest) -> SealedCompleted {
        let wire = serde_json::to_value(body).unwrap();
        let reply = &wire["reply"];
        let sealed: SealedPayload = serde_json::from_value(
            json!({"ciphertext": reply["ciphertext"], "envelope": reply["envelope"]}),
        )
        .unwrap();
        let id = reply["messageId"].as_str().unwrap().to_owned();
        self.store_message(ROOT, &id, BOT, "bot", &sealed, None);
        serde_json::from_value(
            json!({"invocationId": INV, "sessionId": "agent-session-1", "messageId": id}),
        )
        .unwrap()
    }

    /// `POST bot-invocations/{id}/sealed-messages`.
    fn sealed_message(&mut self, body: &SealedMessageRequest) -> SealedMessagePosted {
        let wire = serde_json::to_value(body).unwrap();
        let sealed: SealedPayload = serde_json::from_value(
            json!({"ciphertext": wire["ciphertext"], "envelope": wire["envelope"]}),
        )
        .unwrap();
        self.store_message(ROOT, &body.message_id, BOT, "bot", &sealed, None);
        serde_json::from_value(json!({"messageId": body.message_id})).unwrap()
    }

    /// `POST streams/{id}/decisions`; viewers are served the card as posted.
    fn create_decision(&mut self, stream_id: &str, body: &CreateDecisionRequest) {
        body.validate().unwrap();
        let mut stored = serde_json::to_value(body).unwrap();
        stored["streamId"] = json!(stream_id);
        self.decisions.insert(body.decision_id.clone(), stored);
    }

    fn decision_card(&self, decision_id: &str) -> (String, CreateDecisionRequest) {
        let stored = self.decisions[decision_id].clone();
        let stream = stored["streamId"].as_str().unwrap().to_owned();
        (stream, serde_json::from_value(stored).unwrap())
    }

    /// The decider answers; every runtime and viewer receives `decision:resolved`.
    fn resolve(
        &self,
        decision_id: &str,
        option_id: &str,
        decided_by: &str,
        note: Option<&SealedPayload>,
    ) -> DecisionResolved {
        let mut payload =
            json!({"decisionId": decision_id, "optionId": option_id, "decidedBy": decided_by});
        if let Some(n) = note {
            payload["noteCiphertext"] = json!(n.ciphertext);
            payload["noteEnvelope"] = serde_json::to_value(&n.envelope).unwrap();
        }
        match Event::from_parts("decision:resolved", payload).unwrap() {
            Event::DecisionResolved(d) => d,
            other => panic!("unexpected event {other:?}"),
        }
    }

    fn revoke_event(&self) -> E2eRevoke {
        let payload = json!({"workspaceId": WS, "botId": BOT, "streamId": ROOT});
        match Event::from_parts("bot:e2e_revoke", payload).unwrap() {
            Event::E2eRevoke(e) => e,
            other => panic!("unexpected event {other:?}"),
        }
    }
}

// ---------------------------------------------------------------------------
// The participants.
// ---------------------------------------------------------------------------

/// One device of a member: who it is, its key(s) (the first signs what it
/// seals), the keys it pinned, and what it remembers of the root stream.
#[derive(Clone)]
struct Member {
    subject: &'static str,
    keys: Vec<IdentityKey>,
    trust: TrustStore,
    state: StreamState,
}

impl Member {
    fn new(subject: &'static str, keys: &[IdentityKey]) -> Self {
        Member {
            subject,
            keys: keys.to_vec(),
            trust: TrustStore::new(TrustPolicy::TofuWithAlerts),
            state: StreamState::new(ROOT).unwrap(),
        }
    }

    /// Pins `key` as `subject`'s (as the member list or presence serves it),
    /// to check that member's signatures; not a key sender.
    fn pin(&mut self, subject: &str, key: &IdentityKey) {
        self.trust.observe(subject, &Recipient::of(key)).unwrap();
    }

    /// The member's first key, signing as its subject.
    fn signer(&self) -> Signer<'_> {
        Signer::new(self.subject, &self.keys[0]).unwrap()
    }

    /// The keys this member checks signatures against: its pins, and its own keys.
    fn senders(&self) -> SenderKeys<'_> {
        self.keys
            .iter()
            .fold(SenderKeys::new(&self.trust), |k, key| {
                k.with_own(self.subject, key)
            })
    }

    /// Pins `key` as `subject`'s (as presence or `owner-e2e-key` serves it)
    /// and accepts it as a distributor of the root's keys.
    fn accept(&mut self, subject: &str, key: &Recipient) -> TrustedKey {
        let trusted = self.trust.admit(subject, key).unwrap();
        self.state.accept_sender(&trusted).unwrap();
        trusted
    }

    /// `GET streams/{root}/e2e/key-wraps`, admitted into the state.
    fn open_wraps(&mut self, server: &FakeServer) -> WrapsReport {
        open_key_wraps(
            &mut self.state,
            &self.trust,
            &server.key_wraps(ROOT),
            &self.keys,
        )
        .unwrap()
    }

    fn ring(&self) -> &Keyring {
        self.state.keyring()
    }

    /// Persists the state and the trust store and restores both, as an app
    /// restarting would.
    fn restart(&mut self) {
        let me = &self.keys[0];
        self.state = StreamState::from_bytes(&self.state.to_bytes(me).unwrap(), me).unwrap();
        self.trust = TrustStore::from_bytes(&self.trust.to_bytes(me).unwrap(), me).unwrap();
    }
}

fn admitted(generation: u32, sender: &str, key: &IdentityKey) -> AdmittedGeneration {
    AdmittedGeneration {
        key_generation: generation,
        sender: sender.to_owned(),
        sender_key_id: key.key_id().clone(),
        level: TrustLevel::Unverified,
    }
}

fn entry(item: &HistoryItem) -> &HistoryEntry {
    match item {
        HistoryItem::Opened { entry } => entry,
        HistoryItem::Failed { code, .. } => panic!("history item failed: {code}"),
    }
}

/// Opens every message of `stream_id` as `ring` and `senders` see it, by id.
fn read_all(
    server: &FakeServer,
    stream_id: &str,
    ring: &Keyring,
    senders: &SenderKeys<'_>,
) -> BTreeMap<String, OpenedMessage> {
    let list = server.list_messages(stream_id);
    open_messages(ring, senders, stream_id, &list.data)
        .into_iter()
        .map(|r| {
            let m = r.unwrap();
            (m.message_id.clone(), m)
        })
        .collect()
}

/// A user with a passphrase-protected key, set up and stored, then unlocked
/// from the `GET me/e2e-key` record as the app would on a new device.
fn user_with_passphrase(key_id: &str, passphrase: &str) -> (IdentityKey, OwnKey) {
    // The cheapest parameters a new bundle may have (OWASP's minimum).
    let params = KdfParams::creation_floor();
    let (created, record) =
        user_key::set_up(KeyId::new(key_id).unwrap(), passphrase, &params).unwrap();
    let stored = serde_json::to_value(record.into_own_key("2026-11-21T09:00:00Z")).unwrap();
    let fetched: OwnKey =
        serde_json::from_value(json!({ "data": stored })["data"].clone()).unwrap();
    let limits = KdfLimits::default();
    assert_eq!(
        user_key::unlock(&fetched, "not the passphrase", &limits)
            .unwrap_err()
            .code(),
        ErrorCode::WrongPassphrase
    );
    let unlocked = user_key::unlock(&fetched, passphrase, &limits).unwrap();
    assert_eq!(unlocked.public_key(), created.public_key());
    assert_eq!(unlocked.key_id().as_str(), key_id);
    assert_eq!(unlocked.kind(), &RecipientKind::User);
    (unlocked, fetched)
}

fn options() -> Vec<DecisionOption> {
    vec![
        DecisionOption {
            id: "ship".into(),
            tone: "primary".into(),
        },
        DecisionOption {
            id: "wait".into(),
            tone: "neutral".into(),
        },
    ]
}

#[test]
#[allow(clippy::too_many_lines)]
fn shared_sealed_scratchpad_end_to_end() {
    let mut server = FakeServer::new();

    // --- Keys -------------------------------------------------------------
    let (owner, owner_record) = user_with_passphrase("owner-laptop", "correct horse battery");
    let (user2, _) = user_with_passphrase("u2-phone", "staple grapes");
    // `GET bot-runtime/owner-e2e-key`, as the runtime sees it.
    let owner_key: OwnerKey = serde_json::from_value(
        json!({"keyId": owner_record.key_id, "publicKey": owner_record.public_key}),
    )
    .unwrap();
    let machine_a =
        IdentityKey::generate(RecipientKind::Bot, KeyId::new("machine-a").unwrap()).unwrap();
    let machine_b =
        IdentityKey::generate(RecipientKind::Bot, KeyId::new("machine-b").unwrap()).unwrap();
    // Per-machine policy: each machine registers its own key in presence.
    check_key_set(&[machine_a.clone(), machine_b.clone()]).unwrap();
    for (instance, key) in [("machine-a", &machine_a), ("machine-b", &machine_b)] {
        let presence = with_machine_key(
            PresenceRequest::new(
                RuntimeKind::AlphaLocal,
                instance,
                PresenceStatus::Available,
                true,
            ),
            key,
        )
        .unwrap();
        assert_eq!(
            presence.public_key.as_deref(),
            Some(key.public_key().to_base64().as_str())
        );
        assert_eq!(presence.public_key_id.as_deref(), Some(instance));
    }

    // Who accepts whose wraps: machine A makes generation 0, the owner rolls
    // later. Every member pins both keys as the server serves them (presence,
    // `owner-e2e-key`) and accepts them as the root's key senders.
    let mut rt_a = Member::new(BOT, std::slice::from_ref(&machine_a));
    let mut rt_b = Member::new(BOT, std::slice::from_ref(&machine_b));
    let mut o = Member::new(OWNER, std::slice::from_ref(&owner));
    let mut u2 = Member::new(USER2, std::slice::from_ref(&user2));
    let owner_trusted = session::owner_key(&mut rt_a.trust, OWNER, &owner_key).unwrap();
    rt_a.state.set_owner(OWNER).unwrap();
    rt_a.state.accept_sender(&owner_trusted).unwrap();
    let owner_recipient = session::owner_recipient(&owner_key).unwrap();
    assert_eq!(owner_recipient, Recipient::of(&owner));
    rt_b.accept(OWNER, &owner_recipient);
    rt_b.state.set_owner(OWNER).unwrap();
    for m in [&mut rt_b, &mut o, &mut u2] {
        m.accept(BOT, &Recipient::of(&machine_a));
    }
    u2.accept(OWNER, &owner_recipient);
    // Every member also pins the other members' keys as the member list and
    // presence serve them, to check who signed what it opens (the runtime's
    // machine A pins machine B and the second user when it wraps to them).
    for m in [&mut o, &mut rt_b] {
        m.pin(USER2, &user2);
    }
    for m in [&mut o, &mut u2] {
        m.pin(BOT, &machine_b);
    }

    // --- Generation 0: made by the runtime when it creates the session -----
    let recipients = [
        owner_trusted.clone(),
        TrustedKey::own(BOT, &machine_a),
        rt_a.trust.admit(BOT, &Recipient::of(&machine_b)).unwrap(),
        rt_a.trust.admit(USER2, &Recipient::of(&user2)).unwrap(),
    ];
    let gen0 = rt_a.state.prepare_roll(&machine_a, &recipients).unwrap();
    assert_eq!(gen0.key_generation(), 0);
    assert_eq!(gen0.request().key_generation, 0);
    assert_eq!(gen0.wraps().len(), 4);
    // The roster says who can read from generation 0 on.
    let roster: Vec<(&str, &str)> = gen0
        .roster()
        .iter()
        .map(|r| (r.subject.as_str(), r.key_id.as_str()))
        .collect();
    assert_eq!(
        roster,
        vec![
            (OWNER, "owner-laptop"),
            (BOT, "machine-a"),
            (BOT, "machine-b"),
            (USER2, "u2-phone")
        ]
    );
    assert_eq!(
        gen0.roster()[3].fingerprint,
        fingerprint(USER2, &user2.public_key()).unwrap().display()
    );
    assert!(gen0.roster()[1].verified, "the runtime's own key");
    assert!(!gen0.roster()[0].verified, "the owner's key is only pinned");
    // Nothing is in force before the POST succeeded.
    assert_eq!(rt_a.state.high_water(), None);
    // A retried session setup (the first POST's response was lost) makes
    // another generation 0; the 409 says an earlier attempt landed, so the
    // runtime discards the new key and opens the stored wraps instead: it
    // reads what the first key sealed, and the first roll is stale now.
    let stored = server.post_key_wraps(ROOT, gen0.request()).unwrap();
    assert_eq!(stored.stored, 4);
    let retry = rt_a.state.prepare_roll(&machine_a, &recipients).unwrap();
    assert_eq!(retry.key_generation(), 0);
    assert_eq!(
        server.post_key_wraps(ROOT, retry.request()).unwrap_err(),
        http(409, None)
    );
    drop(retry);
    let report = rt_a.open_wraps(&server);
    assert_eq!(
        report.admitted,
        vec![AdmittedGeneration {
            level: TrustLevel::Verified,
            ..admitted(0, "self", &machine_a)
        }]
    );
    assert_eq!(
        rt_a.state.commit_roll(gen0).unwrap_err().code(),
        ErrorCode::StaleRoll
    );
    assert_eq!(rt_a.ring().current_generation(), Some(0));
    assert!(rt_a.state.is_sealed());

    // --- Everyone opens its keyring from `GET key-wraps` ---------------------
    for m in [&mut o, &mut u2, &mut rt_b] {
        let report = m.open_wraps(&server);
        assert_eq!(report.admitted, vec![admitted(0, BOT, &machine_a)]);
        assert!(report.skipped.is_empty(), "{:?}", report.skipped);
        assert!(report.conflicts.is_empty());
    }
    assert_eq!(o.state.owner_user_id(), Some(OWNER));
    for m in [&rt_a, &rt_b, &o, &u2] {
        assert_eq!(m.ring().generations(), vec![0]);
        assert_eq!(m.ring().current_generation(), Some(0));
        assert_eq!(m.ring().root_stream_id(), ROOT);
        assert!(m.state.is_sealed());
    }
    // A process holding both machine keys opens both wraps into one key.
    let mut both = Member::new(BOT, &[machine_a.clone(), machine_b.clone()]);
    let report = both.open_wraps(&server);
    assert_eq!(both.ring().generations(), vec![0]);
    assert_eq!(report.admitted.len(), 2);
    assert!(report.skipped.is_empty());
    assert!(report.conflicts.is_empty());
    // The second user restarts: its state comes back from what it persisted.
    u2.restart();
    assert_eq!(u2.ring().generations(), vec![0]);
    assert!(u2.state.is_sealed());

    // --- Messages from the owner and the second user ------------------------
    let id1 = mint(1);
    let body1 = seal_message(
        o.ring(),
        &o.signer(),
        ROOT,
        &id1,
        "Release freeze starts Wednesday.",
    )
    .unwrap();
    check_send_rules(o.state.is_sealed(), Some(true), &body1).unwrap();
    assert!(body1.content.is_none(), "no plaintext leaves the client");
    // The minted id the ciphertext is bound to travels as `clientMessageId`.
    assert_eq!(body1.client_message_id.as_deref(), Some(id1.as_str()));
    let sent1 = server.post_message(ROOT, &id1, OWNER, &body1).unwrap();
    assert_eq!(sent1.data.client_message_id.as_deref(), Some(id1.as_str()));
    let mine = open_message(o.ring(), &o.senders(), ROOT, &sent1.data).unwrap();
    assert_eq!(mine.text, "Release freeze starts Wednesday.");
    assert_eq!(mine.author_type, "user");
    assert_eq!(mine.stream_id, ROOT);
    assert_eq!(
        mine.sealed_by,
        sealed_by(OWNER, &owner, TrustLevel::Verified)
    );

    let id2 = mint(2);
    let body2 = seal_message(
        u2.ring(),
        &u2.signer(),
        ROOT,
        &id2,
        "@helper what is left before the freeze?",
    )
    .unwrap();
    check_send_rules(u2.state.is_sealed(), Some(true), &body2).unwrap();
    server.post_message(ROOT, &id2, USER2, &body2).unwrap();

    // A message in a thread of the root: sealed with the root's keyring,
    // bound to the thread's own stream id.
    let id_t = mint(3);
    let body_t = seal_message(
        u2.ring(),
        &u2.signer(),
        THREAD,
        &id_t,
        "(thread) the docs are done",
    )
    .unwrap();
    server.post_message(THREAD, &id_t, USER2, &body_t).unwrap();

    // A sealed body to the plain stream and plaintext to the sealed stream
    // are refused by the client before the server would refuse them; a
    // server that presents the sealed stream without `e2eEnabled` does not
    // make the client send in the clear either.
    let plain = SendMessageRequest {
        content: Some("in the clear".into()),
        ..SendMessageRequest::default()
    };
    assert_eq!(
        check_send_rules(o.state.is_sealed(), Some(true), &plain)
            .unwrap_err()
            .code(),
        ErrorCode::E2eStreamRequiresCiphertext
    );
    assert_eq!(
        check_send_rules(o.state.is_sealed(), None, &plain)
            .unwrap_err()
            .code(),
        ErrorCode::SealedStreamDowngrade
    );
    assert_eq!(
        server
            .post_message(ROOT, &mint(90), OWNER, &plain)
            .unwrap_err(),
        http(400, Some("E2E_STREAM_REQUIRES_CIPHERTEXT"))
    );

    for m in [&o, &u2, &rt_a, &rt_b] {
        let read = read_all(&server, ROOT, m.ring(), &m.senders());
        assert_eq!(read.len(), 2);
        assert_eq!(read[id1.as_str()].text, "Release freeze starts Wednesday.");
        assert_eq!(read[id1.as_str()].author_id, OWNER);
        assert_eq!(read[id1.as_str()].revision, 1);
        assert_eq!(read[id1.as_str()].invocation_id, None);
        assert_eq!(read[id1.as_str()].sealed_by.subject, OWNER);
        assert_eq!(
            read[id2.as_str()].text,
            "@helper what is left before the freeze?"
        );
        assert_eq!(read[id2.as_str()].author_id, USER2);
        // Signed by the second user's key: verified for its own device,
        // pinned on first use (unverified) for everyone else.
        let status = if m.subject == USER2 {
            TrustLevel::Verified
        } else {
            TrustLevel::Unverified
        };
        assert_eq!(
            read[id2.as_str()].sealed_by,
            sealed_by(USER2, &user2, status)
        );
        let thread = read_all(&server, THREAD, m.ring(), &m.senders());
        assert_eq!(thread[id_t.as_str()].text, "(thread) the docs are done");
        assert_eq!(thread[id_t.as_str()].stream_id, THREAD);
    }

    // --- An edit (revision 2) opens for everyone -----------------------------
    let m1 = server.list_messages(ROOT).data[0].clone();
    assert_eq!(m1.id, id1.as_str());
    let edit = seal_edit(o.ring(), &o.signer(), &m1, "Release freeze starts Tuesday.").unwrap();
    let edited = server.edit_message(id1.as_str(), &edit);
    assert_eq!(edited.data.revision, 2);
    for m in [&o, &u2, &rt_a, &rt_b] {
        let read = read_all(&server, ROOT, m.ring(), &m.senders());
        assert_eq!(read[id1.as_str()].text, "Release freeze starts Tuesday.");
        assert_eq!(read[id1.as_str()].revision, 2);
    }

    // --- Machine B claims and opens the invocation -----------------------------
    // The runtime acts on its owner's prompts only: the second user's
    // mention is refused, and nothing is recorded as acted on.
    let by_user2 = server.claim(id2.as_str());
    assert_eq!(
        OpenedInvocation::open(
            &by_user2,
            &mut rt_b.state,
            &SenderKeys::new(&rt_b.trust),
            BOT,
            std::slice::from_ref(&machine_b)
        )
        .unwrap_err()
        .code(),
        ErrorCode::UnexpectedAuthor
    );
    assert!(!rt_b.state.was_acted_on(id2.as_str(), 1));
    // The owner asks the same.
    let id3 = mint(4);
    let body3 = seal_message(
        o.ring(),
        &o.signer(),
        ROOT,
        &id3,
        "@helper answer them please",
    )
    .unwrap();
    server.post_message(ROOT, &id3, OWNER, &body3).unwrap();
    let invocation = server.claim(id3.as_str());
    assert!(invocation.prompt_markdown.is_none());
    let opened = OpenedInvocation::open(
        &invocation,
        &mut rt_b.state,
        &SenderKeys::new(&rt_b.trust),
        BOT,
        std::slice::from_ref(&machine_b),
    )
    .unwrap();
    assert!(rt_b.state.was_acted_on(id3.as_str(), 1));
    // The prompt is signed by the owner's key, which the runtime pinned.
    assert_eq!(
        opened.prompt_sealed_by,
        sealed_by(OWNER, &owner, TrustLevel::Unverified)
    );
    assert_eq!(opened.invocation_id(), INV);
    assert_eq!(opened.callback_token().expose(), "cbt_s3cr3t");
    assert_eq!(opened.prompt, "@helper answer them please");
    assert_eq!(opened.keyring().generations(), vec![0]);
    assert_eq!(opened.keyring().root_stream_id(), ROOT);
    assert_eq!(opened.wraps().admitted, vec![admitted(0, BOT, &machine_a)]);
    let history: Vec<(&str, &str, &str, &str)> = opened
        .history
        .iter()
        .map(|h| {
            let h = entry(h);
            (
                h.slot.stream_id().unwrap(),
                h.slot.message_id().unwrap(),
                h.slot.author_id().unwrap(),
                h.text.as_str(),
            )
        })
        .collect();
    assert_eq!(
        history,
        vec![
            (ROOT, id1.as_str(), OWNER, "Release freeze starts Tuesday."),
            (
                ROOT,
                id2.as_str(),
                USER2,
                "@helper what is left before the freeze?"
            ),
            (THREAD, id_t.as_str(), USER2, "(thread) the docs are done"),
        ]
    );
    let signers: Vec<(&str, &str, u32)> = opened
        .history
        .iter()
        .map(|h| {
            let h = entry(h);
            (
                h.sealed_by.subject.as_str(),
                h.sealed_by.status.as_str(),
                h.key_generation,
            )
        })
        .collect();
    assert_eq!(
        signers,
        vec![
            (OWNER, "unverified", 0),
            (USER2, "unverified", 0),
            (USER2, "unverified", 0),
        ]
    );
    let first = entry(&opened.history[0]);
    assert!(matches!(first.slot, Slot::Message { revision: 2, .. }));
    assert_eq!(first.sequence, "1");
    assert_eq!(first.role, "user");
    // The same claim delivered again is the same invocation: fine. The same
    // prompt under another invocation id is a replay.
    let mut again = rt_b.clone();
    OpenedInvocation::open(
        &invocation,
        &mut again.state,
        &SenderKeys::new(&again.trust),
        BOT,
        std::slice::from_ref(&machine_b),
    )
    .unwrap();
    let mut replayed = invocation.clone();
    replayed.id = "inv_01JD3QZZZZZZZZZZZZZZZZZZZZ".into();
    assert_eq!(
        OpenedInvocation::open(
            &replayed,
            &mut again.state,
            &SenderKeys::new(&again.trust),
            BOT,
            std::slice::from_ref(&machine_b)
        )
        .unwrap_err()
        .code(),
        ErrorCode::PromptReplayed
    );

    // --- The runtime's steps, reply and follow-up --------------------------------
    let started = opened
        .seal_step_started(
            "step-1",
            &StepType::Thinking,
            None,
            Some("reading the thread"),
        )
        .unwrap();
    server.sealed_step_started(INV, &started);
    let done = opened
        .seal_step(
            "step-1",
            &StepType::Thinking,
            None,
            "two items are left",
            Some(1200),
        )
        .unwrap();
    let recorded = server.sealed_step(INV, &done);
    assert_eq!(recorded.step_id, "step-1");
    // A high-volume step over the socket, naming the message it refers to.
    let tool = opened
        .seal_step(
            "step-2",
            &StepType::ToolCall,
            Some(id3.as_str()),
            "search: open issues",
            None,
        )
        .unwrap();
    let frames = opened.step_frames(std::slice::from_ref(&tool));
    assert_eq!(frames.invocation_id, INV);
    assert_eq!(frames.callback_token.expose(), "cbt_s3cr3t");
    server.sealed_steps_frames(&frames);
    // An in-flight step with no content yet.
    let bare = opened
        .seal_step_started("step-3", &StepType::WebSearch, None, None)
        .unwrap();
    assert!(bare.ciphertext.is_none() && bare.envelope.is_none());
    server.sealed_step_started(INV, &bare);

    let reply_id = mint(10);
    let complete = opened
        .seal_reply(&reply_id, "Two items: the changelog and the tag.")
        .unwrap();
    assert_eq!(complete.source_revision, Some(1));
    let completed = server.sealed_complete(&complete);
    assert_eq!(completed.message_id.as_deref(), Some(reply_id.as_str()));
    let follow_id = mint(11);
    let follow = opened.seal_message(&follow_id, "Tag pushed.").unwrap();
    assert_eq!(
        server.sealed_message(&follow).message_id,
        follow_id.as_str()
    );
    // What the opened invocation seals counts in the runtime's state.
    assert_eq!(rt_b.ring().seal_count(0), 5);

    for m in [&o, &u2, &rt_a] {
        let ring = m.ring();
        let senders = m.senders();
        // Machine B signed: its key is pinned by the owner and the second
        // user, and one of its own bot's (pinned) keys for machine A.
        let by_b = sealed_by(BOT, &machine_b, TrustLevel::Unverified);
        for ((inv, step_id), step) in &server.steps {
            assert_eq!(inv, INV);
            let expected = match step_id.as_str() {
                "step-1" => (Some("reading the thread"), Some("two items are left")),
                "step-2" => (None, Some("search: open issues")),
                "step-3" => (None, None),
                other => panic!("unexpected step {other}"),
            };
            let read = |phase, payload: &Option<SealedPayload>| {
                payload.as_ref().map(|p| {
                    let placement = StepPlacement {
                        invocation_id: inv,
                        bot_id: BOT,
                        step_id,
                        step_type: &step.step_type,
                        phase,
                        message_id: step.message_id.as_deref(),
                    };
                    let opened = open_step(ring, &senders, placement, p).unwrap();
                    assert_eq!(opened.sealed_by, by_b);
                    opened.text
                })
            };
            assert_eq!(
                read(StepPhase::Started, &step.started).as_deref(),
                expected.0
            );
            assert_eq!(
                read(StepPhase::Completed, &step.completed).as_deref(),
                expected.1
            );
        }
        let read = read_all(&server, ROOT, ring, &senders);
        let reply = &read[reply_id.as_str()];
        assert_eq!(reply.text, "Two items: the changelog and the tag.");
        assert_eq!(reply.author_id, BOT);
        assert_eq!(reply.author_type, "bot");
        assert_eq!(reply.sealed_by, by_b);
        assert_eq!(reply.invocation_id.as_deref(), Some(INV));
        let follow_up = &read[follow_id.as_str()];
        assert_eq!(follow_up.text, "Tag pushed.");
        assert_eq!(follow_up.invocation_id.as_deref(), Some(INV));
    }
    // The reply's list item names the sender of `reply.senderId`.
    let reply_msg = server
        .list_messages(ROOT)
        .data
        .into_iter()
        .find(|m| m.id == reply_id.as_str())
        .unwrap();
    assert_eq!(reply_msg.author_id, BOT);
    assert_eq!(
        reply_msg.sealed.as_ref().unwrap().envelope.key_generation,
        0
    );

    // --- A decision card and the second user's note ------------------------------
    let decision = DecisionId::mint(1_763_700_000_100).unwrap();
    let content = DecisionCardContent {
        title: "Ship the release?".into(),
        body: "All checks are **green**.".into(),
        labels: BTreeMap::from([
            ("ship".to_owned(), "Ship now".to_owned()),
            ("wait".to_owned(), "Wait for Monday".to_owned()),
        ]),
    };
    let card = opened
        .seal_decision_card(ROOT, &decision, options(), true, &content, SESSION)
        .unwrap();
    assert_eq!(card.invocation_id, INV);
    assert_eq!(card.runtime_session_id, SESSION);
    server.create_decision(ROOT, &card);
    let (card_stream, served_card) = server.decision_card(decision.as_str());
    for m in [&o, &u2, &rt_a] {
        let read = open_decision_card(m.ring(), &m.senders(), &card_stream, &served_card).unwrap();
        assert_eq!(read.content, content);
        assert_eq!(
            read.sealed_by,
            sealed_by(BOT, &machine_b, TrustLevel::Unverified)
        );
    }
    let note = seal_decision_note(
        u2.ring(),
        &u2.signer(),
        decision.as_str(),
        "ship",
        "Go, I am on call tonight.",
    )
    .unwrap();
    let resolved = server.resolve(decision.as_str(), "ship", USER2, Some(&note));
    for (m, ring) in [
        (&o, o.ring()),
        (&u2, u2.ring()),
        (&rt_a, rt_a.ring()),
        (&rt_b, rt_b.ring()),
        (&rt_b, opened.keyring()),
    ] {
        let status = if m.subject == USER2 {
            TrustLevel::Verified
        } else {
            TrustLevel::Unverified
        };
        assert_eq!(
            open_decision_answer(ring, &m.senders(), &card, &resolved).unwrap(),
            DecisionAnswer {
                decision_id: decision.as_str().to_owned(),
                option_id: "ship".into(),
                decided_by: USER2.into(),
                note: "Go, I am on call tonight.".into(),
                sealed_by: sealed_by(USER2, &user2, status),
            }
        );
    }
    // An answer without its sealed note proves nothing: the server could
    // have written it. A decider with nothing to say seals an empty note.
    let without_note = server.resolve(decision.as_str(), "wait", OWNER, None);
    assert_eq!(
        open_decision_answer(o.ring(), &o.senders(), &card, &without_note)
            .unwrap_err()
            .code(),
        ErrorCode::UnprovenDecisionAnswer
    );
    let empty = seal_decision_note(o.ring(), &o.signer(), decision.as_str(), "wait", "").unwrap();
    let with_empty = server.resolve(decision.as_str(), "wait", OWNER, Some(&empty));
    let answer =
        open_decision_answer(opened.keyring(), &rt_b.senders(), &card, &with_empty).unwrap();
    assert_eq!(
        (answer.option_id.as_str(), answer.note.as_str()),
        ("wait", "")
    );
    assert_eq!(answer.sealed_by.subject, OWNER);

    // --- The bot is removed ----------------------------------------------------------
    // The runtime's machines keep keyrings by root stream.
    // What a removed member could keep: its keys copied out (an honest
    // runtime's in-process copies are dropped with its state, below).
    let a_ring = {
        let mut copy = Keyring::new(ROOT).unwrap();
        for g in rt_a.ring().generations() {
            let bytes = rt_a.ring().key(g).unwrap().to_bytes();
            copy.insert(g, StreamKey::from_bytes(&bytes)).unwrap();
        }
        copy
    };
    let b_kept = {
        let mut copy = Keyring::new(ROOT).unwrap();
        for g in opened.keyring().generations() {
            let bytes = opened.keyring().key(g).unwrap().to_bytes();
            copy.insert(g, StreamKey::from_bytes(&bytes)).unwrap();
        }
        copy
    };
    let mut machine_rings: Vec<BTreeMap<String, Keyring>> = vec![
        BTreeMap::from([(ROOT.to_owned(), a_ring.clone())]),
        BTreeMap::from([(ROOT.to_owned(), opened.keyring().clone())]),
    ];
    server.roll(Some("bot"));
    let revoke = server.revoke_event();
    for rings in &mut machine_rings {
        let outcome = on_revoke(rings, &revoke, KeyPolicy::PerMachine);
        assert!(outcome.dropped);
        assert!(
            !outcome.rewrite_presence,
            "per-machine keys need no new presence"
        );
        assert!(!rings.contains_key(ROOT));
    }
    // Their persisted states drop the keys too, and stay sealed.
    for m in [&mut rt_a, &mut rt_b] {
        m.state.drop_keys();
        assert!(m.ring().generations().is_empty());
        assert!(m.state.is_sealed());
    }

    // Until the owner posts generation 1, nobody seals under generation 0.
    let mut waiting = u2.clone();
    waiting.open_wraps(&server);
    assert_eq!(waiting.ring().current_generation(), Some(1));
    assert_eq!(
        seal_message(
            waiting.ring(),
            &waiting.signer(),
            ROOT,
            &mint(20),
            "too early"
        )
        .unwrap_err()
        .code(),
        ErrorCode::UnknownKeyGeneration
    );

    // The owner stops accepting the bot's keys and rolls to the members
    // that remain, each through its trust store.
    assert!(o.state.remove_sender(BOT, machine_a.key_id()));
    let remaining = [
        TrustedKey::own(OWNER, &owner),
        o.trust.admit(USER2, &Recipient::of(&user2)).unwrap(),
    ];
    let gen1 = o.state.prepare_roll(&owner, &remaining).unwrap();
    assert_eq!(gen1.key_generation(), 1);
    let readers: Vec<&str> = gen1.roster().iter().map(|r| r.subject.as_str()).collect();
    assert_eq!(readers, vec![OWNER, USER2]);
    assert_eq!(
        server.post_key_wraps(ROOT, gen1.request()).unwrap().stored,
        2
    );
    assert_eq!(o.state.commit_roll(gen1).unwrap(), 1);
    assert_eq!(o.ring().current_generation(), Some(1));

    // The owner's device: generation 0's wrap came from the bot's key, which
    // it no longer accepts (the key it holds is kept); generation 1 is its own.
    let report = o.open_wraps(&server);
    assert_eq!(
        report.admitted,
        vec![AdmittedGeneration {
            level: TrustLevel::Verified,
            ..admitted(1, "self", &owner)
        }]
    );
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(
        (report.skipped[0].key_generation, report.skipped[0].code),
        (0, ErrorCode::UntrustedWrap)
    );
    let report = u2.open_wraps(&server);
    assert_eq!(
        report.admitted,
        vec![admitted(0, BOT, &machine_a), admitted(1, OWNER, &owner)]
    );
    for m in [&o, &u2] {
        assert_eq!(m.ring().generations(), vec![0, 1]);
        assert_eq!(m.ring().current_generation(), Some(1));
    }

    let id5 = mint(21);
    let b5 = seal_message(o.ring(), &o.signer(), ROOT, &id5, "Launch moved to Friday.").unwrap();
    assert_eq!(b5.sealed.as_ref().unwrap().envelope.key_generation, 1);
    server.post_message(ROOT, &id5, OWNER, &b5).unwrap();
    let id6 = mint(22);
    let b6 = seal_message(
        u2.ring(),
        &u2.signer(),
        ROOT,
        &id6,
        "Noted, without the bot.",
    )
    .unwrap();
    assert_eq!(b6.sealed.as_ref().unwrap().envelope.key_generation, 1);
    server.post_message(ROOT, &id6, USER2, &b6).unwrap();

    // Owner and second user still read old and new messages.
    for m in [&o, &u2] {
        let read = read_all(&server, ROOT, m.ring(), &m.senders());
        assert_eq!(read.len(), 7);
        assert_eq!(read[id1.as_str()].text, "Release freeze starts Tuesday.");
        assert_eq!(
            read[id2.as_str()].text,
            "@helper what is left before the freeze?"
        );
        assert_eq!(read[id3.as_str()].text, "@helper answer them please");
        assert_eq!(
            read[reply_id.as_str()].text,
            "Two items: the changelog and the tag."
        );
        assert_eq!(read[follow_id.as_str()].text, "Tag pushed.");
        assert_eq!(read[id5.as_str()].text, "Launch moved to Friday.");
        assert_eq!(read[id6.as_str()].text, "Noted, without the bot.");
        assert_eq!(
            open_decision_card(m.ring(), &m.senders(), ROOT, &served_card)
                .unwrap()
                .content,
            content
        );
    }

    // The bot reads nothing sealed afterwards.
    let after = server.list_messages(ROOT).data;
    let new_messages: Vec<&Message> = after
        .iter()
        .filter(|m| m.id == id5.as_str() || m.id == id6.as_str())
        .collect();
    assert_eq!(new_messages.len(), 2);
    for machine in [&machine_a, &machine_b] {
        // Opening the new wraps gives nothing: none is addressed to it.
        let mut fresh = Member::new(BOT, std::slice::from_ref(machine));
        fresh.accept(OWNER, &owner_recipient);
        fresh.accept(BOT, &Recipient::of(&machine_a));
        let reopened = fresh.open_wraps(&server);
        assert!(fresh.ring().generations().is_empty());
        assert!(reopened.admitted.is_empty());
        assert!(reopened.skipped.is_empty());
        for m in &new_messages {
            assert_eq!(
                open_message(fresh.ring(), &fresh.senders(), ROOT, m)
                    .unwrap_err()
                    .code(),
                ErrorCode::UnknownKeyGeneration
            );
        }
        // Even a gen-1 wrap relabelled to the machine does not open for it.
        let mut relabelled = server.key_wraps(ROOT);
        for w in relabelled.wraps.iter_mut() {
            w.recipient_kind = Some(RecipientKind::Bot);
            w.recipient_key_id = Some(machine.key_id().as_str().to_owned());
        }
        let forced =
            open_key_wraps(&mut fresh.state, &fresh.trust, &relabelled, &fresh.keys).unwrap();
        assert!(fresh.ring().generations().is_empty());
        assert!(forced.admitted.is_empty());
        assert!(!forced.skipped.is_empty());
        assert!(
            forced
                .skipped
                .iter()
                .all(|s| s.code == ErrorCode::UntrustedWrap)
        );
    }
    // The invocation's in-process copy was dropped with the state's keys.
    assert_eq!(
        open_message(opened.keyring(), &rt_b.senders(), ROOT, &after[0])
            .unwrap_err()
            .code(),
        ErrorCode::UnknownKeyGeneration
    );
    // Keys copied out before removal open only what they held.
    let bot_senders = rt_a.senders();
    for held in [&a_ring, &b_kept] {
        for m in &new_messages {
            assert_eq!(
                open_message(held, &bot_senders, ROOT, m)
                    .unwrap_err()
                    .code(),
                ErrorCode::UnknownKeyGeneration
            );
        }
        assert!(open_message(held, &bot_senders, ROOT, &after[0]).is_ok());
    }
    // A claim after removal carries no wrap the bot can open.
    let later = server.claim(id5.as_str());
    assert!(later.sealed_context.as_ref().unwrap().wraps.is_empty());
    let mut runtime = rt_b.clone();
    assert_eq!(
        OpenedInvocation::open(
            &later,
            &mut runtime.state,
            &SenderKeys::new(&runtime.trust),
            BOT,
            &[machine_a.clone(), machine_b.clone()]
        )
        .unwrap_err()
        .code(),
        ErrorCode::UntrustedWrap
    );

    // The owner and the bot compare their safety number out of band; both
    // sides compute the same digits, and the owner marks the key verified.
    let owner_side =
        safety_number(OWNER, &owner.public_key(), BOT, &machine_a.public_key()).unwrap();
    let bot_side = safety_number(BOT, &machine_a.public_key(), OWNER, &owner.public_key()).unwrap();
    assert_eq!(owner_side.digits(), bot_side.digits());
    assert!(owner_side.matches_scanned(&bot_side.scannable()).unwrap());
    o.trust.verify(BOT, &Recipient::of(&machine_a)).unwrap();
    assert_eq!(
        o.trust
            .trusted(BOT, &Recipient::of(&machine_a))
            .unwrap()
            .level(),
        TrustLevel::Verified
    );
}

#[test]
fn runtime_machines_each_open_the_same_invocation() {
    // Both machines of the runtime open the same claim with their own key;
    // what either seals is read by the other and by the owner.
    let mut server = FakeServer::new();
    let owner = IdentityKey::generate(RecipientKind::User, KeyId::new("owner").unwrap()).unwrap();
    let machines: Vec<IdentityKey> = ["machine-a", "machine-b"]
        .iter()
        .map(|k| IdentityKey::generate(RecipientKind::Bot, KeyId::new(*k).unwrap()).unwrap())
        .collect();
    let mut o = Member::new(OWNER, std::slice::from_ref(&owner));
    let recipients: Vec<TrustedKey> = std::iter::once(TrustedKey::own(OWNER, &owner))
        .chain(
            machines
                .iter()
                .map(|m| o.trust.admit(BOT, &Recipient::of(m)).unwrap()),
        )
        .collect();
    let gen0 = o.state.prepare_roll(&owner, &recipients).unwrap();
    server.post_key_wraps(ROOT, gen0.request()).unwrap();
    o.state.commit_roll(gen0).unwrap();
    let id = mint(1);
    let body = seal_message(o.ring(), &o.signer(), ROOT, &id, "@helper hi").unwrap();
    server.post_message(ROOT, &id, OWNER, &body).unwrap();
    let invocation = server.claim(id.as_str());

    // Each runtime process accepts the owner's key as the key sender.
    let runtime = |keys: &[IdentityKey]| {
        let mut m = Member::new(BOT, keys);
        m.accept(OWNER, &Recipient::of(&owner));
        m.state.set_owner(OWNER).unwrap();
        m
    };
    let (mut ma, mut mb, mut mboth) = (
        runtime(&machines[..1]),
        runtime(&machines[1..]),
        runtime(&machines),
    );
    let open = |m: &mut Member| {
        OpenedInvocation::open(
            &invocation,
            &mut m.state,
            &SenderKeys::new(&m.trust),
            BOT,
            &m.keys,
        )
        .unwrap()
    };
    let a = open(&mut ma);
    let b = open(&mut mb);
    let both = open(&mut mboth);
    for o in [&a, &b, &both] {
        assert_eq!(o.prompt, "@helper hi");
        assert_eq!(o.keyring().generations(), vec![0]);
    }
    let reply = a.seal_reply(&mint(2), "hello from A").unwrap();
    server.sealed_complete(&reply);
    let follow = b.seal_message(&mint(3), "hello from B").unwrap();
    server.sealed_message(&follow);
    // Each machine knows its sibling's key as presence serves it (not pinned).
    let a_view = ma
        .senders()
        .with_presented(BOT, &Recipient::of(&machines[1]));
    let b_view = mb
        .senders()
        .with_presented(BOT, &Recipient::of(&machines[0]));
    let unverified = TrustLevel::Unverified;
    for (ring, senders, status_a, status_b) in [
        (o.ring(), o.senders(), unverified, unverified),
        (a.keyring(), a_view, TrustLevel::Verified, unverified),
        (b.keyring(), b_view, unverified, TrustLevel::Verified),
    ] {
        let read = read_all(&server, ROOT, ring, &senders);
        let from_a = &read[mint_id(&reply)];
        assert_eq!(from_a.text, "hello from A");
        assert_eq!(from_a.sealed_by, sealed_by(BOT, &machines[0], status_a));
        let from_b = &read[follow.message_id.as_str()];
        assert_eq!(from_b.text, "hello from B");
        assert_eq!(from_b.sealed_by, sealed_by(BOT, &machines[1], status_b));
    }
    // The owner's key is not one of the runtime's: the claim's wraps name
    // no recipient, and none opens for it.
    let mut as_owner = runtime(std::slice::from_ref(&owner));
    assert_eq!(
        OpenedInvocation::open(
            &invocation,
            &mut as_owner.state,
            &SenderKeys::new(&as_owner.trust),
            BOT,
            &as_owner.keys
        )
        .unwrap_err()
        .code(),
        ErrorCode::UntrustedWrap
    );
}

fn mint_id(complete: &SealedCompleteRequest) -> &str {
    complete.reply.as_ref().unwrap().message_id.as_str()
}

#[test]
fn a_new_member_reads_from_its_generation_on() {
    // Inviting a recipient rolls the generation too: the newcomer reads what
    // follows, not what came before.
    let late_user = "usr_01JD3QL4TE000000000000000L";
    let mut server = FakeServer::new();
    let owner = IdentityKey::generate(RecipientKind::User, KeyId::new("owner").unwrap()).unwrap();
    let late = IdentityKey::generate(RecipientKind::User, KeyId::new("late").unwrap()).unwrap();
    let mut o = Member::new(OWNER, std::slice::from_ref(&owner));
    let gen0 = o
        .state
        .prepare_roll(&owner, &[TrustedKey::own(OWNER, &owner)])
        .unwrap();
    server.post_key_wraps(ROOT, gen0.request()).unwrap();
    o.state.commit_roll(gen0).unwrap();
    let before = mint(1);
    let b = seal_message(o.ring(), &o.signer(), ROOT, &before, "before").unwrap();
    server.post_message(ROOT, &before, OWNER, &b).unwrap();

    server.roll(None);
    let invited = o.trust.admit(late_user, &Recipient::of(&late)).unwrap();
    let gen1 = o
        .state
        .prepare_roll(&owner, &[TrustedKey::own(OWNER, &owner), invited])
        .unwrap();
    server.post_key_wraps(ROOT, gen1.request()).unwrap();
    o.state.commit_roll(gen1).unwrap();
    let after = mint(2);
    let a = seal_message(o.ring(), &o.signer(), ROOT, &after, "after").unwrap();
    server.post_message(ROOT, &after, OWNER, &a).unwrap();

    let mut newcomer = Member::new(late_user, std::slice::from_ref(&late));
    newcomer.accept(OWNER, &Recipient::of(&owner));
    let report = newcomer.open_wraps(&server);
    assert_eq!(report.admitted, vec![admitted(1, OWNER, &owner)]);
    assert_eq!(newcomer.ring().generations(), vec![1]);
    let list = server.list_messages(ROOT);
    let results = open_messages(newcomer.ring(), &newcomer.senders(), ROOT, &list.data);
    assert_eq!(
        results[0].as_ref().unwrap_err().code(),
        ErrorCode::UnknownKeyGeneration
    );
    assert_eq!(results[1].as_ref().unwrap().text, "after");
    let mut owner_again = Member::new(OWNER, std::slice::from_ref(&owner));
    owner_again.open_wraps(&server);
    let owner_view = read_all(&server, ROOT, owner_again.ring(), &owner_again.senders());
    assert_eq!(owner_view[before.as_str()].text, "before");
    assert_eq!(owner_view[after.as_str()].text, "after");
}
