//! Acceptance of issue 15 (proptest): random interleavings of joins, leaves,
//! rolls, restarts from persisted state and server-injected wraps, through the
//! public API only.
//!
//! Four honest members (the owner, the bot's machine, two users; the owner and
//! the bot are members from the start, the users may join, any but the owner
//! may leave, nobody rejoins) keep their own [`StreamState`] and
//! [`TrustStore`]. Every wrap they post goes to the server's store; the server
//! also adds wraps of its own: keys it minted (HPKE auth mode from key pairs it
//! made, posing under a member's kind and key id, or base mode naming a member
//! as sender), old wraps replayed, wraps relabelled to another generation
//! (including `u32::MAX`) or redirected to another member, and wraps a member
//! made *after* it left. Each sync serves the whole store with a
//! `currentKeyGeneration` the server picks (the truth, 0, `u32::MAX`, a small
//! number).
//!
//! After every step, for every current member:
//! - every key it holds for a generation `g` is a key an honest member made
//!   as generation `g` while a member (the test learns each such key by
//!   unwrapping the maker's wrap to itself); never one the server minted or a
//!   former member made after leaving;
//! - its high-water generation never decreased, restarts included, and the
//!   generation it would seal under is never below it.
//!
//! Every seal that succeeds is under a generation at or above the high-water,
//! opens with an honest key made for that generation, and with no key the
//! server or a former member made; a seal that fails says why
//! (`UNKNOWN_KEY_GENERATION`, `KEY_GENERATION_CONFLICT`).

use std::collections::BTreeMap;

use proptest::prelude::*;
use streamseal::ErrorCode;
use streamseal::envelope;
use streamseal::identity::{IdentityKey, KeyId, Recipient, RecipientKind, SecretKey};
use streamseal::sealed::key_wraps::open_key_wraps;
use streamseal::sealed::state::StreamState;
use streamseal::sender::{SenderKeys, Signer};
use streamseal::slot::Slot;
use streamseal::stream_key::{Keyring, StreamKey};
use streamseal::trust::{TrustLevel, TrustPolicy, TrustStore, TrustedKey};
use streamseal::wire::keys::KeyWraps;
use streamseal::wrap::{KeyWrap, unwrap_stream_key, wrap_stream_key};

use crate::attacker;

const ROOT: &str = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
const OWNER: &str = "usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q1";
const SUBJECTS: [&str; 4] = [
    OWNER,
    "bot_01JD3QB0T0000000000000000B",
    "usr_01JD3QS2E3C4N5D6000000000A",
    "usr_01JD3QS2E3C4N5D6000000000B",
];
const KEY_IDS: [&str; 4] = ["owner-laptop", "machine-a", "u2-phone", "u3-laptop"];

/// A generation the server picks, relative to the target's high-water.
#[derive(Clone, Copy, Debug)]
enum Gen {
    Next,
    Held,
    Zero,
    Max,
    Small(u8),
}

impl Gen {
    fn resolve(self, high_water: Option<u32>) -> u32 {
        match self {
            Gen::Next => high_water.map_or(0, |g| g.saturating_add(1)),
            Gen::Held => high_water.unwrap_or(0),
            Gen::Zero => 0,
            Gen::Max => u32::MAX,
            Gen::Small(n) => u32::from(n % 8),
        }
    }
}

/// The `currentKeyGeneration` the server announces on a sync.
#[derive(Clone, Copy, Debug)]
enum Announce {
    Truth,
    Zero,
    Max,
    Small(u8),
}

#[derive(Clone, Debug)]
enum Op {
    /// A current member rolls to the current members.
    Roll(u8),
    /// A current member prepares a roll and posts it; the server stores it
    /// but answers 409, so the member drops it (its key is never committed).
    DroppedRoll(u8),
    /// The next user who never was a member joins; a current member rolls.
    Join(u8),
    /// A member other than the owner leaves; a remaining member rolls.
    Leave(u8, u8),
    /// A member restarts from its persisted state and trust store.
    Restart(u8),
    /// A member opens everything the server stores.
    Sync(u8, Announce),
    /// A member seals a message.
    Seal(u8),
    /// The server mints a key for a generation and wraps it to a member,
    /// posing as any member (auth mode from its own key pair, or base mode).
    Mint {
        target: u8,
        posing: u8,
        generation: Gen,
        base_mode: bool,
    },
    /// The server serves a stored wrap again.
    Replay(u16),
    /// The server relabels a stored wrap's generation.
    Move(u16, Gen),
    /// The server readdresses a stored wrap to another member.
    Redirect(u16, u8),
    /// A member that left wraps a key of its own to a current member.
    Former { target: u8, generation: Gen },
}

