//! `streamseal demo`: the whole sealed-stream story in one process.
//!
//! An owner sets up a key with a passphrase; a bot runtime on two machines
//! registers its keys; a sealed scratchpad is created and generation 0
//! wrapped; the owner sends sealed messages; the bot claims an invocation,
//! opens its `sealedContext`, posts sealed steps and a sealed reply that the
//! owner opens; the bot is removed, the generation rolls, and the bot fails
//! to open the next message.
//!
//! A small in-memory server stands in for the service: it stores what is
//! posted and answers with the shapes the API returns. Every body that
//! crosses the wire is printed and checked: if a plaintext appeared in one,
//! the demo fails.
//!
//! The owner's key uses Argon2id m = 19 MiB, t = 2, p = 1 (the OWASP
//! minimum) so the demo finishes in seconds; real setups use the library's
//! default of m = 64 MiB, t = 3, p = 1.

use serde::Serialize;
use serde_json::{Value, json};
use streamseal::identity::{IdentityKey, KeyId, Recipient, RecipientKind};
use streamseal::kdf::{KdfLimits, KdfParams};
use streamseal::sealed::presence::{KeyPolicy, on_revoke, with_machine_key};
use streamseal::sealed::runtime::{OpenedInvocation, open_step};
use streamseal::sealed::{keyring::open_key_wraps, messages, session, user_key};
use streamseal::slot::StepPhase;
use streamseal::stream_key::Keyring;
use streamseal::wire::events::E2eRevoke;
use streamseal::wire::ids::{InvocationId, MessageId, StreamId, UserId, WorkspaceId};
use streamseal::wire::invocation::Invocation;
use streamseal::wire::keys::{KeyWraps, OwnKey, OwnerKey};
use streamseal::wire::message::Message;
use streamseal::wire::presence::{PresenceStatus, RuntimeKind};
use streamseal::wire::requests::bot_runtime::{CreateSessionRequest, PresenceRequest, SessionE2e};
use streamseal::wire::requests::invocation::{ClaimRequest, StepType};
use streamseal::wire::requests::messages::SendMessageRequest;
use streamseal::wrap::KeyWrap;

use crate::failure::{Failure, Outcome};
use crate::passphrase::with_progress;

const PASSPHRASE: &str = "correct horse battery staple";

/// Collects what happens, prints it as it goes (unless `--json`), and
/// refuses any wire body that contains a plaintext.
struct Transcript {
    json: bool,
    entries: Vec<Value>,
    plaintexts: Vec<String>,
    bodies: usize,
}

impl Transcript {
    fn section(&mut self, title: &str) {
        if !self.json {
            println!("\n== {title}");
        }
        self.entries.push(json!({"section": title}));
    }

    fn plaintext(&mut self, text: &str) {
        self.plaintexts.push(text.to_owned());
    }

    fn wire(&mut self, from: &str, to: &str, call: &str, body: &impl Serialize) -> Outcome {
        let value = serde_json::to_value(body).map_err(|e| Failure::io("serialising a body", e))?;
        let text = value.to_string();
        if let Some(leak) = self.plaintexts.iter().find(|p| text.contains(p.as_str())) {
            return Err(Failure {
                code: "PLAINTEXT_LEAK".into(),
                message: format!("the body of `{call}` contains the plaintext {leak:?}"),
            });
        }
        self.bodies += 1;
        if !self.json {
            println!("  {from} -> {to}: {call}");
            let pretty = serde_json::to_string_pretty(&value).unwrap_or_default();
            for line in pretty.lines() {
                println!("    {line}");
            }
        }
        self.entries
            .push(json!({"wire": {"from": from, "to": to, "call": call, "body": value}}));
        Ok(())
    }

    fn read(&mut self, who: &str, what: &str, text: &str) {
        if !self.json {
            println!("  {who} reads {what}: {text:?}");
        }
        self.entries
            .push(json!({"read": {"who": who, "what": what, "text": text}}));
    }

