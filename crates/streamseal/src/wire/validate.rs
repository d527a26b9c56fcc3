//! The checks behind every request's `validate()`.
//!
//! A request collects every failure into [`ValidationDetails`] (field to
//! reasons) and returns them together as
//! [`crate::Error::ValidationFailed`], the service's own 400 shape.
//!
//! Field names are the wire names. Nested fields are written as a path:
//! `.` between an object and its field, `[i]` for the i-th array item, for
//! example `reply.messageId`, `wraps[0].recipientKeyId`,
//! `sources[2].url`. Lengths count characters (Unicode scalar values), as the
//! spec's bounds say "characters" and as [`crate::identity::KeyId`] counts.
//! The service's own reason texts are not shown in the spec; the reasons
//! here name the bound, and the field keys are what a front end matches on.

use crate::error::{Error, Result, ValidationDetails};

/// A collector of validation failures.
#[derive(Debug, Default)]
pub(crate) struct Check {
    details: ValidationDetails,
}

/// `parent.child`.
pub(crate) fn path(parent: &str, child: &str) -> String {
    format!("{parent}.{child}")
}

/// `parent[index]`.
pub(crate) fn item(parent: &str, index: usize) -> String {
    format!("{parent}[{index}]")
}

impl Check {
    /// An empty collector.
    pub(crate) fn new() -> Self {
        Check::default()
    }

    /// Records a failure of `field`.
    pub(crate) fn fail(&mut self, field: &str, reason: impl Into<String>) {
        self.details
            .entry(field.to_owned())
            .or_default()
            .push(reason.into());
    }

    /// `value` has `min..=max` characters.
    pub(crate) fn len(&mut self, field: &str, value: &str, min: usize, max: usize) {
        let n = value.chars().count();
        if n < min {
            self.fail(
                field,
                if min == 1 {
                    "must not be empty".to_owned()
                } else {
                    format!("must be at least {min} characters")
                },
            );
        } else if n > max {
            self.fail(field, format!("must be at most {max} characters"));
        }
    }

    /// Like [`Check::len`] for an optional field (absent passes).
    pub(crate) fn opt_len(&mut self, field: &str, value: Option<&str>, min: usize, max: usize) {
        if let Some(value) = value {
            self.len(field, value, min, max);
        }
    }

    /// `value` has exactly `n` characters.
    pub(crate) fn exact_len(&mut self, field: &str, value: &str, n: usize) {
        if value.chars().count() != n {
            self.fail(field, format!("must be exactly {n} characters"));
        }
    }

    /// `value` is within `min..=max`.
    pub(crate) fn range(&mut self, field: &str, value: u64, min: u64, max: u64) {
        if !(min..=max).contains(&value) {
            self.fail(field, format!("must be between {min} and {max}"));
        }
    }

    /// Like [`Check::range`] for an optional field (absent passes).
    pub(crate) fn opt_range(&mut self, field: &str, value: Option<u32>, min: u64, max: u64) {
        if let Some(value) = value {
            self.range(field, u64::from(value), min, max);
        }
    }

    /// An array has at most `max` items.
    pub(crate) fn count(&mut self, field: &str, n: usize, max: usize) {
        if n > max {
            self.fail(field, format!("must have at most {max} items"));
        }
    }

    /// A request enum value is one the spec allows.
    pub(crate) fn known(&mut self, field: &str, is_known: bool, allowed: &[&str]) {
        if !is_known {
            self.fail(field, format!("must be one of: {}", allowed.join(", ")));
        }
    }

    /// `Ok(())` when nothing failed, else every failure at once.
    pub(crate) fn finish(self) -> Result<()> {
        if self.details.is_empty() {
            Ok(())
        } else {
            Err(Error::ValidationFailed {
                details: self.details,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_every_failure_under_its_path() {
        let mut c = Check::new();
        c.len("a", "", 1, 3);
        c.len("a", "abcd", 1, 3);
        c.exact_len(&path("b", "c"), "xy", 3);
        c.range(&item("d", 2), 301, 15, 300);
        c.len("ok", "é", 1, 1);
        let details = c.finish().err().and_then(|e| e.details().cloned());
        let keys: Vec<String> = details.map(|d| d.into_keys().collect()).unwrap_or_default();
        assert_eq!(keys, ["a", "b.c", "d[2]"]);
    }
}