fn gen_strategy() -> impl Strategy<Value = Gen> {
    prop_oneof![
        Just(Gen::Next),
        Just(Gen::Held),
        Just(Gen::Zero),
        Just(Gen::Max),
        any::<u8>().prop_map(Gen::Small),
    ]
}

fn announce_strategy() -> impl Strategy<Value = Announce> {
    prop_oneof![
        3 => Just(Announce::Truth),
        1 => Just(Announce::Zero),
        1 => Just(Announce::Max),
        1 => any::<u8>().prop_map(Announce::Small),
    ]
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => any::<u8>().prop_map(Op::Roll),
        1 => any::<u8>().prop_map(Op::DroppedRoll),
        1 => any::<u8>().prop_map(Op::Join),
        1 => (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Op::Leave(a, b)),
        2 => any::<u8>().prop_map(Op::Restart),
        4 => (any::<u8>(), announce_strategy()).prop_map(|(a, n)| Op::Sync(a, n)),
        3 => any::<u8>().prop_map(Op::Seal),
        3 => (any::<u8>(), any::<u8>(), gen_strategy(), any::<bool>()).prop_map(
            |(target, posing, generation, base_mode)| Op::Mint {
                target,
                posing,
                generation,
                base_mode
            }
        ),
        1 => any::<u16>().prop_map(Op::Replay),
        1 => (any::<u16>(), gen_strategy()).prop_map(|(i, g)| Op::Move(i, g)),
        1 => (any::<u16>(), any::<u8>()).prop_map(|(i, t)| Op::Redirect(i, t)),
        1 => (any::<u8>(), gen_strategy())
            .prop_map(|(target, generation)| Op::Former { target, generation }),
    ]
}

/// A base-mode wrap naming `posing_as` as its sender (see [`attacker::base_mode_wrap`]).
fn base_mode_wrap(
    generation: u32,
    key: &StreamKey,
    posing_as: &Recipient,
    to: &Recipient,
) -> KeyWrap {
    attacker::base_mode_wrap(
        ROOT,
        generation,
        key,
        posing_as,
        to,
        *StreamKey::generate().unwrap().to_bytes(),
    )
}

struct Member {
    key: IdentityKey,
    subject: &'static str,
    trust: TrustStore,
    state: StreamState,
    member: bool,
    left: bool,
    /// The highest high-water seen (restarts included).
    high_water: Option<u32>,
}

impl Member {
    fn recipient(&self) -> Recipient {
        Recipient::of(&self.key)
    }
}

struct World {
    members: Vec<Member>,
    /// Every wrap the server stores, in order.
    store: Vec<KeyWrap>,
    /// Keys honest members made, by the generation they made them for.
    honest: BTreeMap<u32, Vec<StreamKey>>,
    /// Keys the server minted, or former members made after leaving.
    forbidden: BTreeMap<u32, Vec<StreamKey>>,
    seals: u64,
}

impl World {
    fn new() -> World {
        let keys: Vec<IdentityKey> = (0..4)
            .map(|i| {
                let kind = if i == 1 {
                    RecipientKind::Bot
                } else {
                    RecipientKind::User
                };
                IdentityKey::generate(kind, KeyId::new(KEY_IDS[i]).unwrap()).unwrap()
            })
            .collect();
        let members = keys
            .iter()
            .enumerate()
            .map(|(i, key)| {
                // Everyone pinned everyone's genuine key on first sight.
                let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
                for (j, other) in keys.iter().enumerate() {
                    if i != j {
                        trust.admit(SUBJECTS[j], &Recipient::of(other)).unwrap();
                    }
                }
                Member {
                    key: key.clone(),
                    subject: SUBJECTS[i],
                    trust,
                    state: StreamState::new(ROOT).unwrap(),
                    member: i < 2,
                    left: false,
                    high_water: None,
                }
            })
            .collect();
        let mut w = World {
            members,
            store: Vec::new(),
            honest: BTreeMap::new(),
            forbidden: BTreeMap::new(),
            seals: 0,
        };
        for i in 0..2 {
            w.accept_members(i);
        }
        w
    }

    fn current(&self) -> Vec<usize> {
        (0..self.members.len())
            .filter(|&i| self.members[i].member)
            .collect()
    }

