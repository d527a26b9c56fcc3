//! `streamseal demo --server URL`: the heart of the demo over real HTTP,
//! against `streamseal serve` (the local stand-in of the service): the
//! owner's key, the runtime's machine key, a sealed session and its
//! generation 0, a sealed prompt, the bot's sealed reply, then the server
//! turning hostile (a generation of its own, a forged prompt, a sealed
//! stream served as plaintext) and the owner removing the bot. Every call
//! is built by the core (`build_request`), sent with ureq, read by the
//! core (`parse_response`) and retried by the core's policy. Sections with
//! no endpoint in the stand-in (decisions, safety numbers, a second
//! machine, restarts) are the in-process demo's.

use std::time::Duration;

use serde_json::{Value, json};
use streamseal::ErrorCode;
use streamseal::api::retry::{RetryFacts, RetryPolicy, RetryStep};
use streamseal::api::{
    ApiResponse, Context, EndpointRequest, HttpRequest, HttpResponse, RequestBody, ResponseData,
    ResponseError, build_request, parse_response,
};
use streamseal::identity::{IdentityKey, KeyId, Recipient, RecipientKind};
use streamseal::kdf::{KdfLimits, KdfParams};
use streamseal::sealed::key_wraps::open_key_wraps;
use streamseal::sealed::presence::with_machine_key;
use streamseal::sealed::runtime::OpenedInvocation;
use streamseal::sealed::state::StreamState;
use streamseal::sealed::{messages, session, user_key};
use streamseal::sender::{SenderKeys, Signer};
use streamseal::trust::{TrustPolicy, TrustStore, TrustedKey};
use streamseal::wire::ids::{MessageId, WorkspaceId};
use streamseal::wire::invocation::Invocation;
use streamseal::wire::message::Message;
use streamseal::wire::presence::{PresenceStatus, RuntimeKind};
use streamseal::wire::requests::bot_runtime::PresenceRequest;
use streamseal::wire::secret::ApiKey;

use crate::demo::{PASSPHRASE, Transcript, now_ms, owner_keys};
use crate::failure::{Failure, Outcome};
use crate::passphrase::with_progress;

/// The service at `base`, called with the core and ureq.
struct Api {
    base: String,
    workspace: WorkspaceId,
    agent: ureq::Agent,
    policy: RetryPolicy,
}

impl Api {
    fn new(base: &str) -> Outcome<(Api, Value)> {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .into();
        let base = base.trim_end_matches('/').to_owned();
        let seed = raw(&agent, "GET", &format!("{base}/_serve/seed"), None, None)?;
        let seed = seed.get("data").cloned().unwrap_or(Value::Null);
        let workspace = WorkspaceId::parse(
            seed.pointer("/workspaceId")
                .and_then(Value::as_str)
                .unwrap_or_default(),
        )?;
        let api = Api {
            base,
            workspace,
            agent,
            policy: RetryPolicy::default(),
        };
        Ok((api, seed))
    }

    /// One endpoint call as `key`, retried as the core's policy says.
    fn call(&self, key: &str, request: Value) -> Outcome<ApiResponse> {
        let ctx = Context::new(
            &self.base,
            self.workspace.clone(),
            Some(ApiKey::parse(key)?),
        );
        let request = EndpointRequest::from_value(request)?;
        let built = build_request(&ctx, &request)?;
        let mut attempt = 1;
        loop {
            let (facts, failure) = match self.send(&built) {
                Ok(response) => match parse_response(&built, &response) {
                    Ok(r) => return Ok(r),
                    Err(ResponseError::Api(f)) => {
                        let failure = Failure {
                            code: f.code.as_ref().map_or_else(
                                || format!("HTTP_{}", f.status),
                                |c| c.as_str().to_owned(),
                            ),
                            message: f.to_string(),
                        };
                        (f.retry, failure)
                    }
                    Err(ResponseError::Malformed(m)) => return Err(m.error.into()),
                },
                Err(e) => (
                    RetryFacts::no_response(&built),
                    Failure::io(built.endpoint.id(), e),
                ),
            };
            // One step per failure: the delay slept is the one decided.
            match self.policy.step(&facts, attempt, Some(now_ms()?))? {
                RetryStep::Retry { delay_ms } => {
                    std::thread::sleep(Duration::from_millis(delay_ms))
                }
                _ => return Err(failure),
            }
            attempt += 1;
        }
    }

