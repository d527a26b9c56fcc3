"""A bot runtime using the installed `streamseal` wheel, and nothing else.

`cargo xtask package --consumers python` copies this file into a scratch
directory (target/package-consumers/python), creates a fresh venv there,
`pip install`s only the wheel from target/package, and runs

    python -I bot.py 0.1.0   (the expected version; exits non-zero on any wrong result)
    mypy --strict bot.py     (the public names are typed)

No file of the repository is on sys.path: this is what an app's bot sees.

The story: the stream's owner sets up a passphrase-protected user key and
unlocks it; the bot's machine keeps its own identity key in a passphrase
bundle and unlocks it at start. The owner makes generation 0 of a sealed
stream for itself and the machine, then mentions the bot in a sealed
message. The bot opens its key wraps and the claimed invocation, reads the
prompt, persists its state, and seals a reply, which the owner opens.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import sys
import sysconfig
from typing import Any, Callable, Dict, List

import streamseal

ROOT = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M"
OWNER_ID = "usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q1"
BOT_ID = "bot_01JD3QB0T0000000000000000B"
INVOCATION_ID = "inv_01JD3QN9E1G3J5M7Q9S1V3X5Z7"


def check(ok: bool, what: str) -> None:
    """An assertion that `python -O` does not remove."""
    if not ok:
        raise AssertionError(what)


def raises(code: str, call: Callable[[], object]) -> None:
    """`call` must raise the binding's error with this stable code.

    Caught as the base `StreamsealError` and told apart by `code`: mypy does not
    see the variant classes (`StreamsealError.WrongPassphrase`, ...), which the
    generated module attaches at run time.
    """
    try:
        call()
    except streamseal.StreamsealError as e:  # every variant is a subclass
        got = getattr(e, "code", None)
        check(got == code, f"expected {code}, got {got}: {e}")
        return
    raise AssertionError(f"expected {code}, nothing raised")


def the_installed_wheel(expected_version: str) -> None:
    """The package comes from the venv's site-packages, at the version given (if any)."""
    here = os.path.realpath(os.path.dirname(streamseal.__file__))
    site = os.path.realpath(sysconfig.get_paths()["purelib"])
    check(here.startswith(site + os.sep), f"streamseal imported from {here}, not from {site}")
    version = importlib.metadata.version("streamseal")
    check(version == expected_version or not expected_version, f"version {version}, expected {expected_version}")
    typed = os.path.join(here, "py.typed")
    check(os.path.isfile(typed), "py.typed is installed")


def machine_key_from_bundle() -> streamseal.IdentityKey:
    """The bot's machine keeps its identity key in a passphrase bundle and unlocks it at start."""
    machine = streamseal.IdentityKey.generate("bot", "machine-a")
    passphrase = "bot machine passphrase".encode("utf-8")
    bundle = streamseal.create_bundle(machine.secret_key(), passphrase, streamseal.kdf_params_creation_floor())
    check(bundle.kdf_params == streamseal.kdf_params_creation_floor(), "bundle KDF parameters")
    limits = streamseal.kdf_limits_default()
    raises("WRONG_PASSPHRASE", lambda: streamseal.open_bundle(machine.public_key(), bundle, b"guess", limits))
    secret = streamseal.open_bundle(machine.public_key(), bundle, passphrase, limits)
    unlocked = streamseal.IdentityKey.from_secret("bot", "machine-a", secret)
    check(unlocked.public_key() == machine.public_key(), "the bundle gives the same key back")
    check(unlocked.recipient() == machine.recipient(), "same recipient record")
    return unlocked


def owner_key() -> streamseal.IdentityKey:
    """The owner's passphrase key: set up once (the server stores the record), unlocked from it."""
    passphrase = "correct horse battery staple".encode("utf-8")
    new = streamseal.set_up_user_key("key_owner_laptop", passphrase, streamseal.kdf_params_creation_floor())
    record: Dict[str, Any] = json.loads(new.record_json)
    record["createdAt"] = "2026-11-21T10:00:00Z"  # the server adds it
    limits = streamseal.kdf_limits_default()
    raises("WRONG_PASSPHRASE", lambda: streamseal.unlock(json.dumps(record), b"wrong horse", limits))
    owner = streamseal.unlock(json.dumps(record), passphrase, limits)
    check(owner.public_key() == new.key.public_key(), "unlocked the key that was set up")
    check((owner.kind(), owner.key_id()) == ("user", "key_owner_laptop"), "kind and key id")
    return owner