    fn pick(&self, n: u8) -> usize {
        let current = self.current();
        current[usize::from(n) % current.len()]
    }

    /// Member `i` accepts every other current member as a key sender.
    fn accept_members(&mut self, i: usize) {
        for j in self.current() {
            if j != i {
                let tk = self.members[i]
                    .trust
                    .trusted(SUBJECTS[j], &self.members[j].recipient())
                    .unwrap();
                self.members[i].state.accept_sender(&tk).unwrap();
            }
        }
    }

    /// Member `i` prepares a roll to the current members, posts it, and
    /// commits it unless the server answers 409. The key is recorded as
    /// honest for its generation.
    fn roll(&mut self, i: usize, commit: bool) {
        let recipients: Vec<TrustedKey> = self
            .current()
            .into_iter()
            .map(|j| {
                let m = &self.members[i];
                if j == i {
                    TrustedKey::own(m.subject, &m.key)
                } else {
                    m.trust
                        .trusted(SUBJECTS[j], &self.members[j].recipient())
                        .unwrap()
                }
            })
            .collect();
        let m = &mut self.members[i];
        let roll = m.state.prepare_roll(&m.key, &recipients).unwrap();
        let generation = roll.key_generation();
        assert_eq!(
            Some(generation),
            m.state.high_water().map_or(Some(0), |g| g.checked_add(1))
        );
        // Learn the key from the maker's wrap to itself.
        let to_self = roll
            .wraps()
            .iter()
            .find(|w| w.recipient_key_id.as_deref() == Some(m.key.key_id().as_str()))
            .unwrap();
        let key = unwrap_stream_key(
            ROOT,
            to_self,
            std::slice::from_ref(&m.key),
            &[m.recipient()],
        )
        .unwrap()
        .key;
        self.honest.entry(generation).or_default().push(key);
        self.store.extend(roll.wraps().iter().cloned());
        if commit {
            assert_eq!(m.state.commit_roll(roll).unwrap(), generation);
        }
    }

    /// The generation the server says is current when it tells the truth.
    fn truth(&self) -> u32 {
        self.honest.keys().next_back().copied().unwrap_or(0)
    }

    fn sync(&mut self, i: usize, announce: Announce) {
        let current = match announce {
            Announce::Truth => self.truth(),
            Announce::Zero => 0,
            Announce::Max => u32::MAX,
            Announce::Small(n) => u32::from(n % 8),
        };
        let listed = KeyWraps {
            current_key_generation: current,
            owner_user_id: OWNER.to_owned(),
            wraps: self.store.clone(),
            extra: Default::default(),
        };
        let m = &mut self.members[i];
        let report = open_key_wraps(
            &mut m.state,
            &m.trust,
            &listed,
            std::slice::from_ref(&m.key),
        )
        .unwrap();
        for skipped in &report.skipped {
            assert_eq!(skipped.code, ErrorCode::UntrustedWrap, "{skipped:?}");
        }
        assert!(m.state.is_sealed());
    }

    fn seal(&mut self, i: usize) {
        self.seals += 1;
        let m = &self.members[i];
        let before = m.state.high_water();
        let slot = Slot::Message {
            stream_id: ROOT.into(),
            message_id: format!("msg_{}", self.seals),
            author_id: m.subject.into(),
            author_type: m.key.kind().as_str().into(),
            revision: 1,
        };
        let signer = Signer::new(m.subject, &m.key).unwrap();
        match envelope::seal(m.state.keyring(), &signer, &slot, b"hello") {
            Ok(sealed) => {
                let g = sealed.envelope.key_generation;
                assert!(
                    before.is_some_and(|hw| g >= hw),
                    "sealed under {g} below {before:?}"
                );
                assert_eq!(Some(g), m.state.keyring().current_generation());
                let ring = |key: &StreamKey| {
                    let mut ring = Keyring::new(ROOT).unwrap();
                    ring.insert(g, key.clone()).unwrap();
                    ring
                };
                // The sealer's own view (its key: verified), and another
                // honest member's (the sealer's key pinned on first use).
                let own = SenderKeys::new(&m.trust).with_own(m.subject, &m.key);
                let other = &self.members[(i + 1) % self.members.len()];
                let peer = SenderKeys::new(&other.trust);
                let honest = self.honest.get(&g).map(Vec::as_slice).unwrap_or(&[]);
                let opened = honest
                    .iter()
                    .find_map(|k| envelope::open(&ring(k), &own, &slot, &sealed).ok());
                let opened = opened.unwrap_or_else(|| {
                    panic!("sealed under generation {g} with no honest key of it")
                });
                assert_eq!(opened.key_generation, g);
                assert_eq!(opened.sealed_by.subject, m.subject);
                assert_eq!(opened.sealed_by.status, TrustLevel::Verified);
                let seen = honest
                    .iter()
                    .find_map(|k| envelope::open(&ring(k), &peer, &slot, &sealed).ok())
                    .unwrap();
                assert_eq!(seen.sealed_by.status, TrustLevel::Unverified);
                assert_eq!(seen.sealed_by.key_id, m.key.key_id().as_str());
                for k in self.forbidden.get(&g).map(Vec::as_slice).unwrap_or(&[]) {
                    assert_eq!(
                        envelope::open(&ring(k), &own, &slot, &sealed)
                            .unwrap_err()
                            .code(),
                        ErrorCode::DecryptionFailed
                    );
                }
            }
            Err(e) => assert!(
                matches!(
                    e.code(),
                    ErrorCode::UnknownKeyGeneration | ErrorCode::KeyGenerationConflict
                ),
                "{e:?}"
            ),
        }
    }