    fn send(&self, built: &HttpRequest) -> Result<HttpResponse, ureq::Error> {
        let mut request = ureq::http::Request::builder()
            .method(built.method.as_str())
            .uri(&built.url);
        for (name, value) in &built.headers {
            request = request.header(name, value);
        }
        let body = match &built.body {
            Some(RequestBody::Json(text)) => text.clone(),
            _ => String::new(),
        };
        let mut response = self.agent.run(request.body(body)?)?;
        let headers = response
            .headers()
            .iter()
            .filter_map(|(n, v)| Some((n.as_str().to_owned(), v.to_str().ok()?.to_owned())))
            .collect();
        Ok(HttpResponse {
            status: response.status().as_u16(),
            headers,
            body: response.body_mut().read_to_string()?,
        })
    }

    /// A `/_serve/` route (what the service does in its app).
    fn control(&self, key: &str, method: &str, path: &str, body: Option<&Value>) -> Outcome<Value> {
        raw(
            &self.agent,
            method,
            &format!("{}{path}", self.base),
            Some(key),
            body,
        )
    }
}

fn raw(
    agent: &ureq::Agent,
    method: &str,
    url: &str,
    key: Option<&str>,
    body: Option<&Value>,
) -> Outcome<Value> {
    let mut request = ureq::http::Request::builder()
        .method(method)
        .uri(url)
        .header("Content-Type", "application/json");
    if let Some(key) = key {
        request = request.header("Authorization", format!("Bearer {key}"));
    }
    let text = body.map(Value::to_string).unwrap_or_default();
    let request = request.body(text).map_err(|e| Failure::io(url, e))?;
    let mut response = agent.run(request).map_err(|e| Failure::io(url, e))?;
    let status = response.status().as_u16();
    let text = response
        .body_mut()
        .read_to_string()
        .map_err(|e| Failure::io(url, e))?;
    if !(200..300).contains(&status) {
        return Err(Failure::io(url, format!("answered {status}: {text}")));
    }
    Ok(streamseal::wire::parse_value(&text).unwrap_or(Value::Null))
}

/// The typed data of a response of the variant `$v`.
macro_rules! data {
    ($response:expr, $v:ident) => {
        match $response.data {
            ResponseData::$v(d) => d,
            other => {
                return Err(Failure::io(
                    stringify!($v),
                    format!("unexpected response data {other:?}"),
                ))
            }
        }
    };
}

fn to_value(body: &impl serde::Serialize) -> Outcome<Value> {
    serde_json::to_value(body).map_err(|e| Failure::io("serialising a body", e))
}