def wrap_primitive(owner: streamseal.IdentityKey, machine: streamseal.IdentityKey) -> None:
    """A stream key wrapped by the machine to the owner opens only as made by the machine."""
    key = streamseal.StreamKey.generate()
    wrap = streamseal.wrap_stream_key(ROOT, 7, key, machine, owner.recipient())
    check(wrap.key_generation == 7, "wrap generation")
    opened = streamseal.unwrap_stream_key(ROOT, wrap, [owner], [machine.recipient()])
    check(opened.key.equals(key) and opened.sender == 0 and opened.recipient == 0, "unwrapped the same key")
    stranger = streamseal.IdentityKey.generate("bot", "machine-z")
    raises("UNTRUSTED_WRAP", lambda: streamseal.unwrap_stream_key(ROOT, wrap, [owner], [stranger.recipient()]))


def served_wraps(wraps: List[streamseal.KeyWrap], only_key_id: str = "") -> List[Dict[str, Any]]:
    """Wraps as the server lists them (key-wraps list, or an invocation's sealedContext)."""
    out: List[Dict[str, Any]] = []
    for w in wraps:
        if only_key_id and w.recipient_key_id != only_key_id:
            continue
        item: Dict[str, Any] = {"keyGeneration": w.key_generation, "wrapEnc": w.wrap_enc, "wrapCt": w.wrap_ct}
        if not only_key_id:
            item.update(recipientKeyId=w.recipient_key_id, recipientKind=w.recipient_kind)
        out.append(item)
    return out


def message_resource(message_id: str, author_id: str, author_type: str, sealed: Any, sequence: int) -> str:
    """A message as `GET streams/{id}/messages` returns it (the server's view)."""
    return json.dumps({
        "id": message_id, "clientMessageId": message_id, "streamId": ROOT, "sequence": str(sequence),
        "authorId": author_id, "authorType": author_type, "content": "[sealed]", "replyCount": 0,
        "metadata": {}, "revision": 1, "createdAt": "2026-11-21T10:00:00Z", "sealed": sealed,
    })


def invocation(invocation_id: str, prompt_id: str, prompt_sealed: Any, wraps: List[Dict[str, Any]]) -> str:
    """The invocation the runtime claims when the owner mentions the bot (the server's view)."""
    return json.dumps({
        "id": invocation_id, "workspaceId": "ws_01JD3Q00000000000000000000",
        "rootStreamId": ROOT, "activeStreamId": ROOT, "responseStreamId": ROOT,
        "actor": {"id": BOT_ID, "slug": "helper", "type": "bot"},
        "authorUserId": OWNER_ID, "sourceMessageId": prompt_id, "sourceRevision": 1,
        "trigger": "mention", "mentionedActorSlugs": ["helper"], "requiredCapability": "mentionable",
        "runtimeSessionId": "session-1", "metadata": {},
        "claimToken": "clm_consumer_token", "claimExpiresAt": "2026-11-21T10:01:00Z",
        "sealedContext": {
            "callbackToken": "cbt_consumer_token",
            "wraps": wraps,
            "prompt": prompt_sealed,
            "history": [],
            "reply": {"keyGeneration": 0, "senderId": BOT_ID},
            "trigger": {"messageId": prompt_id, "authorType": "user", "authorName": "Ada",
                        "createdAt": "2026-11-21T10:00:00Z"},
        },
    })


