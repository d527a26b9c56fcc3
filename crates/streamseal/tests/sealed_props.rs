#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]
//! Acceptance of the sealed flows (issue 4), part 3: random membership
//! histories and random moves, through the public API only.
//!
//! A pool of five users (and the owner, always a member) joins, leaves,
//! sends and edits in random order. Every join and leave makes the service
//! roll the generation and the owner wrap the next one to the members of
//! the moment. At the end every user, current or former, reads exactly the
//! revisions sealed under generations it was given, and gets
//! `UNKNOWN_KEY_GENERATION` for every other one.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use serde_json::{Value, json};
use streamseal::ErrorCode;
use streamseal::envelope::SealedPayload;
use streamseal::identity::{IdentityKey, KeyId, Recipient, RecipientKind};
use streamseal::sealed::keyring::{add_wraps, announce, open_key_wraps};
use streamseal::sealed::messages::{open_message, open_messages, seal_edit, seal_message};
use streamseal::sealed::session;
use streamseal::stream_key::Keyring;
use streamseal::wire::ids::MessageId;
use streamseal::wire::keys::KeyWraps;
use streamseal::wire::message::{Message, MessageList};
use streamseal::wire::requests::streams::PostKeyWrapsRequest;

const ROOT: &str = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
const OWNER: &str = "usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q0";
const POOL: usize = 5;

fn user_id(i: usize) -> String {
    format!("usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q{}", i + 1)
}

/// The fake server: stores posted wraps and messages, serves them back as
/// `KeyWraps` and `MessageList`.
struct Server {
    current: u32,
    wraps: Vec<Value>,
    messages: Vec<Value>,
}

impl Server {
    fn post_key_wraps(&mut self, body: &PostKeyWrapsRequest) {
        assert_eq!(body.key_generation, self.current, "current generation only");
        assert!(
            !self
                .wraps
                .iter()
                .any(|w| w["keyGeneration"] == json!(body.key_generation)),
            "slots are immutable"
        );
        let wire = serde_json::to_value(body).unwrap();
        for w in wire["wraps"].as_array().unwrap() {
            let mut stored = w.clone();
            stored["keyGeneration"] = json!(body.key_generation);
            self.wraps.push(stored);
        }
    }

    fn key_wraps(&self) -> KeyWraps {
        serde_json::from_value(json!({
            "currentKeyGeneration": self.current, "ownerUserId": OWNER, "wraps": self.wraps,
        }))
        .unwrap()
    }

    fn post_message(&mut self, id: &MessageId, author: &str, sealed: &SealedPayload) -> Message {
        let m = json!({
            "id": id.as_str(), "streamId": ROOT, "sequence": (self.messages.len() + 1).to_string(),
            "authorId": author, "authorType": "user", "content": "[sealed]", "replyCount": 0,
            "metadata": {}, "revision": 1, "createdAt": "2026-11-21T10:00:00Z", "sealed": sealed,
        });
        self.messages.push(m.clone());
        serde_json::from_value(m).unwrap()
    }

    fn edit_message(&mut self, id: &str, sealed: &SealedPayload) -> Message {
        let m = self
            .messages
            .iter_mut()
            .find(|m| m["id"] == json!(id))
            .unwrap();
        m["revision"] = json!(m["revision"].as_u64().unwrap() + 1);
        m["sealed"] = serde_json::to_value(sealed).unwrap();
        m["editedAt"] = json!("2026-11-21T11:00:00Z");
        serde_json::from_value(m.clone()).unwrap()
    }

    fn list(&self) -> MessageList {
        serde_json::from_value(json!({"data": self.messages, "hasMore": false, "slots": {}}))
            .unwrap()
    }
}

#[derive(Clone, Debug)]
enum Op {
    Join(usize),
    Leave(usize),
    Send(usize),
    /// Edit the `k`-th (mod count) message of the user.
    Edit(usize, usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => (0..POOL).prop_map(Op::Join),
        1 => (0..POOL).prop_map(Op::Leave),
        2 => (0..POOL).prop_map(Op::Send),
        1 => (0..POOL, 0..4usize).prop_map(|(i, k)| Op::Edit(i, k)),
    ]
}