/// Runs the HTTP demo against `streamseal serve` at `base`.
pub fn run(base: &str, json_out: bool) -> Outcome {
    let mut t = Transcript {
        json: json_out,
        entries: Vec::new(),
        plaintexts: vec![PASSPHRASE.to_owned()],
        bodies: 0,
    };
    let (api, seed) = Api::new(base)?;
    let owner_id = seed
        .pointer("/user/id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let user_key = seed
        .pointer("/user/key")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let bot_id = seed
        .pointer("/bots/0/id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let bot_key = seed
        .pointer("/bots/0/key")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();

    t.section(&format!(
        "1. The owner sets up a key; the app stores it at {base}"
    ));
    let params = KdfParams::argon2id(19_456, 2, 1);
    let (_, record) = with_progress(&params, || {
        user_key::set_up(KeyId::new("owner-laptop")?, PASSPHRASE, &params)
    })?;
    let stored = to_value(&record.into_own_key("2026-11-27T10:00:00Z"))?;
    api.control(&user_key, "PUT", "/_serve/e2e-key", Some(&stored))?;
    let own = data!(
        api.call(&user_key, json!({"endpoint": "getOwnE2eKey"}))?,
        OwnKey
    );
    t.wire(
        "server",
        "owner app",
        "GET me/e2e-key",
        &json!({ "data": own }),
    )?;
    let owner = with_progress(&own.kdf_params, || {
        user_key::unlock(&own, PASSPHRASE, &KdfLimits::default())
    })?;
    t.note("owner unlocked its key with the passphrase (Argon2id)");

    t.section("2. The runtime registers its machine key and opens a sealed session");
    let machine = IdentityKey::generate(RecipientKind::Bot, KeyId::new("machine-a")?)?;
    let presence = with_machine_key(
        PresenceRequest::new(
            RuntimeKind::AlphaLocal,
            "machine-a",
            PresenceStatus::Available,
            true,
        ),
        &machine,
    )?;
    t.wire(
        "machine-a",
        "server",
        "POST bot-runtime/presence",
        &presence,
    )?;
    api.call(
        &bot_key,
        json!({"endpoint": "postPresence", "body": presence}),
    )?;
    let owner_served = data!(
        api.call(&bot_key, json!({"endpoint": "getOwnerE2eKey"}))?,
        OwnerKey
    );
    let link = data!(
        api.call(&bot_key, json!({"endpoint": "createSession", "body": {
            "runtimeKind": "alpha-local", "instanceId": "machine-a", "runtimeSessionId": "demo-session",
            "displayName": "Release planning", "e2e": {"ownerKeyId": owner_served.key_id}}}))?,
        SessionLink
    );
    let root = link.root_stream_id.as_str().to_owned();
    t.note(&format!("sealed session {root}"));
    let mut runtime_trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    let owner_pinned = session::owner_key(&mut runtime_trust, &owner_id, &owner_served)?;
    let mut runtime_state = StreamState::new(root.as_str())?;
    runtime_state.observe_e2e_enabled(Some(true))?;
    runtime_state.set_owner(&owner_id)?;
    runtime_state.accept_sender(&owner_pinned)?;
    let roll = runtime_state.prepare_roll(
        &machine,
        &[owner_pinned, TrustedKey::own(&bot_id, &machine)],
    )?;
    t.wire(
        "machine-a",
        "server",
        &format!("POST streams/{root}/e2e/key-wraps"),
        roll.request(),
    )?;
    api.call(
        &bot_key,
        json!({"endpoint": "postKeyWraps", "streamId": root, "body": to_value(roll.request())?}),
    )?;
    let generation = runtime_state.commit_roll(roll)?;
    t.note(&format!(
        "machine-a made generation {generation} for the owner and itself"
    ));

    t.section(
        "3. The owner pins the machine key, takes the stream's keys and sends a sealed prompt",
    );
    let mut owner_trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    let bot_key_pinned = owner_trust.admit(&bot_id, &Recipient::of(&machine))?;
    let mut owner_state = StreamState::new(root.as_str())?;
    owner_state.accept_sender(&bot_key_pinned)?;
    let listing = data!(
        api.call(
            &user_key,
            json!({"endpoint": "getKeyWraps", "streamId": root})
        )?,
        KeyWraps
    );
    let report = open_key_wraps(
        &mut owner_state,
        &owner_trust,
        &listing,
        std::slice::from_ref(&owner),
    )?;
    t.wraps("owner app", &report);
    let send = |text: &str, t: &mut Transcript, owner_state: &StreamState| -> Outcome {
        t.plaintext(text);
        let id = MessageId::mint(now_ms()?)?;
        let body = messages::seal_message(
            owner_state.keyring(),
            &Signer::new(&owner_id, &owner)?,
            &root,
            &id,
            text,
        )?;
        t.wire(
            "owner app",
            "server",
            &format!("POST streams/{root}/messages"),
            &body,
        )?;
        api.call(
            &user_key,
            json!({"endpoint": "sendMessage", "streamId": root, "body": to_value(&body)?}),
        )?;
        Ok(())
    };
    send(
        "@helper what is left before we can ship?",
        &mut t,
        &owner_state,
    )?;

    t.section("4. The bot claims, opens the sealed prompt and answers sealed");
    let claim = json!({"endpoint": "claimInvocation", "body": {
        "runtimeKind": "alpha-local", "instanceId": "machine-a",
        "supportedCapabilities": ["active-scratchpad"], "claimTtlSeconds": 60}});
    let claimed = |t: &mut Transcript| -> Outcome<Invocation> {
        let response = data!(api.call(&bot_key, claim.clone())?, Claim);
        let invocation = response
            .data
            .ok_or_else(|| Failure::io("claim", "nothing to claim"))?;
        t.wire(
            "server",
            "machine-a",
            "200 claimed invocation",
            &json!({ "data": invocation }),
        )?;
        Ok(invocation)
    };
    let invocation = claimed(&mut t)?;
    let opened = OpenedInvocation::open(
        &invocation,
        &mut runtime_state,
        &SenderKeys::new(&runtime_trust),
        &bot_id,
        std::slice::from_ref(&machine),
    )?;
    t.read(
        "machine-a",
        "the prompt",
        &opened.prompt,
        &opened.prompt_sealed_by,
    );
    let reply_text = "Before shipping: the changelog and the tag. Everything else is done.";
    t.plaintext(reply_text);
    let reply = opened.seal_reply(&MessageId::mint(now_ms()?)?, reply_text)?;
    let callback = invocation
        .sealed_context
        .as_ref()
        .map(|c| c.callback_token.expose().to_owned())
        .unwrap_or_default();
    t.wire(
        "machine-a",
        "server",
        &format!("POST bot-invocations/{}/sealed-complete", invocation.id),
        &reply,
    )?;
    api.call(
        &bot_key,
        json!({"endpoint": "sealedComplete", "invocationId": invocation.id,
                              "callbackToken": callback, "body": to_value(&reply)?}),
    )?;
    let listed = data!(
        api.call(
            &user_key,
            json!({"endpoint": "listMessages", "streamId": root, "query": {}})
        )?,
        Messages
    );
    let keys = owner_keys(&owner_trust, &owner_id, &owner);
    let all: Vec<Message> = listed.data;
    for result in messages::open_messages(owner_state.keyring(), &keys, &root, &all) {
        let m = result?;
        t.read("owner", "a message", &m.text, &m.sealed_by);
    }

    t.section("5. The server turns hostile");
    let hostile = |attacks: &[&str]| {
        api.control(
            &user_key,
            "POST",
            "/_serve/hostile",
            Some(&json!({"attacks": attacks})),
        )
    };
    send("Is the changelog written?", &mut t, &owner_state)?;
    hostile(&["forge-prompt"])?;
    t.note("the server replaces the owner's prompt with one it sealed under a generation of its own, in the owner's name");
    let forged = claimed(&mut t)?;
    t.expect_refused(
        "machine-a",
        "refuses the forged prompt",
        ErrorCode::UnknownKeyGeneration,
        OpenedInvocation::open(
            &forged,
            &mut runtime_state,
            &SenderKeys::new(&runtime_trust),
            &bot_id,
            std::slice::from_ref(&machine),
        ),
    )?;
    hostile(&[])?;
    send("And the tag?", &mut t, &owner_state)?;
    hostile(&["downgrade"])?;
    t.note(
        "the server serves the sealed stream's next invocation as plaintext, with words of its own",
    );
    let downgraded = claimed(&mut t)?;
    t.expect_refused(
        "machine-a",
        "refuses a plaintext invocation on its sealed stream",
        ErrorCode::SealedStreamDowngrade,
        OpenedInvocation::open(
            &downgraded,
            &mut runtime_state,
            &SenderKeys::new(&runtime_trust),
            &bot_id,
            std::slice::from_ref(&machine),
        ),
    )?;
    hostile(&["mint-generation"])?;
    let minted = data!(
        api.call(
            &user_key,
            json!({"endpoint": "getKeyWraps", "streamId": root})
        )?,
        KeyWraps
    );
    let before = owner_state.high_water();
    let report = open_key_wraps(
        &mut owner_state,
        &owner_trust,
        &minted,
        std::slice::from_ref(&owner),
    )?;
    t.wraps("owner app", &report);
    if !report
        .skipped
        .iter()
        .any(|s| s.code == ErrorCode::UntrustedWrap)
        || owner_state.high_water() != before
    {
        return Err(crate::demo::not_refused(
            "the server's minted generation",
            ErrorCode::UntrustedWrap,
        ));
    }
    t.expect_refused(
        "owner app",
        "refuses to seal under a generation no accepted sender gave",
        ErrorCode::UnknownKeyGeneration,
        messages::seal_message(
            owner_state.keyring(),
            &Signer::new(&owner_id, &owner)?,
            &root,
            &MessageId::mint(now_ms()?)?,
            "never sealed",
        ),
    )?;
    hostile(&[])?;

    t.section("6. The owner removes the bot");
    api.control(
        &user_key,
        "POST",
        &format!("/_serve/streams/{root}/remove-bot"),
        None,
    )?;
    let events = api.control(&bot_key, "GET", "/_serve/events?after=0&waitMs=2000", None)?;
    let revoked = events
        .pointer("/data")
        .and_then(Value::as_array)
        .is_some_and(|list| {
            list.iter()
                .any(|e| e.get("event").and_then(Value::as_str) == Some("bot:e2e_revoke"))
        });
    if !revoked {
        return Err(Failure::io(
            "events",
            "no bot:e2e_revoke after the bot was removed",
        ));
    }
    t.note("machine-a is told (bot:e2e_revoke): it drops the stream's keys");

    t.section("Done");
    let bodies = t.bodies;
    t.note(&format!(
        "{bodies} wire bodies checked over HTTP: no plaintext (nor the passphrase) in any of them"
    ));
    if t.json {
        let transcript = json!({"transcript": t.entries, "wireBodies": bodies, "plaintextLeaks": 0, "server": base});
        println!(
            "{}",
            serde_json::to_string_pretty(&transcript).unwrap_or_default()
        );
    }
    Ok(())
}
