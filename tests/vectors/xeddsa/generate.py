#!/usr/bin/env python3
"""XEd25519 cross-check vectors from an independent implementation.

The independent implementation is libxeddsa (C, on libsodium/ref10) through
its Python binding, the PyPI package `xeddsa` (Syndace). Run with that
package installed (tests/vectors/README.md says which version and how):

    generate.py sign > libxeddsa_signatures.json
        Signatures made by libxeddsa with given keys, messages and 64-byte
        nonces (Z in the XEdDSA spec), for our crate to verify and to
        reproduce byte for byte.

    generate.py check OURS.json > streamseal_signatures_checked.json
        Verifies with libxeddsa the signatures our crate made (OURS.json is
        printed by the ignored test `emit_streamseal_signatures` in
        crates/streamseal/tests/it/xeddsa_vectors.rs) and records the verdicts,
        with those for a flipped bit, another message and another key.

XEdDSA over libxeddsa's primitives, as the spec (sections 2.3 and 3) and
libxeddsa's README compose them:
    sign(k, M, Z):   a = priv_force_sign(k, False)   # calculate_key_pair(k)
                     ed25519_priv_sign(a, M, Z)
    verify(u, M, s): A = curve25519_pub_to_ed25519_pub(u, False)   # convert_mont(u)
                     ed25519_verify(s, A, M)
Every input is derived from SHA-512 of a fixed label, so a rerun gives the
same bytes.
"""

import hashlib
import json
import sys

import xeddsa
from xeddsa.bindings import lib

LABEL = b"streamseal xeddsa cross-check "


def h(label: str, n: int) -> bytes:
    out = b""
    i = 0
    while len(out) < n:
        out += hashlib.sha512(LABEL + label.encode() + b" " + str(i).encode()).digest()
        i += 1
    return out[:n]


def lib_version() -> str:
    return f"{lib.XEDDSA_VERSION_MAJOR}.{lib.XEDDSA_VERSION_MINOR}.{lib.XEDDSA_VERSION_REVISION}"


def source() -> dict:
    return {
        "implementation": "libxeddsa (C, libsodium/ref10), through the PyPI package xeddsa",
        "package": f"xeddsa {xeddsa.__version__}",
        "libxeddsa": lib_version(),
        "script": "tests/vectors/xeddsa/generate.py",
    }


def xed_sign(priv: bytes, msg: bytes, nonce: bytes) -> bytes:
    return xeddsa.ed25519_priv_sign(xeddsa.priv_force_sign(priv, False), msg, nonce)


def xed_verify(pub: bytes, msg: bytes, sig: bytes) -> bool:
    return xeddsa.ed25519_verify(sig, xeddsa.curve25519_pub_to_ed25519_pub(pub, False), msg)


def sign_cases() -> list:
    lengths = [0, 1, 31, 32, 33, 63, 64, 65, 127, 128, 255, 1000]
    cases = []
    for i in range(24):
        priv = h(f"key {i}", 32)
        msg = h(f"message {i}", lengths[i % len(lengths)])
        if i == 22:
            nonce, comment = bytes(64), "all-zero nonce"
        elif i == 23:
            nonce, comment = b"\xff" * 64, "all-0xff nonce"
        else:
            nonce, comment = h(f"nonce {i}", 64), ""
        cases.append((priv, msg, nonce, comment))
    return cases


def cmd_sign() -> dict:
    out = []
    for i, (priv, msg, nonce, comment) in enumerate(sign_cases()):
        pub = xeddsa.priv_to_curve25519_pub(priv)
        sign_bit = xeddsa.priv_to_ed25519_pub(priv)[31] >> 7
        sig = xed_sign(priv, msg, nonce)
        assert xed_verify(pub, msg, sig)
        # The signature is an Ed25519 signature under the sign-0 Edwards key.
        assert sig == xed_sign(priv, msg, nonce)
        out.append({
            "id": i,
            "comment": comment,
            "private": priv.hex(),
            "public": pub.hex(),
            "ed25519_sign_bit_of_kB": sign_bit,
            "message": msg.hex(),
            "nonce": nonce.hex(),
            "signature": sig.hex(),
        })
    bits = [c["ed25519_sign_bit_of_kB"] for c in out]
    assert 0 in bits and 1 in bits, "both branches of calculate_key_pair must be covered"
    return {
        "algorithm": "XEd25519 (Signal XEdDSA spec rev. 1, 2016-10-20, sections 2.3, 2.5 and 3, Curve25519 parameters of section 5)",
        "source": {**source(), "command": "generate.py sign"},
        "notes": "private: 32 raw bytes as stored (the implementations clamp); public: X25519 u; "
                 "ed25519_sign_bit_of_kB: the sign bit of the Edwards point kB, 1 where calculate_key_pair negates k; "
                 "nonce: the 64 random bytes Z; all fields hex.",
        "cases": out,
    }


def cmd_check(path: str) -> dict:
    with open(path) as f:
        ours = json.load(f)
    cases = ours["cases"]
    out = []
    for i, c in enumerate(cases):
        pub = bytes.fromhex(c["public"])
        msg = bytes.fromhex(c["message"])
        sig = bytes.fromhex(c["signature"])
        flipped = bytearray(sig)
        flipped[i % 64] ^= 1 << (i % 8)
        other_pub = bytes.fromhex(cases[(i + 1) % len(cases)]["public"])
        assert xeddsa.priv_to_curve25519_pub(bytes.fromhex(c["private"])) == pub
        out.append({
            **c,
            "ed25519_sign_bit_of_kB": xeddsa.priv_to_ed25519_pub(bytes.fromhex(c["private"]))[31] >> 7,
            "libxeddsa_verifies": xed_verify(pub, msg, sig),
            "libxeddsa_rejects_flipped_bit": not xed_verify(pub, msg, bytes(flipped)),
            "flipped_byte": i % 64,
            "flipped_bit": i % 8,
            "libxeddsa_rejects_other_message": not xed_verify(pub, msg + b"\x00", sig),
            "libxeddsa_rejects_other_key": not xed_verify(other_pub, msg, sig),
            "libxeddsa_reproduces_with_same_nonce": xed_sign(bytes.fromhex(c["private"]), msg,
                                                             bytes.fromhex(c["nonce"])) == sig,
        })
    forgeries = [
        {**f, "libxeddsa_verifies": xed_verify(bytes.fromhex(f["public"]), bytes.fromhex(f["message"]),
                                               bytes.fromhex(f["signature"]))}
        for f in ours["weak_key_forgeries"]
    ]
    return {
        "algorithm": "XEd25519 (Signal XEdDSA spec rev. 1, 2016-10-20, sections 2.3, 2.5 and 3, Curve25519 parameters of section 5)",
        "made_by": ours["made_by"],
        "checked_by": {**source(), "command": "generate.py check"},
        "notes": "Signatures made by streamseal::signature::sign (nonce queued through the test-seams "
                 "randomness); verdicts are libxeddsa's. Other message: the message with one 0x00 byte "
                 "appended; other key: the next case's public key. weak_key_forgeries: R = rB, s = r under "
                 "the small-order keys u = 0 and u = 1, made without any secret key.",
        "cases": out,
        "weak_key_forgeries": forgeries,
    }


def main() -> None:
    if sys.argv[1:2] == ["sign"]:
        doc = cmd_sign()
    elif sys.argv[1:2] == ["check"] and len(sys.argv) == 3:
        doc = cmd_check(sys.argv[2])
    else:
        sys.exit(__doc__)
    json.dump(doc, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
