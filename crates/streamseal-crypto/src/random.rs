//! Randomness: only from the operating system (or `crypto.getRandomValues`
//! in browsers) through `getrandom`.
//!
//! With the `test-seams` feature, tests can queue fixed bytes for the current
//! thread (see `crate::testing`); shipped builds have no such path.

use crate::error::{Error, Result};

/// Fills `buf` with random bytes, or fails with `RANDOMNESS_UNAVAILABLE`.
///
/// # Errors
///
/// `RANDOMNESS_UNAVAILABLE` when the operating system has none to give.
pub fn fill(buf: &mut [u8]) -> Result<()> {
    #[cfg(feature = "test-seams")]
    if let Some(result) = seam::take(buf) {
        return result;
    }
    getrandom::fill(buf).map_err(|_| Error::RandomnessUnavailable)
}

/// Returns `N` random bytes.
///
/// # Errors
///
/// `RANDOMNESS_UNAVAILABLE` when the operating system has none to give.
pub fn array<const N: usize>() -> Result<[u8; N]> {
    let mut out = [0u8; N];
    fill(&mut out)?;
    Ok(out)
}

#[cfg(feature = "test-seams")]
pub(crate) mod seam {
    use std::cell::RefCell;
    use std::collections::VecDeque;

    use crate::error::{Error, Result};

    thread_local! {
        static QUEUE: RefCell<Option<VecDeque<u8>>> = const { RefCell::new(None) };
    }

    /// Installs (or with `None`, removes) the fixed byte queue of this thread.
    pub(crate) fn set(bytes: Option<Vec<u8>>) {
        QUEUE.with(|q| *q.borrow_mut() = bytes.map(VecDeque::from));
    }

    /// Bytes still queued, if a queue is installed.
    pub(crate) fn remaining() -> Option<usize> {
        QUEUE.with(|q| q.borrow().as_ref().map(VecDeque::len))
    }

    /// Serves `buf` from the queue when one is installed. An exhausted queue is
    /// an error, so a test never silently falls back to real randomness.
    pub(crate) fn take(buf: &mut [u8]) -> Option<Result<()>> {
        QUEUE.with(|q| {
            let mut q = q.borrow_mut();
            let queue = q.as_mut()?;
            if queue.len() < buf.len() {
                return Some(Err(Error::RandomnessUnavailable));
            }
            for b in buf.iter_mut() {
                *b = queue.pop_front().unwrap_or(0);
            }
            Some(Ok(()))
        })
    }
}