def main() -> None:
    the_installed_wheel(sys.argv[1] if len(sys.argv) > 1 else "")
    owner = owner_key()
    machine = machine_key_from_bundle()
    wrap_primitive(owner, machine)

    # The owner pins the machine's key from presence and makes generation 0.
    owner_trust = streamseal.TrustStore("tofu")
    machine_on_owner = owner_trust.admit(BOT_ID, machine.recipient())
    check(machine_on_owner.level() == "unverified", "pinned on first use")
    owner_state = streamseal.StreamState(ROOT)
    roll = owner_state.prepare_roll(owner, [streamseal.TrustedKey.own(OWNER_ID, owner), machine_on_owner])
    check(roll.key_generation() == 0 and len(roll.wraps()) == 2, "generation 0 for two keys")
    check([r.key_id for r in roll.roster()] == ["key_owner_laptop", "machine-a"], "roster")
    served = roll.wraps()
    check(owner_state.commit_roll(roll) == 0 and owner_state.is_sealed(), "generation 0 committed")

    # The owner mentions the bot in a sealed message.
    prompt_id = streamseal.mint_message_id(1_790_000_000_000)
    body = streamseal.seal_message(owner_state.keyring(), owner, OWNER_ID, ROOT, prompt_id,
                                   "@helper what changed since Friday?")
    streamseal.check_send_rules(owner_state.is_sealed(), True, body)
    raises("E2E_PAYLOAD_REQUIRES_E2E_STREAM", lambda: streamseal.check_send_rules(False, False, body))
    sent: Dict[str, Any] = json.loads(body)
    check("content" not in sent and sent["clientMessageId"] == prompt_id, "only ciphertext is sent")

    # The bot: pins the owner's key, accepts it as the key sender, opens its wraps.
    trust = streamseal.TrustStore("tofu")
    state = streamseal.StreamState(ROOT)
    state.set_owner(OWNER_ID)
    owner_record = json.dumps({"keyId": owner.key_id(), "publicKey": owner.public_key()})
    state.accept_sender(streamseal.owner_key(trust, OWNER_ID, owner_record))
    report = streamseal.open_key_wraps(state, trust, json.dumps(
        {"currentKeyGeneration": 0, "ownerUserId": OWNER_ID, "wraps": served_wraps(served)}), [machine])
    check([(a.key_generation, a.sender) for a in report.admitted] == [(0, OWNER_ID)], "generation 0 admitted")
    check(report.skipped == [] and report.conflicts == [] and state.high_water() == 0, "nothing skipped")

    # The bot reads the mention as a message of the stream...
    listed = streamseal.open_message(state.keyring(), trust, ROOT,
                                     message_resource(prompt_id, OWNER_ID, "user", sent["sealed"], 1))
    check(listed.text == "@helper what changed since Friday?", "message text")
    # Records of one namespace holding another's (streamseal_sealed's OpenedMessage, streamseal's SealedBy).
    check(isinstance(listed, streamseal.OpenedMessage) and isinstance(listed.sealed_by, streamseal.SealedBy),
          "cross-namespace records")
    check((listed.sealed_by.subject, listed.sealed_by.status) == (OWNER_ID, "unverified"), "signed by the owner")

    # ...and claims the invocation: the prompt opens through its state.
    opened = streamseal.OpenedInvocation.open(
        invocation(INVOCATION_ID, prompt_id, sent["sealed"], served_wraps(served, machine.key_id())), state, trust, BOT_ID, [machine])
    check(opened.invocation_id() == INVOCATION_ID, "invocation id")
    check(opened.prompt() == "@helper what changed since Friday?", "prompt text")
    by = opened.prompt_sealed_by()
    check((by.subject, by.kind, by.key_id, by.status) == (OWNER_ID, "user", "key_owner_laptop", "unverified"),
          f"prompt sealed by the owner: {by}")
    check(state.was_acted_on(prompt_id, 1), "the prompt is recorded as acted on")
    # A server replaying the prompt in another invocation is refused.
    replayed = invocation("inv_01JD3QN9E1G3J5M7Q9S1V3X5Z8", prompt_id, sent["sealed"],
                          served_wraps(served, machine.key_id()))
    raises("PROMPT_REPLAYED", lambda: streamseal.OpenedInvocation.open(replayed, state, trust, BOT_ID, [machine]))

    # The bot persists its state (sealed under its key) and restarts from it.
    saved = state.to_bytes(machine)
    restored = streamseal.StreamState.from_bytes(saved, machine)
    check(restored.high_water() == 0 and restored.owner_user_id() == OWNER_ID, "state restored")
    raises("STATE_AUTH_FAILED", lambda: streamseal.StreamState.from_bytes(saved, owner))

    # The reply, sealed by the machine as the bot, opens on the owner's device.
    reply_id = streamseal.mint_message_id(1_790_000_000_001)
    complete: Dict[str, Any] = json.loads(opened.seal_reply(reply_id, "Two fixes landed; the release is green."))
    check(complete["reply"]["envelope"]["keyGeneration"] == 0, "reply under generation 0")
    reply_resource = message_resource(reply_id, BOT_ID, "bot", complete["reply"], 2)
    reply = streamseal.open_message(owner_state.keyring(), owner_trust, ROOT, reply_resource)
    check(reply.text == "Two fixes landed; the release is green.", "reply text")
    check(reply.invocation_id == INVOCATION_ID and reply.author_type == "bot", "a bot reply to the invocation")
    check((reply.sealed_by.subject, reply.sealed_by.key_id) == (BOT_ID, "machine-a"), "signed by the machine")
    # A server that moves the reply to another author is caught.
    moved = json.loads(reply_resource)
    moved["authorId"] = "bot_01JD3QB0T000000000000000ZZ"
    raises("AAD_MISMATCH", lambda: streamseal.open_message(owner_state.keyring(), owner_trust, ROOT, json.dumps(moved)))

    print(f"bot: ok (streamseal {importlib.metadata.version('streamseal')}, python {sys.version.split()[0]})")


if __name__ == "__main__":
    main()
