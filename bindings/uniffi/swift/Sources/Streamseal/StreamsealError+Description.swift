// Hand-written (not generated): UniFFI's `LocalizedError` conformance builds
// `errorDescription` with `String(reflecting:)`, which uses `description`
// only for a `CustomStringConvertible` type. The generated enum has the
// exported Rust `Display` as `description`; declaring the conformance makes
// `localizedDescription` read `CODE: message` (uniffi-rs #2356).
// UNTESTED HERE: no Swift toolchain on the machines this is developed on.
extension StreamsealError: CustomStringConvertible {}
