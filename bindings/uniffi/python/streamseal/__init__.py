"""streamseal: sealed-stream crypto, wire types and sans-IO request building of
the workspace messaging API, the Rust core through UniFFI.

Every exported name of the four UniFFI namespaces is here, flat:
`streamseal.seal_message`, `streamseal.IdentityKey`, `streamseal.Slot`,
`streamseal.StreamsealError`, ... (the generated modules are in
`streamseal._uniffi`; the names are the binding's, see the README of
bindings/uniffi). Calls are synchronous; the Argon2id ones (`set_up_user_key`,
`unlock`, `create_bundle`, `open_bundle`, `change_passphrase`) block for the
KDF's duration, and each has an `async def` form (`unlock_async`, ...) that
runs it on a thread of its own, keeps the event loop running and can be
cancelled.
"""

from ._uniffi import *  # noqa: F401,F403

import atexit as _atexit

from ._uniffi import streamseal_ffi as _ffi

# An async KDF call (unlock_async, ...) runs on a thread of its own, which
# wakes its caller through a callback into Python when it ends; Python ends
# such a thread, aborting the process, if the interpreter is finalizing by
# then. Waiting for them at exit (before finalization) avoids that.
_atexit.register(_ffi.wait_for_background_work, 60_000)
