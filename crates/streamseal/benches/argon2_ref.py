"""Reference-C Argon2id worker for `benches/argon2_vs_c.rs`.

Reads lines `m t p salt_hex secret_hex` on stdin, runs the reference C
implementation (libargon2, through argon2-cffi's low-level API) once, and
prints `<nanoseconds> <hash hex>`. The Rust bench alternates calls to this
worker with its own, so both are timed side by side on the same machine.
An empty line ends the worker.

Prints `ready <argon2-cffi version>` first, or `missing <reason>` if
argon2-cffi cannot be imported.
"""

import sys
import time

from importlib.metadata import version

try:
    from argon2.low_level import Type, hash_secret_raw
except ImportError as e:  # reported to the Rust side, which skips the C rows
    print(f"missing {e}", flush=True)
    sys.exit(0)

print(
    f"ready argon2-cffi {version('argon2-cffi')}, "
    f"argon2-cffi-bindings {version('argon2-cffi-bindings')}",
    flush=True,
)
for line in sys.stdin:
    line = line.strip()
    if not line:
        break
    m, t, p, salt_hex, secret_hex = line.split()
    salt = bytes.fromhex(salt_hex)
    secret = bytes.fromhex(secret_hex)
    start = time.perf_counter_ns()
    out = hash_secret_raw(
        secret=secret,
        salt=salt,
        time_cost=int(t),
        memory_cost=int(m),
        parallelism=int(p),
        hash_len=32,
        type=Type.ID,
        version=19,
    )
    elapsed = time.perf_counter_ns() - start
    print(f"{elapsed} {out.hex()}", flush=True)
