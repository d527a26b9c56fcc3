//! Wire types of the workspace messaging API (filled in by the wire-types work).
