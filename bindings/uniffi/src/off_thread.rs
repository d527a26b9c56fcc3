//! Async forms of the calls that block for Argon2id (unlock, set up, change
//! passphrase, bundle create and open): `suspend fun` in Kotlin, `async` in
//! Swift, `async def` in Python.
//!
//! Each runs the blocking call on a thread of its own and awaits its result
//! through a oneshot channel, so it needs no Rust runtime and never blocks
//! the caller's executor (a Kotlin dispatcher, Swift's cooperative pool,
//! Python's event loop). Cancelling the caller's task (coroutine `cancel`,
//! `Task.cancel`, `asyncio` cancellation) drops the future at once, and the
//! result is dropped when the thread finishes; the key derivation itself
//! cannot be interrupted midway (Argon2 has no such point), so its memory
//! (64 MiB by default) is held until it ends, at most one KDF's duration.
//! Secrets in a dropped result are zeroized as everywhere else, and so is a
//! passphrase whose call is dropped before it ran (it is held in
//! `Zeroizing` from the call's start). At most two derivations run at once;
//! later calls wait for a turn, and a call cancelled while waiting never
//! starts.
//!
//! A thread that finishes wakes its caller through UniFFI's continuation
//! callback, on that thread. Python refuses such a thread the GIL once the
//! interpreter is finalizing and ends it with `pthread_exit`, which aborts
//! the process ("FATAL: exception not rethrown": seen here when a test
//! exited with a KDF still running, as moq-dev/moq#3766 saw for its runtime
//! thread). [`wait_for_background_work`] waits until no such thread is left;
//! the Python package calls it from `atexit`, before finalization begins.

use std::sync::Condvar;
use std::time::Duration;

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Arc, Mutex};

use futures_channel::oneshot;
use zeroize::Zeroizing;

use crate::error::Result;
use crate::keys::{IdentityKey, KdfLimits, SecretKey};
use crate::sealed::NewUserKey;
use streamseal::bundle::SealedBundle;
use streamseal::kdf::KdfParams;

/// How many KDF threads are running, and the signal of one ending.
static IN_FLIGHT: (Mutex<usize>, Condvar) = (Mutex::new(0), Condvar::new());

/// Counts a thread in; counts it out when dropped (also on a panic).
struct Running;

impl Running {
    fn start() -> Running {
        if let Ok(mut n) = IN_FLIGHT.0.lock() {
            *n += 1;
        }
        Running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(mut n) = IN_FLIGHT.0.lock() {
            *n = n.saturating_sub(1);
        }
        IN_FLIGHT.1.notify_all();
    }
}

/// Waits, at most `timeout_ms`, until no async KDF call is still running on
/// its thread (a cancelled one runs to its end); `true` when none is.
///
/// Python: the `streamseal` package registers this with `atexit`, so that
/// no such thread calls back into an interpreter that is finalizing (see
/// the module docs). Apps that embed the generated modules directly should
/// do the same.
#[uniffi::export]
pub fn wait_for_background_work(timeout_ms: u64) -> bool {
    let Ok(n) = IN_FLIGHT.0.lock() else {
        return false;
    };
    IN_FLIGHT
        .1
        .wait_timeout_while(n, Duration::from_millis(timeout_ms), |n| *n > 0)
        .is_ok_and(|(n, _)| *n == 0)
}

/// At most this many key derivations run at once (each holds up to the
/// record's memory cost, 64 MiB by default and 128 MiB at the open caps);
/// more wait for a turn, and one whose caller was cancelled meanwhile never
/// starts. An app that cancels and retries cannot stack them.
const MAX_RUNNING: usize = 2;

/// How many derivations run now, and the signal of one ending.
static TURNS: (Mutex<usize>, Condvar) = (Mutex::new(0), Condvar::new());

/// A turn to run a derivation, given back when dropped (also on a panic).
struct Turn;

impl Turn {
    /// Waits for a turn; `None` when `cancelled()` turns true first.
    fn wait(cancelled: impl Fn() -> bool) -> Option<Turn> {
        let mut running = TURNS.0.lock().ok()?;
        loop {
            if cancelled() {
                return None;
            }
            if *running < MAX_RUNNING {
                *running += 1;
                return Some(Turn);
            }
            // Rechecks the caller's cancellation now and then.
            running = TURNS
                .1
                .wait_timeout(running, Duration::from_millis(50))
                .ok()?
                .0;
        }
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        if let Ok(mut running) = TURNS.0.lock() {
            *running = running.saturating_sub(1);
        }
        TURNS.1.notify_all();
    }
}