    fn refused(&mut self, who: &str, what: &str, err: &streamseal::Error) {
        if !self.json {
            println!("  {who} cannot open {what}: error[{}] {err}", err.code());
        }
        self.entries.push(
            json!({"refused": {"who": who, "what": what, "code": err.code().as_str(), "message": err.to_string()}}),
        );
    }

    fn note(&mut self, text: &str) {
        if !self.json {
            println!("  {text}");
        }
        self.entries.push(json!({"note": text}));
    }
}

/// The in-memory stand-in for the service.
#[derive(Default)]
struct Server {
    wraps: Vec<KeyWrap>,
    current_generation: u32,
    messages: Vec<Message>,
}

impl Server {
    fn store_wraps(&mut self, generation: u32, wraps: &[KeyWrap]) {
        self.wraps.extend_from_slice(wraps);
        self.current_generation = self.current_generation.max(generation);
    }

    fn key_wraps(&self, owner: &str) -> KeyWraps {
        KeyWraps {
            current_key_generation: self.current_generation,
            owner_user_id: owner.to_owned(),
            wraps: self.wraps.clone(),
        }
    }

    /// Stores a sealed message as the API would return it.
    fn post_message(
        &mut self,
        stream: &str,
        id: &str,
        author: &str,
        author_type: &str,
        body_sealed: &SendMessageRequest,
    ) -> Outcome<Message> {
        let sequence = self.messages.len() + 1;
        let message = json!({
            "id": id,
            "streamId": stream,
            "sequence": sequence.to_string(),
            "authorId": author,
            "authorType": author_type,
            "content": "[sealed]",
            "replyCount": 0,
            "metadata": {},
            "revision": 1,
            "createdAt": format!("2026-11-21T10:00:{sequence:02}Z"),
            "sealed": body_sealed.sealed,
        });
        let message: Message =
            serde_json::from_value(message).map_err(|e| Failure::io("server", e))?;
        self.messages.push(message.clone());
        Ok(message)
    }
}

fn now_ms() -> Outcome<u64> {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .map_err(|e| Failure::io("system clock", e))
}

/// The owner seals `text` as a new message of the root stream and posts it.
fn owner_sends(
    t: &mut Transcript,
    server: &mut Server,
    ring: &Keyring,
    owner_id: &str,
    text: &str,
) -> Outcome<Message> {
    t.plaintext(text);
    let root = ring.root_stream_id().to_owned();
    let id = MessageId::mint(now_ms()?)?;
    let client_id = format!("client-{}", id.ulid());
    let body = messages::seal_message(ring, &root, &id, owner_id, text, Some(client_id))?;
    messages::check_send_rules(true, &body)?;
    t.wire(
        "owner app",
        "server",
        &format!("POST streams/{root}/messages"),
        &body,
    )?;
    server.post_message(&root, id.as_str(), owner_id, "user", &body)
}