    fn restart(&mut self, i: usize) {
        let m = &mut self.members[i];
        let before = (m.state.high_water(), m.state.keyring().generations());
        m.state = StreamState::from_bytes(&m.state.to_bytes(&m.key).unwrap(), &m.key).unwrap();
        m.trust = TrustStore::from_bytes(&m.trust.to_bytes(&m.key).unwrap(), &m.key).unwrap();
        assert_eq!(
            (m.state.high_water(), m.state.keyring().generations()),
            before
        );
    }

    fn apply(&mut self, op: &Op) {
        match *op {
            Op::Roll(n) => {
                let i = self.pick(n);
                self.roll(i, true);
            }
            Op::DroppedRoll(n) => {
                let i = self.pick(n);
                self.roll(i, false);
            }
            Op::Join(n) => {
                let Some(joiner) = (0..self.members.len())
                    .find(|&j| !self.members[j].member && !self.members[j].left)
                else {
                    return;
                };
                let roller = self.pick(n);
                self.members[joiner].member = true;
                for i in self.current() {
                    self.accept_members(i);
                }
                self.roll(roller, true);
            }
            Op::Leave(a, b) => {
                let leavers: Vec<usize> = self.current().into_iter().filter(|&j| j != 0).collect();
                if leavers.is_empty() {
                    return;
                }
                let leaver = leavers[usize::from(a) % leavers.len()];
                self.members[leaver].member = false;
                self.members[leaver].left = true;
                let key_id = self.members[leaver].key.key_id().clone();
                for i in self.current() {
                    assert!(
                        self.members[i]
                            .state
                            .remove_sender(SUBJECTS[leaver], &key_id)
                    );
                }
                let roller = self.pick(b);
                self.roll(roller, true);
            }
            Op::Restart(n) => {
                let i = self.pick(n);
                self.restart(i);
            }
            Op::Sync(n, announce) => {
                let i = self.pick(n);
                self.sync(i, announce);
            }
            Op::Seal(n) => {
                let i = self.pick(n);
                self.seal(i);
            }
            Op::Mint {
                target,
                posing,
                generation,
                base_mode,
            } => {
                let t = self.pick(target);
                let to = self.members[t].recipient();
                let posing_as = self.members[usize::from(posing) % self.members.len()].recipient();
                let g = generation.resolve(self.members[t].state.high_water());
                let key = StreamKey::generate().unwrap();
                let wrap = if base_mode {
                    base_mode_wrap(g, &key, &posing_as, &to)
                } else {
                    // The server's own key pair, under the posed kind and key id.
                    let server = IdentityKey::from_secret(
                        posing_as.kind.clone(),
                        posing_as.key_id.clone(),
                        SecretKey::generate().unwrap(),
                    );
                    wrap_stream_key(ROOT, g, &key, &server, &to).unwrap()
                };
                self.forbidden.entry(g).or_default().push(key);
                self.store.push(wrap);
            }
            Op::Replay(i) => {
                if !self.store.is_empty() {
                    let w = self.store[usize::from(i) % self.store.len()].clone();
                    self.store.push(w);
                }
            }
            Op::Move(i, generation) => {
                if !self.store.is_empty() {
                    let mut w = self.store[usize::from(i) % self.store.len()].clone();
                    let t = (0..self.members.len())
                        .find(|&j| {
                            w.recipient_key_id.as_deref()
                                == Some(self.members[j].key.key_id().as_str())
                        })
                        .unwrap();
                    w.key_generation = generation.resolve(self.members[t].state.high_water());
                    self.store.push(w);
                }
            }
            Op::Redirect(i, target) => {
                if !self.store.is_empty() {
                    let mut w = self.store[usize::from(i) % self.store.len()].clone();
                    let to = self.members[self.pick(target)].recipient();
                    w.recipient_key_id = Some(to.key_id.as_str().to_owned());
                    w.recipient_kind = Some(to.kind);
                    self.store.push(w);
                }
            }
            Op::Former { target, generation } => {
                let Some(former) = (0..self.members.len()).find(|&j| self.members[j].left) else {
                    return;
                };
                let t = self.pick(target);
                let g = generation.resolve(self.members[t].state.high_water());
                let key = StreamKey::generate().unwrap();
                let wrap = wrap_stream_key(
                    ROOT,
                    g,
                    &key,
                    &self.members[former].key,
                    &self.members[t].recipient(),
                )
                .unwrap();
                self.forbidden.entry(g).or_default().push(key);
                self.store.push(wrap);
            }
        }
    }