/// One revision ever listed: the message as served, the generation it was
/// sealed under and its text.
struct Revision {
    message: Message,
    generation: u32,
    text: String,
}

fn check_reads(
    who: &str,
    ring: &Keyring,
    given: &BTreeSet<u32>,
    revisions: &[Revision],
) -> Result<(), TestCaseError> {
    for r in revisions {
        match open_message(ring, &r.message) {
            Ok(opened) => {
                prop_assert!(
                    given.contains(&r.generation),
                    "{} read generation {} it was never given",
                    who,
                    r.generation
                );
                prop_assert_eq!(&opened.text, &r.text);
                prop_assert_eq!(opened.revision, r.message.revision);
                prop_assert_eq!(&opened.author_id, &r.message.author_id);
            }
            Err(e) => {
                prop_assert!(
                    !given.contains(&r.generation),
                    "{} lost generation {}: {}",
                    who,
                    r.generation,
                    e
                );
                prop_assert_eq!(e.code(), ErrorCode::UnknownKeyGeneration);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 32,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Joins, leaves, sends and edits in any order: every user reads exactly
    /// the generations it was given, current and former members alike.
    #[test]
    fn members_read_exactly_the_generations_they_were_given(
        ops in proptest::collection::vec(op(), 1..=12)
    ) {
        let owner = IdentityKey::generate(RecipientKind::User, KeyId::new("owner").unwrap()).unwrap();
        let users: Vec<IdentityKey> = (0..POOL)
            .map(|i| IdentityKey::generate(RecipientKind::User, KeyId::new(format!("user-{i}")).unwrap()).unwrap())
            .collect();
        let mut server = Server { current: 0, wraps: Vec::new(), messages: Vec::new() };
        let (mut owner_ring, gen0) = session::generation_zero(ROOT, &[Recipient::of(&owner)]).unwrap();
        server.post_key_wraps(&gen0.request);

        let mut members: BTreeSet<usize> = BTreeSet::new();
        // What each user was given, and the keyring each keeps across time.
        let mut given: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); POOL];
        let mut kept: Vec<Keyring> = (0..POOL).map(|_| Keyring::new(ROOT).unwrap()).collect();
        let mut revisions: Vec<Revision> = Vec::new();
        let mut clock = 0u64;

        for op in ops {
            clock += 1;
            match op {
                Op::Join(i) | Op::Leave(i) => {
                    let joining = matches!(op, Op::Join(_));
                    if members.contains(&i) == joining {
                        continue;
                    }
                    if joining { members.insert(i); } else { members.remove(&i); }
                    server.current += 1;
                    let recipients: Vec<Recipient> = std::iter::once(Recipient::of(&owner))
                        .chain(members.iter().map(|j| Recipient::of(&users[*j])))
                        .collect();
                    let next = session::roll_generation(&mut owner_ring, &recipients).unwrap();
                    prop_assert_eq!(next.key_generation, server.current);
                    prop_assert_eq!(next.wraps.len(), members.len() + 1);
                    server.post_key_wraps(&next.request);
                    // Members pick the new generation up (a grant), into the
                    // keyring they keep.
                    let listed = server.key_wraps();
                    for j in &members {
                        given[*j].insert(server.current);
                        let skipped = add_wraps(&mut kept[*j], &listed.wraps, std::slice::from_ref(&users[*j])).unwrap();
                        prop_assert!(skipped.is_empty());
                        announce(&mut kept[*j], listed.current_key_generation);
                    }
                }
                Op::Send(i) | Op::Edit(i, _) => {
                    let ring = open_key_wraps(ROOT, &server.key_wraps(), std::slice::from_ref(&users[i]))
                        .unwrap()
                        .keyring;
                    let author = user_id(i);
                    let text = format!("user {i} at {clock}");
                    let id = MessageId::mint(1_763_700_000_000 + clock).unwrap();
                    if !members.contains(&i) {
                        // A former (or never) member cannot seal into the stream.
                        let refused = seal_message(&ring, ROOT, &id, &author, &text, None).unwrap_err();
                        prop_assert_eq!(refused.code(), ErrorCode::UnknownKeyGeneration);
                        continue;
                    }
                    prop_assert_eq!(ring.current_generation(), Some(server.current));
                    let own: Vec<Message> = server
                        .list()
                        .data
                        .into_iter()
                        .filter(|m| m.author_id == author)
                        .collect();
                    let message = match (&op, own.is_empty()) {
                        (Op::Edit(_, k), false) => {
                            let previous = &own[k % own.len()];
                            let sealed = seal_edit(&ring, previous, &author, &text).unwrap();
                            let edited = server.edit_message(&previous.id, &sealed);
                            prop_assert_eq!(edited.revision, previous.revision + 1);
                            edited
                        }
                        _ => {
                            let body = seal_message(&ring, ROOT, &id, &author, &text, None).unwrap();
                            server.post_message(&id, &author, body.sealed.as_ref().unwrap())
                        }
                    };
                    prop_assert_eq!(
                        message.sealed.as_ref().unwrap().envelope.key_generation,
                        server.current
                    );
                    revisions.push(Revision { message, generation: server.current, text });
                }
            }
        }

        let listed = server.key_wraps();
        let all: BTreeSet<u32> = (0..=server.current).collect();
        // The owner reads everything.
        let owner_view = open_key_wraps(ROOT, &listed, std::slice::from_ref(&owner)).unwrap().keyring;
        prop_assert_eq!(owner_view.generations(), all.iter().copied().collect::<Vec<_>>());
        check_reads("owner", &owner_view, &all, &revisions)?;
        check_reads("owner (kept)", &owner_ring, &all, &revisions)?;

        let current_list = server.list();
        for (i, user) in users.iter().enumerate() {
            let fresh = open_key_wraps(ROOT, &listed, std::slice::from_ref(user)).unwrap();
            prop_assert!(fresh.skipped.is_empty());
            let expected: Vec<u32> = given[i].iter().copied().collect();
            prop_assert_eq!(fresh.keyring.generations(), expected.clone());
            prop_assert_eq!(kept[i].generations(), expected);
            let who = format!("user {i} (member now: {})", members.contains(&i));
            // Every revision ever served, with the keyring from the list and
            // with the one the user kept.
            check_reads(&who, &fresh.keyring, &given[i], &revisions)?;
            check_reads(&who, &kept[i], &given[i], &revisions)?;
            // The current page, opened in one call.
            let page = open_messages(&fresh.keyring, &current_list.data);
            prop_assert_eq!(page.len(), current_list.data.len());
            for (m, r) in current_list.data.iter().zip(page) {
                let generation = m.sealed.as_ref().unwrap().envelope.key_generation;
                prop_assert_eq!(r.is_ok(), given[i].contains(&generation));
            }
            // Only current members can seal under the current generation.
            let sealed = seal_message(&fresh.keyring, ROOT, &MessageId::mint(1).unwrap(), &user_id(i), "x", None);
            match sealed {
                Ok(body) => {
                    prop_assert!(members.contains(&i));
                    prop_assert_eq!(body.sealed.unwrap().envelope.key_generation, server.current);
                }
                Err(e) => {
                    prop_assert!(!members.contains(&i));
                    prop_assert_eq!(e.code(), ErrorCode::UnknownKeyGeneration);
                }
            }
        }
    }

    /// A ciphertext served under any other message's stream, id, author,
    /// revision or generation does not open; under its own it does.
    #[test]
    fn any_move_between_messages_is_refused(
        specs in proptest::collection::vec((0..3usize, 0..3usize, 1..4u32), 2..6),
        from in any::<prop::sample::Index>(),
        to in any::<prop::sample::Index>(),
        relabel in 0..3u32,
    ) {
        let owner = IdentityKey::generate(RecipientKind::User, KeyId::new("owner").unwrap()).unwrap();
        let (mut ring, _) = session::generation_zero(ROOT, &[Recipient::of(&owner)]).unwrap();
        session::roll_generation(&mut ring, &[Recipient::of(&owner)]).unwrap();
        session::roll_generation(&mut ring, &[Recipient::of(&owner)]).unwrap();
        let streams = [ROOT, "stream_01JD3QJ5TH0000000000000T", "stream_01JD3QJ5TH0000000000000V"];
        let mut served: Vec<Message> = Vec::new();
        for (n, (stream, author, revision)) in specs.iter().enumerate() {
            let id = MessageId::mint(1_763_700_000_000 + n as u64).unwrap();
            let author = user_id(*author);
            // Seal as revision 1, then edit up to `revision`.
            let body = seal_message(&ring, streams[*stream], &id, &author, "r1", None).unwrap();
            let mut m: Message = serde_json::from_value(json!({
                "id": id.as_str(), "streamId": streams[*stream], "sequence": "1", "authorId": author,
                "authorType": "user", "content": "[sealed]", "replyCount": 0, "metadata": {},
                "revision": 1, "createdAt": "2026-11-21T10:00:00Z", "sealed": body.sealed,
            })).unwrap();
            while m.revision < *revision {
                let text = format!("r{}", m.revision + 1);
                m.sealed = Some(seal_edit(&ring, &m, &author, &text).unwrap());
                m.revision += 1;
            }
            served.push(m);
        }
        let from = &served[from.index(served.len())];
        let to = &served[to.index(served.len())];
        prop_assert_eq!(open_message(&ring, from).unwrap().text, format!("r{}", from.revision));
        let mut moved = to.clone();
        moved.sealed = from.sealed.clone();
        let generation = from.sealed.as_ref().unwrap().envelope.key_generation;
        moved.sealed.as_mut().unwrap().envelope.key_generation = relabel;
        let result = open_message(&ring, &moved);
        let same_slot = (&from.stream_id, &from.id, &from.author_id, from.revision)
            == (&to.stream_id, &to.id, &to.author_id, to.revision);
        if same_slot && relabel == generation {
            prop_assert!(result.is_ok());
        } else {
            prop_assert_eq!(result.unwrap_err().code(), ErrorCode::AadMismatch);
        }
    }
}

#[test]
fn a_member_who_leaves_and_rejoins_skips_the_generation_in_between() {
    // A fixed history worth keeping next to the property: join, leave,
    // rejoin; the user reads generations 1 and 3, not 2.
    let owner = IdentityKey::generate(RecipientKind::User, KeyId::new("owner").unwrap()).unwrap();
    let user = IdentityKey::generate(RecipientKind::User, KeyId::new("user-0").unwrap()).unwrap();
    let mut server = Server {
        current: 0,
        wraps: Vec::new(),
        messages: Vec::new(),
    };
    let (mut ring, gen0) = session::generation_zero(ROOT, &[Recipient::of(&owner)]).unwrap();
    server.post_key_wraps(&gen0.request);
    let mut texts = BTreeMap::new();
    for (generation, with_user) in [(1u32, true), (2, false), (3, true)] {
        server.current = generation;
        let mut recipients = vec![Recipient::of(&owner)];
        if with_user {
            recipients.push(Recipient::of(&user));
        }
        let next = session::roll_generation(&mut ring, &recipients).unwrap();
        server.post_key_wraps(&next.request);
        let id = MessageId::mint(1_763_700_000_000 + u64::from(generation)).unwrap();
        let text = format!("generation {generation}");
        let body = seal_message(&ring, ROOT, &id, OWNER, &text, None).unwrap();
        server.post_message(&id, OWNER, body.sealed.as_ref().unwrap());
        texts.insert(id.as_str().to_owned(), (generation, text));
    }
    let user_ring = open_key_wraps(ROOT, &server.key_wraps(), std::slice::from_ref(&user))
        .unwrap()
        .keyring;
    assert_eq!(user_ring.generations(), vec![1, 3]);
    for m in server.list().data {
        let (generation, text) = &texts[&m.id];
        match open_message(&user_ring, &m) {
            Ok(o) => {
                assert_ne!(*generation, 2);
                assert_eq!(&o.text, text);
            }
            Err(e) => {
                assert_eq!(*generation, 2);
                assert_eq!(e.code(), ErrorCode::UnknownKeyGeneration);
            }
        }
    }
}
