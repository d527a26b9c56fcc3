"""streamseal: sealed-stream crypto, wire types and sans-IO request building of
the workspace messaging API, the Rust core through UniFFI.

Every exported name of the four UniFFI namespaces is here, flat:
`streamseal.seal_message`, `streamseal.IdentityKey`, `streamseal.Slot`,
`streamseal.StreamsealError`, ... (the generated modules are in
`streamseal._uniffi`; the names are the binding's, see the README of
bindings/uniffi). Calls are synchronous; the Argon2id ones (`set_up_user_key`,
`unlock`, `create_bundle`, `open_bundle`, `change_passphrase`) block for the
KDF's duration.
"""

from ._uniffi import *  # noqa: F401,F403