    /// The invariants, for every current member (see the module docs).
    fn check(&mut self, step: usize) {
        for i in self.current() {
            let m = &mut self.members[i];
            let hw = m.state.high_water();
            assert!(
                hw >= m.high_water,
                "step {step}: member {i}'s high-water fell from {:?} to {hw:?}",
                m.high_water
            );
            m.high_water = hw;
            assert!(m.state.keyring().current_generation() >= hw);
            let ring = m.state.keyring();
            for g in ring.generations() {
                let held = ring.key(g).unwrap();
                assert!(
                    self.honest.get(&g).is_some_and(|ks| ks.contains(held)),
                    "step {step}: member {i} holds a key for generation {g} no honest member made for it"
                );
                assert!(
                    !self.forbidden.get(&g).is_some_and(|ks| ks.contains(held)),
                    "step {step}: member {i} holds a forged key for generation {g}"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Joins, leaves, rolls, restarts and a hostile server's wraps in any
    /// order: an honest member only ever holds and seals under keys honest
    /// members made, and its high-water never falls.
    #[test]
    fn honest_members_never_take_a_forged_key_nor_fall_back(
        ops in proptest::collection::vec(op_strategy(), 1..16)
    ) {
        let mut w = World::new();
        w.check(0);
        for (step, op) in ops.iter().enumerate() {
            w.apply(op);
            w.check(step + 1);
        }
        // In the end every current member syncs and seals once more.
        for i in w.current() {
            w.sync(i, Announce::Truth);
            w.check(ops.len() + 1);
            w.seal(i);
        }
    }
}

/// A fixed history through every kind of step, so that each path of the
/// model runs at least once whatever proptest draws.
#[test]
fn every_kind_of_step_at_least_once() {
    let ops = [
        Op::Roll(0),
        Op::Sync(1, Announce::Truth),
        Op::Seal(0),
        Op::Mint {
            target: 0,
            posing: 1,
            generation: Gen::Next,
            base_mode: false,
        },
        Op::Mint {
            target: 0,
            posing: 0,
            generation: Gen::Next,
            base_mode: true,
        },
        Op::Sync(0, Announce::Max),
        Op::Seal(0),
        Op::Join(1),
        Op::Sync(2, Announce::Truth),
        Op::Seal(2),
        Op::DroppedRoll(2),
        Op::Replay(3),
        Op::Move(1, Gen::Max),
        Op::Redirect(0, 1),
        Op::Restart(0),
        Op::Sync(0, Announce::Zero),
        Op::Seal(0),
        Op::Leave(0, 0),
        Op::Former {
            target: 0,
            generation: Gen::Next,
        },
        Op::Sync(0, Announce::Small(1)),
        Op::Seal(0),
        Op::Join(0),
        Op::Roll(1),
        Op::Sync(0, Announce::Truth),
        Op::Seal(0),
    ];
    let mut w = World::new();
    for (step, op) in ops.iter().enumerate() {
        w.apply(op);
        w.check(step + 1);
    }
    // The owner ended up sealing under the newest generation it holds.
    assert!(w.members[0].state.high_water().is_some());
    assert!(!w.forbidden.is_empty());
}
