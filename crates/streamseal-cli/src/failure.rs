//! The CLI's one error type: a stable code and a one-line message, printed
//! as `error[CODE]: message` with exit status 1 (usage errors exit 2).

use std::fmt;

/// A failed command.
#[derive(Debug)]
pub struct Failure {
    /// The library's stable code, or `IO` / `USAGE` for the CLI's own.
    pub code: String,
    /// One line, no stack trace.
    pub message: String,
}

impl Failure {
    /// A usage mistake the argument parser cannot catch.
    pub fn usage(message: impl Into<String>) -> Self {
        Failure {
            code: "USAGE".into(),
            message: message.into(),
        }
    }

    /// A file or terminal problem.
    pub fn io(what: impl fmt::Display, err: impl fmt::Display) -> Self {
        Failure {
            code: "IO".into(),
            message: format!("{what}: {err}"),
        }
    }
}

impl From<streamseal::CryptoError> for Failure {
    fn from(e: streamseal::CryptoError) -> Self {
        streamseal::Error::from(e).into()
    }
}

impl From<streamseal::Error> for Failure {
    fn from(e: streamseal::Error) -> Self {
        Failure {
            code: e.code().as_str().to_owned(),
            message: e.to_string(),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error[{}]: {}", self.code, self.message)
    }
}

/// The CLI's result type.
pub type Outcome<T = ()> = Result<T, Failure>;
