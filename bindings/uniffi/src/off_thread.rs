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
//! Secrets in a dropped result are zeroized as everywhere else.
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

/// Runs `work` on a thread of its own and awaits its result; a panic in it
/// resumes in the awaiting call, as it would have in the blocking one. When
/// no thread can be started, `work` runs in place.
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
            if let Some(work) = work {
                // The receiver may be gone (the call was cancelled): the
                // result is then dropped here.
                let _ = tx.send(catch_unwind(AssertUnwindSafe(work)));
            }
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
    off_thread("set-up", move || {
        crate::sealed::set_up_user_key(key_id, passphrase, params)
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
    off_thread("unlock", move || {
        crate::sealed::unlock(record_json, passphrase, limits)
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
    off_thread("change-passphrase", move || {
        crate::sealed::change_passphrase(
            record_json,
            old_passphrase,
            new_passphrase,
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
    off_thread("create-bundle", move || {
        crate::crypto::create_bundle(secret, passphrase, params)
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
    off_thread("open-bundle", move || {
        crate::crypto::open_bundle(public_key, bundle, passphrase, limits)
    })
    .await
}