/// Runs `work` on a thread of its own and awaits its result; a panic in it
/// resumes in the awaiting call, as it would have in the blocking one. When
/// no thread can be started (only an exhausted system), `work` runs in
/// place, blocking the caller as the synchronous form does.
async fn off_thread<T: Send + 'static>(
    name: &str,
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    let (tx, rx) = oneshot::channel();
    let job = Arc::new(Mutex::new(Some(work)));
    let on_thread = Arc::clone(&job);
    let running = Running::start();
    let spawned = std::thread::Builder::new()
        .name(format!("streamseal-{name}"))
        .spawn(move || {
            // Counted out only after the wake below (dropped last).
            let _running = running;
            let work = on_thread.lock().ok().and_then(|mut slot| slot.take());
            let Some(work) = work else { return };
            // A call cancelled while it waited for its turn never starts.
            let Some(turn) = Turn::wait(|| tx.is_canceled()) else {
                return;
            };
            let result = catch_unwind(AssertUnwindSafe(work));
            drop(turn);
            // The receiver may be gone (the call was cancelled): the
            // result is then dropped here (secrets in it are zeroized).
            let _ = tx.send(result);
        });
    if spawned.is_err() {
        let work = job.lock().ok().and_then(|mut slot| slot.take());
        if let Some(work) = work {
            return work();
        }
    }
    match rx.await {
        Ok(Ok(result)) => result,
        Ok(Err(panic)) => resume_unwind(panic),
        // The thread ended without sending: it can only have been unable to
        // take the job, which the spawn failure above already ran.
        Err(oneshot::Canceled) => resume_unwind(Box::new(
            "streamseal: the KDF thread ended without a result",
        )),
    }
}

/// [`crate::sealed::set_up_user_key`] on a thread of its own (see the module docs).
#[uniffi::export]
pub async fn set_up_user_key_async(
    key_id: String,
    passphrase: Vec<u8>,
    params: KdfParams,
) -> Result<NewUserKey> {
    let mut passphrase = Zeroizing::new(passphrase);
    off_thread("set-up", move || {
        crate::sealed::set_up_user_key(key_id, std::mem::take(&mut *passphrase), params)
    })
    .await
}

/// [`crate::sealed::unlock`] on a thread of its own (see the module docs).
#[uniffi::export]
pub async fn unlock_async(
    record_json: String,
    passphrase: Vec<u8>,
    limits: KdfLimits,
) -> Result<Arc<IdentityKey>> {
    let mut passphrase = Zeroizing::new(passphrase);
    off_thread("unlock", move || {
        crate::sealed::unlock(record_json, std::mem::take(&mut *passphrase), limits)
    })
    .await
}

/// [`crate::sealed::change_passphrase`] on a thread of its own (see the module docs).
#[uniffi::export]
pub async fn change_passphrase_async(
    record_json: String,
    old_passphrase: Vec<u8>,
    new_passphrase: Vec<u8>,
    params: KdfParams,
    limits: KdfLimits,
) -> Result<String> {
    let (mut old, mut new) = (
        Zeroizing::new(old_passphrase),
        Zeroizing::new(new_passphrase),
    );
    off_thread("change-passphrase", move || {
        crate::sealed::change_passphrase(
            record_json,
            std::mem::take(&mut *old),
            std::mem::take(&mut *new),
            params,
            limits,
        )
    })
    .await
}

/// [`crate::crypto::create_bundle`] on a thread of its own (see the module docs).
#[uniffi::export]
pub async fn create_bundle_async(
    secret: Arc<SecretKey>,
    passphrase: Vec<u8>,
    params: KdfParams,
) -> Result<SealedBundle> {
    let mut passphrase = Zeroizing::new(passphrase);
    off_thread("create-bundle", move || {
        crate::crypto::create_bundle(secret, std::mem::take(&mut *passphrase), params)
    })
    .await
}

/// [`crate::crypto::open_bundle`] on a thread of its own (see the module docs).
#[uniffi::export]
pub async fn open_bundle_async(
    public_key: String,
    bundle: SealedBundle,
    passphrase: Vec<u8>,
    limits: KdfLimits,
) -> Result<Arc<SecretKey>> {
    let mut passphrase = Zeroizing::new(passphrase);
    off_thread("open-bundle", move || {
        crate::crypto::open_bundle(public_key, bundle, std::mem::take(&mut *passphrase), limits)
    })
    .await
}