/// Runs the demo; `json` prints one machine-readable transcript instead.
pub fn run(json_out: bool) -> Outcome {
    let mut t = Transcript {
        json: json_out,
        entries: Vec::new(),
        plaintexts: vec![PASSPHRASE.to_owned()],
        bodies: 0,
    };
    let mut server = Server::default();
    let now = now_ms()?;
    let workspace = WorkspaceId::mint(now)?;
    let owner_id = UserId::mint(now)?;
    let bot_id = format!("bot_{}", streamseal::wire::ids::mint_ulid(now)?);

    // 1. The owner's key.
    t.section("1. The owner sets up an encryption key with a passphrase");
    let params = KdfParams::argon2id(19_456, 2, 1);
    let (owner, record) = with_progress(&params, || {
        user_key::set_up(KeyId::new("owner-laptop")?, PASSPHRASE, &params)
    })?;
    t.wire(
        "owner app",
        "server",
        "store key record (the app's key setup)",
        &record,
    )?;
    let stored: OwnKey = record.into_own_key("2026-11-21T10:00:00Z");
    t.wire(
        "server",
        "owner app",
        "GET me/e2e-key",
        &json!({ "data": stored }),
    )?;
    let owner = {
        let unlocked = with_progress(&stored.kdf_params, || {
            user_key::unlock(&stored, PASSPHRASE, &KdfLimits::default())
        })?;
        if unlocked.public_key() != owner.public_key() {
            return Err(streamseal::Error::BundleKeyMismatch.into());
        }
        unlocked
    };
    t.note(&format!(
        "owner unlocked key `owner-laptop` ({})",
        owner.public_key().to_base64()
    ));

    // 2. The runtime's two machines register their keys.
    t.section("2. A bot runtime on two machines registers its keys in presence");
    let machines = [
        IdentityKey::generate(RecipientKind::Bot, KeyId::new("machine-a")?)?,
        IdentityKey::generate(RecipientKind::Bot, KeyId::new("machine-b")?)?,
    ];
    for machine in &machines {
        let presence = with_machine_key(
            PresenceRequest::new(
                RuntimeKind::AlphaLocal,
                machine.key_id().as_str(),
                PresenceStatus::Available,
                true,
            ),
            machine,
        )?;
        t.wire(
            machine.key_id().as_str(),
            "server",
            "POST bot-runtime/presence",
            &presence,
        )?;
    }

    // 3. A sealed scratchpad and its generation 0.
    t.section("3. A sealed scratchpad session is created and generation 0 wrapped");
    let session_body = CreateSessionRequest {
        runtime_kind: RuntimeKind::AlphaLocal,
        instance_id: "machine-a".into(),
        runtime_session_id: "demo-session".into(),
        display_name: "Release planning".into(),
        local_cwd: None,
        memory_mode: None,
        label_name: None,
        description: None,
        e2e: Some(SessionE2e {
            owner_key_id: stored.key_id.clone(),
        }),
        if_archived: None,
        if_missing: None,
    };
    t.wire(
        "machine-a",
        "server",
        "POST bot-runtime/sessions",
        &session_body,
    )?;
    let root = StreamId::mint(now)?.as_str().to_owned();
    t.wire(
        "server",
        "machine-a",
        "201 session link",
        &json!({"data": {"linkId": "link-1", "rootStreamId": root, "activeStreamId": root,
                          "runtimeSessionId": "demo-session", "streamUrlPath": "/s/demo", "e2eEnabled": true}}),
    )?;
    let owner_key = OwnerKey {
        key_id: stored.key_id.clone(),
        public_key: stored.public_key,
    };
    t.wire(
        "server",
        "machine-a",
        "GET bot-runtime/owner-e2e-key",
        &json!({ "data": owner_key }),
    )?;
    let mut recipients = vec![session::owner_recipient(&owner_key)?];
    recipients.extend(machines.iter().map(Recipient::of));
    let (_runtime_ring, gen0) = session::generation_zero(&root, &recipients)?;
    t.wire(
        "machine-a",
        "server",
        &format!("POST streams/{root}/e2e/key-wraps"),
        &gen0.request,
    )?;
    server.store_wraps(gen0.key_generation, &gen0.wraps);

    // 4. The owner sends sealed messages.
    t.section("4. The owner opens the stream's keys and sends sealed messages");
    let listed = server.key_wraps(owner_id.as_str());
    t.wire(
        "server",
        "owner app",
        &format!("GET streams/{root}/e2e/key-wraps"),
        &json!({ "data": listed }),
    )?;
    let mut owner_ring = open_key_wraps(&root, &listed, std::slice::from_ref(&owner))?.keyring;
    let texts = [
        "Release checklist: freeze on Wednesday, ship on Thursday.",
        "@helper what is left before we can ship?",
    ];
    let mut trigger = None;
    for text in texts {
        trigger = Some(owner_sends(
            &mut t,
            &mut server,
            &owner_ring,
            owner_id.as_str(),
            text,
        )?);
    }
    let trigger = trigger.ok_or_else(|| Failure::usage("no trigger message"))?;

    // 5. The bot claims and answers.
    t.section("5. The bot claims the invocation, opens its sealedContext, posts steps and a reply");
    let claim = ClaimRequest::new(
        RuntimeKind::AlphaLocal,
        "machine-b",
        vec!["mentionable".into()],
    );
    t.wire("machine-b", "server", "POST bot-invocations/claim", &claim)?;
    let invocation_id = InvocationId::mint(now)?;
    let bot_wraps: Vec<Value> = server
        .wraps
        .iter()
        .filter(|w| w.recipient_kind == Some(RecipientKind::Bot))
        .map(|w| json!({"keyGeneration": w.key_generation, "wrapEnc": w.wrap_enc, "wrapCt": w.wrap_ct}))
        .collect();
    let history: Vec<Value> = server
        .messages
        .iter()
        .filter(|m| m.id != trigger.id)
        .map(|m| {
            json!({"ciphertext": m.sealed.as_ref().map(|s| s.ciphertext.clone()),
                        "envelope": m.sealed.as_ref().map(|s| s.envelope.clone()),
                        "role": "user", "sequence": m.sequence})
        })
        .collect();
    let claimed = json!({"data": {
        "id": invocation_id, "workspaceId": workspace, "rootStreamId": root, "activeStreamId": root,
        "sourceMessageId": trigger.id, "responseStreamId": root,
        "actor": {"type": "bot", "id": bot_id, "slug": "helper"},
        "trigger": "mention", "requiredCapability": "mentionable", "sourceRevision": trigger.revision,
        "authorUserId": owner_id, "mentionedActorSlugs": ["helper"], "claimToken": "clm_demo_claim_token",
        "claimExpiresAt": "2026-11-21T10:01:00Z", "runtimeSessionId": "demo-session", "metadata": {},
        "sealedContext": {
            "callbackToken": "cbt_demo_callback_token",
            "wraps": bot_wraps,
            "history": history,
            "prompt": trigger.sealed,
            "reply": {"keyGeneration": server.current_generation, "senderId": bot_id},
            "trigger": {"messageId": trigger.id, "authorName": "Owner", "authorType": "user", "createdAt": trigger.created_at},
        }
    }});
    t.wire("server", "machine-b", "200 claimed invocation", &claimed)?;
    let invocation: Invocation =
        serde_json::from_value(claimed.get("data").cloned().unwrap_or_default())
            .map_err(|e| Failure::io("claim payload", e))?;
    let opened = OpenedInvocation::open(&invocation, machines.get(1..2).unwrap_or_default())?;
    t.read("machine-b", "the prompt", &opened.prompt);
    for entry in &opened.history {
        t.read(
            "machine-b",
            &format!("history #{}", entry.sequence),
            &entry.text,
        );
    }
    let (thinking, found) = (
        "Reading the release checklist",
        "Two items left: changelog and tag",
    );
    t.plaintext(thinking);
    t.plaintext(found);
    let started = opened.seal_step_started("step-1", &StepType::Thinking, None, Some(thinking))?;
    let path = format!("POST bot-invocations/{invocation_id}");
    t.wire(
        "machine-b",
        "server",
        &format!("{path}/sealed-steps/started"),
        &started,
    )?;
    let finished = opened.seal_step("step-1", &StepType::Thinking, None, found, Some(840))?;
    t.wire(
        "machine-b",
        "server",
        &format!("{path}/sealed-steps"),
        &finished,
    )?;
    let reply_text =
        "Before shipping: write the changelog and tag the release. Everything else is done.";
    t.plaintext(reply_text);
    let reply_id = MessageId::mint(now_ms()?)?;
    let complete = opened.seal_reply(&reply_id, reply_text)?;
    t.wire(
        "machine-b",
        "server",
        &format!("{path}/sealed-complete"),
        &complete,
    )?;
    let reply_body = SendMessageRequest {
        sealed: complete.reply.as_ref().map(|r| r.sealed.clone()),
        ..SendMessageRequest::default()
    };
    server.post_message(&root, reply_id.as_str(), &bot_id, "bot", &reply_body)?;

    let step_text = open_step(
        &owner_ring,
        invocation_id.as_str(),
        "step-1",
        &StepType::Thinking,
        StepPhase::Completed,
        None,
        &finished.sealed,
    )?;
    t.read("owner", "the bot's step", &step_text);
    let page = json!({"data": server.messages, "hasMore": false, "slots": {}});
    t.wire(
        "server",
        "owner app",
        &format!("GET streams/{root}/messages"),
        &page,
    )?;
    for (message, opened_message) in server
        .messages
        .iter()
        .zip(messages::open_messages(&owner_ring, &server.messages))
    {
        let opened_message = opened_message?;
        let what = match &opened_message.invocation_id {
            Some(inv) => format!("the bot's reply to {inv}"),
            None => format!("message #{}", message.sequence),
        };
        t.read("owner", &what, &opened_message.text);
    }

    // 6. The bot is removed.
    t.section("6. The owner removes the bot: the generation rolls and the bot is locked out");
    let revoke = E2eRevoke {
        workspace_id: workspace.as_str().to_owned(),
        bot_id: bot_id.clone(),
        stream_id: root.clone(),
    };
    t.wire("server", "machine-b", "event bot:e2e_revoke", &revoke)?;
    let mut runtime_rings =
        std::collections::BTreeMap::from([(root.clone(), opened.keyring().clone())]);
    let outcome = on_revoke(&mut runtime_rings, &revoke, KeyPolicy::PerMachine);
    t.note(&format!(
        "machine-b dropped its keys of the stream: {}",
        outcome.dropped
    ));
    let gen1 = session::roll_generation(&mut owner_ring, &[session::owner_recipient(&owner_key)?])?;
    t.wire(
        "owner app",
        "server",
        "store generation 1 wraps (the app's membership change)",
        &gen1.request,
    )?;
    server
        .wraps
        .retain(|w| w.recipient_kind != Some(RecipientKind::Bot));
    server.store_wraps(gen1.key_generation, &gen1.wraps);

    let secret_text = "The launch date moved to Friday; do not tell the bot.";
    t.plaintext(secret_text);
    let after = owner_sends(
        &mut t,
        &mut server,
        &owner_ring,
        owner_id.as_str(),
        secret_text,
    )?;
    t.read(
        "owner",
        "the new message",
        &messages::open_message(&owner_ring, &after)?.text,
    );

    let listed = server.key_wraps(owner_id.as_str());
    t.wire(
        "server",
        "machine-b",
        &format!("GET streams/{root}/e2e/key-wraps"),
        &json!({ "data": listed }),
    )?;
    let bot_ring = open_key_wraps(&root, &listed, &machines)?.keyring;
    match messages::open_message(&bot_ring, &after) {
        Ok(opened) => {
            return Err(Failure {
                code: "DEMO_FAILED".into(),
                message: format!("the removed bot opened {:?}", opened.text),
            });
        }
        Err(e) => t.refused("machine-b", "the message sealed after its removal", &e),
    }
    // Even the generation-0 keys it held before removal do not open it.
    if let Err(e) = messages::open_message(opened.keyring(), &after) {
        t.refused("machine-b (with its old keys)", "the same message", &e);
    }

    t.section("Done");
    let bodies = t.bodies;
    t.note(&format!(
        "{bodies} wire bodies checked: no plaintext (nor the passphrase) appears in any of them"
    ));
    if json_out {
        let transcript =
            json!({"transcript": t.entries, "wireBodies": bodies, "plaintextLeaks": 0});
        println!(
            "{}",
            serde_json::to_string_pretty(&transcript).unwrap_or_default()
        );
    }
    Ok(())
}
