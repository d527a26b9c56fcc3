"""Python tests of the streamseal UniFFI binding (standard library unittest).

`cargo xtask test` generates the binding into target/uniffi/python/streamseal_bindings
(with the test-seams build of the library) and runs:

    python3 -m unittest discover -s bindings/uniffi/python/tests -v

STREAMSEAL_PY_BINDINGS names the directory holding the generated package.
"""

import json
import os
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
sys.path.insert(0, os.environ.get("STREAMSEAL_PY_BINDINGS", os.path.join(ROOT, "target", "uniffi", "python")))

from streamseal_bindings import streamseal_ffi as ss  # noqa: E402
from streamseal_bindings import streamseal as core  # noqa: E402

VECTORS = os.path.join(ROOT, "tests", "vectors", "streamseal")
ERR = ss.StreamsealError


def load(name):
    with open(os.path.join(VECTORS, name), encoding="utf-8") as f:
        return json.load(f)


def slot_from_json(s):
    """A vector's slot JSON (`{"kind": ..., camelCase fields}`) as the binding's Slot."""
    kind = s["kind"]
    if kind == "message":
        return core.Slot.MESSAGE(stream_id=s["streamId"], message_id=s["messageId"],
                                 author_id=s["authorId"], revision=s["revision"])
    if kind == "botReply":
        return core.Slot.BOT_REPLY(stream_id=s["streamId"], message_id=s["messageId"],
                                   author_id=s["authorId"], invocation_id=s["invocationId"])
    if kind == "traceStep":
        phase = {"started": core.StepPhase.STARTED, "completed": core.StepPhase.COMPLETED}[s["phase"]]
        return core.Slot.TRACE_STEP(invocation_id=s["invocationId"], step_id=s["stepId"],
                                    step_type=s["stepType"], phase=phase, message_id=s.get("messageId"))
    if kind == "decisionCard":
        options = [core.DecisionOption(id=o["id"], tone=o["tone"]) for o in s["options"]]
        return core.Slot.DECISION_CARD(stream_id=s["streamId"], decision_id=s["decisionId"],
                                       options=options, allow_note=s["allowNote"])
    if kind == "decisionNote":
        return core.Slot.DECISION_NOTE(decision_id=s["decisionId"], option_id=s["optionId"],
                                       decided_by=s["decidedBy"])
    raise AssertionError("unknown slot kind " + kind)


def with_randomness(hex_bytes, f):
    ss.set_fixed_randomness(bytes.fromhex(hex_bytes))
    try:
        out = f()
        # Every queued byte was drawn: the call used exactly the vector's randomness.
        assert ss.remaining_fixed_randomness() == 0
        return out
    finally:
        ss.clear_fixed_randomness()


def sealed_json(payload):
    return json.loads(ss.sealed_payload_to_json(payload))


class GoldenVectors(unittest.TestCase):
    """tests/vectors/streamseal/*.json reproduced byte for byte."""

    def test_envelopes(self):
        doc = load("envelopes.json")
        self.assertEqual(len(doc["vectors"]), 8)
        for v in doc["vectors"]:
            with self.subTest(v["name"]):
                ring = ss.Keyring(v["rootStreamId"])
                ring.insert(v["keyGeneration"], ss.StreamKey.from_bytes(bytes.fromhex(v["streamKeyHex"])))
                slot = slot_from_json(v["slot"])
                self.assertEqual(ss.aad_encode(1, v["rootStreamId"], v["keyGeneration"], slot).hex(), v["aadHex"])
                sealed = with_randomness(v["randomHex"], lambda: ss.seal(ring, slot, v["plaintext"].encode()))
                self.assertEqual(sealed_json(sealed), v["sealed"])
                self.assertEqual(sealed.ciphertext, v["sealed"]["ciphertext"])
                self.assertEqual(ss.open(ring, slot, sealed).decode(), v["plaintext"])
                parsed = ss.aad_parse(bytes.fromhex(v["aadHex"]))
                self.assertEqual(parsed.slot, slot)
                self.assertEqual(parsed.key_generation, v["keyGeneration"])

    def test_wraps(self):
        doc = load("wraps.json")
        self.assertEqual(len(doc["vectors"]), 3)
        for v in doc["vectors"]:
            with self.subTest(v["name"]):
                secret = ss.SecretKey.from_bytes(bytes.fromhex(v["recipientSecretKeyHex"]))
                me = ss.IdentityKey.from_secret(v["recipientKind"], v["recipientKeyId"], secret)
                self.assertEqual(me.public_key(), v["recipientPublicKey"])
                key = ss.StreamKey.from_bytes(bytes.fromhex(v["streamKeyHex"]))
                info = ss.wrap_info(v["rootStreamId"], v["keyGeneration"], v["recipientKind"], v["recipientKeyId"])
                self.assertEqual(info.hex(), v["infoHex"])
                wrap = with_randomness(v["randomHex"], lambda: ss.wrap_stream_key(
                    v["rootStreamId"], v["keyGeneration"], key, me.recipient()))
                self.assertEqual(wrap.wrap_enc, v["wrap"]["wrapEnc"])
                self.assertEqual(wrap.wrap_ct, v["wrap"]["wrapCt"])
                self.assertEqual(wrap.key_generation, v["wrap"]["keyGeneration"])
                self.assertEqual(wrap.recipient_key_id, v["wrap"]["recipientKeyId"])
                self.assertEqual(wrap.recipient_kind, v["wrap"]["recipientKind"])
                opened = ss.unwrap_stream_key(v["rootStreamId"], wrap, [me])
                self.assertEqual(opened.to_bytes().hex(), v["streamKeyHex"])

    def test_bundles(self):
        doc = load("bundles.json")
        self.assertEqual(len(doc["vectors"]), 3)
        for v in doc["vectors"]:
            with self.subTest(v["name"]):
                secret = ss.SecretKey.from_bytes(bytes.fromhex(v["secretKeyHex"]))
                self.assertEqual(secret.public_key(), v["publicKey"])
                self.assertEqual(ss.passphrase_bytes(v["passphrase"]).hex(), v["passphraseKdfBytesHex"])
                self.assertEqual(ss.bundle_aad(1, v["publicKey"]).hex(), v["aadHex"])
                p = v["record"]["kdfParams"]
                params = core.KdfParams(algorithm=p["algorithm"], m=p["m"], t=p["t"], p=p["p"], version=p["version"])
                record = with_randomness(v["randomHex"], lambda: ss.create_bundle(secret, v["passphrase"], params))
                self.assertEqual(record.encrypted_private_bundle, v["record"]["encryptedPrivateBundle"])
                self.assertEqual(record.kdf_salt, v["record"]["kdfSalt"])
                self.assertEqual(record.kdf_params, params)
                opened = ss.open_bundle(v["publicKey"], record, v["passphrase"], ss.kdf_limits_default())
                self.assertEqual(opened.to_bytes().hex(), v["secretKeyHex"])

    def test_invocations(self):
        doc = load("invocations.json")
        self.assertEqual(len(doc["vectors"]), 1)
        for v in doc["vectors"]:
            with self.subTest(v["name"]):
                secret = ss.SecretKey.from_bytes(bytes.fromhex(v["runtimeSecretKeyHex"]))
                runtime = ss.IdentityKey.from_secret(v["runtimeKeyKind"], v["runtimeKeyId"], secret)
                opened = ss.OpenedInvocation.open(json.dumps(v["invocation"]), [runtime])
                self.assertEqual(opened.prompt(), v["expectedPrompt"])
                self.assertEqual([h.text for h in opened.history()], v["expectedHistory"])
                body = with_randomness(v["replyRandomHex"], lambda: opened.seal_reply(v["replyMessageId"], v["replyText"]))
                self.assertEqual(json.loads(body), v["sealedComplete"])


class ErrorsAndBadInputs(unittest.TestCase):
    def assert_code(self, variant, code, f):
        with self.assertRaises(variant) as ctx:
            f()
        self.assertEqual(ctx.exception.code, code)
        self.assertIsInstance(ctx.exception, ERR)
        self.assertIn(code, str(ctx.exception))
        return ctx.exception

    def test_bad_inputs_raise_their_codes(self):
        ring = ss.Keyring("stream_root")
        ring.insert(0, ss.StreamKey.generate())
        slot = core.Slot.MESSAGE(stream_id="stream_root", message_id="msg_1", author_id="usr_1", revision=1)
        sealed = ss.seal(ring, slot, b"hello")
        self.assert_code(ERR.MalformedBase64, "MALFORMED_BASE64", lambda: ss.decode_base64("not base64!"))
        self.assert_code(ERR.InvalidLength, "INVALID_LENGTH", lambda: ss.StreamKey.from_bytes(bytes(16)))
        self.assert_code(ERR.MalformedJson, "MALFORMED_JSON", lambda: ss.sealed_payload_from_json("[1]"))
        moved = core.Slot.MESSAGE(stream_id="stream_root", message_id="msg_2", author_id="usr_1", revision=1)
        self.assert_code(ERR.AadMismatch, "AAD_MISMATCH", lambda: ss.open(ring, moved, sealed))
        self.assert_code(ERR.WrongPassphrase, "WRONG_PASSPHRASE", lambda: ss.open_bundle(
            ss.SecretKey.generate().public_key(),
            ss.create_bundle(ss.SecretKey.generate(), "right", ss.kdf_params_argon2id(64, 1, 1)),
            "wrong", ss.kdf_limits_default()))

    def test_every_error_code(self):
        reached = set()

        def code(variant, name, f):
            e = self.assert_code(variant, name, f)
            reached.add(e.code)

        root = "stream_root"
        ring = ss.Keyring(root)
        ring.insert(0, ss.StreamKey.generate())
        slot = core.Slot.MESSAGE(stream_id=root, message_id="msg_1", author_id="usr_1", revision=1)
        sealed = ss.seal(ring, slot, b"hello")
        env = sealed.envelope
        code(ERR.MalformedBase64, "MALFORMED_BASE64", lambda: ss.decode_base64("not base64!"))
        code(ERR.InvalidLength, "INVALID_LENGTH", lambda: ss.StreamKey.from_bytes(bytes(16)))
        code(ERR.InputTooLarge, "INPUT_TOO_LARGE", lambda: ss.seal(ring, slot, bytes(4 * 1024 * 1024 + 1)))
        code(ERR.MalformedJson, "MALFORMED_JSON", lambda: ss.sealed_payload_from_json("[1]"))
        code(ERR.InvalidField, "INVALID_FIELD", lambda: ss.mint_message_id(2**64 - 1))
        bad_v = core.SealedPayload(ciphertext=sealed.ciphertext, envelope=core.Envelope(v=2, key_generation=env.key_generation, iv=env.iv, aad=env.aad))
        code(ERR.UnsupportedEnvelopeVersion, "UNSUPPORTED_ENVELOPE_VERSION", lambda: ss.open(ring, slot, bad_v))
        code(ERR.MalformedAad, "MALFORMED_AAD", lambda: ss.aad_parse(b"streamseal/aad"))
        moved = core.Slot.MESSAGE(stream_id=root, message_id="msg_2", author_id="usr_1", revision=1)
        code(ERR.AadMismatch, "AAD_MISMATCH", lambda: ss.open(ring, moved, sealed))
        later = ss.Keyring(root)
        later.insert(5, ss.StreamKey.generate())
        sealed_later = ss.seal(later, slot, b"later")
        code(ERR.UnknownKeyGeneration, "UNKNOWN_KEY_GENERATION", lambda: ss.open(ring, slot, sealed_later))
        code(ERR.KeyGenerationConflict, "KEY_GENERATION_CONFLICT", lambda: ring.insert(0, ss.StreamKey.generate()))
        ct = bytearray(ss.decode_base64(sealed.ciphertext))
        ct[0] ^= 1
        tampered = core.SealedPayload(ciphertext=ss.encode_base64(bytes(ct)), envelope=env)
        code(ERR.DecryptionFailed, "DECRYPTION_FAILED", lambda: ss.open(ring, slot, tampered))
        low_order = ss.Recipient(kind="bot", key_id="machine-x", public_key=ss.encode_base64(bytes(32)))
        code(ERR.InvalidPublicKey, "INVALID_PUBLIC_KEY", lambda: ss.wrap_stream_key(root, 0, ss.StreamKey.generate(), low_order))
        bot = ss.IdentityKey.generate("bot", "machine-a")
        other = ss.IdentityKey.generate("bot", "machine-b")
        wrap = ss.wrap_stream_key(root, 0, ss.StreamKey.generate(), bot.recipient())
        code(ERR.NoMatchingKey, "NO_MATCHING_KEY", lambda: ss.unwrap_stream_key(root, wrap, [other]))
        code(ERR.UntrustedWrap, "UNTRUSTED_WRAP", lambda: ss.unwrap_stream_key("stream_other", wrap, [bot]))
        code(ERR.TooManyKeys, "TOO_MANY_KEYS", lambda: ss.unwrap_stream_key(root, wrap, [bot] * 33))
        secret = ss.SecretKey.generate()
        small = ss.kdf_params_argon2id(64, 1, 1)
        bundle = ss.create_bundle(secret, "right", small)
        raw = ss.decode_base64(bundle.encrypted_private_bundle)
        limits = ss.kdf_limits_default()

        def with_bundle(text, params=small):
            return core.SealedBundle(encrypted_private_bundle=text, kdf_salt=bundle.kdf_salt, kdf_params=params)

        code(ERR.UnsupportedBundleVersion, "UNSUPPORTED_BUNDLE_VERSION",
             lambda: ss.open_bundle(secret.public_key(), with_bundle(ss.encode_base64(b"\x02" + raw[1:])), "right", limits))
        code(ERR.MalformedBundle, "MALFORMED_BUNDLE",
             lambda: ss.open_bundle(secret.public_key(), with_bundle(ss.encode_base64(raw[:-1])), "right", limits))
        code(ERR.WrongPassphrase, "WRONG_PASSPHRASE", lambda: ss.open_bundle(secret.public_key(), bundle, "wrong", limits))
        kek = ss.derive_key("right", ss.decode_base64(bundle.kdf_salt), small)
        iv = bytes([7] * 12)
        ct2 = ss.aes256gcm_seal(kek, iv, ss.SecretKey.generate().to_bytes(), ss.bundle_aad(1, secret.public_key()))
        code(ERR.BundleKeyMismatch, "BUNDLE_KEY_MISMATCH",
             lambda: ss.open_bundle(secret.public_key(), with_bundle(ss.encode_base64(b"\x01" + iv + ct2)), "right", limits))
        argon2i = core.KdfParams(algorithm="argon2i", m=64, t=1, p=1, version=19)
        code(ERR.UnsupportedKdf, "UNSUPPORTED_KDF", lambda: ss.kdf_params_check(argon2i, limits))
        code(ERR.KdfParamsOutOfBounds, "KDF_PARAMS_OUT_OF_BOUNDS",
             lambda: ss.open_bundle(secret.public_key(), with_bundle(bundle.encrypted_private_bundle, ss.kdf_params_argon2id(4 * 1024 * 1024, 1, 1)), "right", limits))
        ss.set_fixed_randomness(b"")
        try:
            code(ERR.RandomnessUnavailable, "RANDOMNESS_UNAVAILABLE", ss.StreamKey.generate)
        finally:
            ss.clear_fixed_randomness()
        code(ERR.ValidationFailed, "VALIDATION_FAILED", lambda: ss.check_send_rules(False, '{"content":""}'))
        code(ERR.E2eStreamRequiresCiphertext, "E2E_STREAM_REQUIRES_CIPHERTEXT", lambda: ss.check_send_rules(True, '{"content":"hi"}'))
        body = ss.seal_message(ring, root, ss.mint_message_id(1_790_000_000_000), "usr_1", "hi", None)
        code(ERR.E2ePayloadRequiresE2eStream, "E2E_PAYLOAD_REQUIRES_E2E_STREAM", lambda: ss.check_send_rules(False, body))
        self.assertEqual(reached, set(ss.error_codes()))

    def test_error_codes_match_the_core(self):
        codes = ss.error_codes()
        self.assertEqual(len(codes), 25)
        self.assertEqual(len(set(codes)), 25)
        self.assertIn("AAD_MISMATCH", codes)

    def test_round_trips(self):
        ring = ss.Keyring("stream_root")
        ring.insert(0, ss.StreamKey.generate())
        for text in ["", "x", "é ✅ " * 100]:
            slot = core.Slot.DECISION_NOTE(decision_id="dreq_1", option_id="yes", decided_by="usr_1")
            sealed = ss.seal(ring, slot, text.encode())
            again = ss.sealed_payload_from_json(ss.sealed_payload_to_json(sealed))
            self.assertEqual(again, sealed)
            self.assertEqual(ss.open(ring, slot, again).decode(), text)
        data = bytes(range(256))
        self.assertEqual(ss.decode_base64(ss.encode_base64(data)), data)


class Catalogue(unittest.TestCase):
    """The sans-IO catalogue and paging helpers, with the core's names."""

    def test_catalogue(self):
        rows = ss.endpoints()
        self.assertEqual(ss.endpoint_count(), 58)
        self.assertEqual(len(rows), ss.endpoint_count())
        ids = [e.id for e in rows]
        self.assertEqual(len(set(ids)), 58)
        send = ss.endpoint("sendMessage")
        self.assertIsInstance(send, core.EndpointInfo)
        self.assertEqual(send, rows[ids.index("sendMessage")])
        self.assertEqual(send.id, "sendMessage")
        self.assertEqual(send.method, core.HttpMethod.POST)
        self.assertEqual(send.path_params, ["streamId"])
        self.assertEqual((send.idempotent, send.claim_bound, send.conflict_may_mean_landed), (False, False, False))
        for row in rows:
            self.assertEqual(ss.endpoint(row.id), row)
        self.assertEqual(send.path_template, "/streams/{streamId}/messages")
        self.assertEqual(send.scope, core.RequiredScope.SCOPE("messages:write"))
        self.assertEqual(ss.missing_scope("sendMessage", ["messages:read"]), "messages:write")
        self.assertIsNone(ss.missing_scope("sendMessage", ["messages:write"]))
        with self.assertRaises(ERR.InvalidField):
            ss.endpoint("noSuchEndpoint")
        with self.assertRaises(ERR.InvalidField):
            ss.missing_scope("noSuchEndpoint", [])
        self.assertTrue(ss.mint_client_message_id(1_790_000_000_000).startswith("cmid_"))
        self.assertEqual(ss.next_cursor(True, "c2"), "c2")
        self.assertIsNone(ss.next_cursor(False, "c2"))

    def test_next_message_query(self):
        page = json.loads(fixture("message_list_2026-08-21.json"))
        self.assertIsNone(ss.next_message_query(json.dumps({"limit": 2}), json.dumps(page)))
        page["hasMore"] = True
        # Backwards `before` the lowest sequence (7 and 42 in the fixture), forwards `after` the highest.
        self.assertEqual(json.loads(ss.next_message_query(json.dumps({"limit": 2}), json.dumps(page))),
                         {"limit": 2, "before": 7})
        self.assertEqual(json.loads(ss.next_message_query(json.dumps({"after": 1}), json.dumps(page))), {"after": 42})
        with self.assertRaises(ERR.MalformedJson):
            ss.next_message_query("{}", json.dumps({"data": []}))


FIXTURES = os.path.join(ROOT, "tests", "fixtures", "wire")
CTX = ss.Context(base_url="https://chat.example.test", workspace_id="ws_01J80000000000000000000001",
                 api_key="svc_bk_secret", service_version=None)


def fixture(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return f.read()


class Endpoints(unittest.TestCase):
    """build_request / parse_response / next_page through the binding."""

    def test_send_message_built_and_parsed(self):
        req = ss.build_request(CTX, json.dumps({"endpoint": "sendMessage", "streamId": "stream_01J80000000000000000000010",
                                                "body": {"content": "ship it", "clientMessageId": "cmid_1"}}))
        self.assertEqual(req.method, core.HttpMethod.POST)
        self.assertEqual(req.path, "/api/v1/workspaces/ws_01J80000000000000000000001/streams/stream_01J80000000000000000000010/messages")
        self.assertEqual([(h.name, h.value) for h in req.headers],
                         [("Authorization", "Bearer svc_bk_secret"), ("Content-Type", "application/json")])
        self.assertEqual(json.loads(req.body.json), {"content": "ship it", "clientMessageId": "cmid_1"})
        self.assertTrue(req.retry_safe)
        resp = ss.parse_response(req, ss.HttpResponse(status=201, headers=[ss.Header(name="Service-Version", value="2026-08-21")],
                                                      body=fixture("message_send_2026-08-21.json")))
        self.assertEqual((resp.status, resp.version, resp.shape), (201, "2026-08-21", "2026-08-21"))
        data = json.loads(resp.data_json)
        self.assertEqual(data["kind"], "message")
        self.assertEqual(json.dumps(data).count("msg_01J80000000000000000000020"), 1)

    def test_error_responses(self):
        req = ss.build_request(CTX, json.dumps({"endpoint": "sendMessage", "streamId": "stream_01J80000000000000000000010",
                                                "body": {"content": "ship it", "clientMessageId": "cmid_1"}}))
        with self.assertRaises(ERR.Api) as ctx:
            ss.parse_response(req, ss.HttpResponse(status=429, headers=[ss.Header(name="Retry-After", value="7")],
                                                   body=fixture("error_rate_limited.json")))
        e = ctx.exception
        self.assertEqual((e.status, e.retry_after, e.retry_safe), (429, 7, True))
        with self.assertRaises(ERR.Api) as ctx:
            ss.parse_response(req, ss.HttpResponse(status=400, headers=[], body=fixture("error_validation.json")))
        self.assertEqual(ctx.exception.details["instanceId"], ["Required"])
        with self.assertRaises(ERR.ValidationFailed) as ctx:
            ss.build_request(CTX, json.dumps({"endpoint": "sendMessage", "streamId": "s", "body": {"content": ""}}))
        self.assertIn("content", ctx.exception.details)
        with self.assertRaises(ERR.MalformedJson):
            ss.build_request(CTX, json.dumps({"endpoint": "noSuchEndpoint"}))
        with self.assertRaises(ERR.MalformedJson):
            ss.parse_response(req, ss.HttpResponse(status=201, headers=[], body="{not json"))

    def test_paging(self):
        request = json.dumps({"endpoint": "listStreams", "query": {"type": "channel", "limit": 2}})
        req = ss.build_request(CTX, request)
        self.assertEqual(req.url, "https://chat.example.test/api/v1/workspaces/ws_01J80000000000000000000001/streams?type=channel&limit=2")
        resp = ss.parse_response(req, ss.HttpResponse(status=200, headers=[], body=fixture("stream_page_2026-08-21.json")))
        data = json.loads(resp.data_json)
        self.assertFalse(data["data"]["hasMore"])
        self.assertIsNone(ss.next_page(request, resp.data_json))
        data["data"]["hasMore"] = True
        data["data"]["cursor"] = "c2"
        nxt = json.loads(ss.next_page(request, json.dumps(data)))
        self.assertEqual(nxt, {"endpoint": "listStreams", "query": {"type": "channel", "limit": 2, "after": "c2"}})
        self.assertTrue(ss.build_request(CTX, json.dumps(nxt)).url.endswith("/streams?type=channel&after=c2&limit=2"))
        self.assertIsNone(ss.next_page(json.dumps({"endpoint": "getMe"}), json.dumps(data)))
        self.assertIsNone(ss.next_page(request, json.dumps({"kind": "noContent"})))
        with self.assertRaises(ERR.MalformedJson):
            ss.next_page(request, json.dumps({"kind": "streams", "data": {"data": []}}))
        # A message list pages by sequence.
        messages = json.dumps({"endpoint": "listMessages", "streamId": "stream_1", "query": {"limit": 2}})
        listed = ss.parse_response(ss.build_request(CTX, messages),
                                   ss.HttpResponse(status=200, headers=[], body=fixture("message_list_2026-08-21.json")))
        page = json.loads(listed.data_json)
        page["data"]["hasMore"] = True
        self.assertEqual(json.loads(ss.next_page(messages, json.dumps(page)))["query"], {"limit": 2, "before": 7})


class Scenario(unittest.TestCase):
    """The sealed-flow scenario (see tests/sealed_scenario.rs), through the binding."""

    def test_shared_scratchpad(self):
        common = run_scenario(self)
        self.assertEqual(common["rolled_to"], 1)


def served_wraps(request_json):
    """The wraps of a `POST .../e2e/key-wraps` body as the list serves them (each with its generation)."""
    request = json.loads(request_json)
    return [dict(w, keyGeneration=request["keyGeneration"]) for w in request["wraps"]]


def run_scenario(t):
    root = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M"
    owner_id = "usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q1"
    bot_id = "bot_01JD3QB0T0000000000000000B"
    small = ss.kdf_params_argon2id(64, 1, 1)
    limits = ss.kdf_limits_default()

    # The owner sets up a passphrase key; the server stores the record.
    new = ss.set_up_user_key("key_owner_laptop", "correct horse", small)
    record = json.loads(new.record_json)
    record["createdAt"] = "2026-11-21T10:00:00Z"
    with t.assertRaises(ERR.WrongPassphrase):
        ss.unlock(json.dumps(record), "wrong horse", limits)
    owner = ss.unlock(json.dumps(record), "correct horse", limits)
    t.assertEqual(owner.public_key(), new.key.public_key())

    # The bot runtime's two machines register keys in presence.
    machine_a = ss.IdentityKey.generate("bot", "machine-a")
    machine_b = ss.IdentityKey.generate("bot", "machine-b")

    # Generation 0 wrapped to everyone; the server serves each their key-wraps list.
    gen0 = ss.generation_zero(root, [owner.recipient(), machine_a.recipient(), machine_b.recipient()])
    t.assertEqual(gen0.key_generation, 0)
    t.assertEqual(len(json.loads(gen0.request_json)["wraps"]), 3)
    stored = {0: served_wraps(gen0.request_json)}

    def key_wraps(current):
        wraps = [w for gen in sorted(stored) for w in stored[gen]]
        return json.dumps({"currentKeyGeneration": current, "ownerUserId": owner_id, "wraps": wraps})

    # The owner sends a sealed message; the server turns the body into a Message.
    def as_message(body_json, message_id, author_id, sequence):
        body = json.loads(body_json)
        t.assertNotIn("content", body)
        return json.dumps({"id": message_id, "streamId": root, "sequence": str(sequence),
                           "authorId": author_id, "authorType": "user", "content": "[sealed]",
                           "replyCount": 0, "metadata": {}, "revision": 1,
                           "createdAt": "2026-11-21T10:00:00Z", "sealed": body["sealed"]})

    msg1 = ss.mint_message_id(1_790_000_000_000)
    body = ss.seal_message(gen0.keyring, root, msg1, owner_id, "Ship the release on Thursday?", "cmid_1")
    ss.check_send_rules(True, body)
    with t.assertRaises(ERR.E2ePayloadRequiresE2eStream):
        ss.check_send_rules(False, body)
    message1 = as_message(body, msg1, owner_id, 1)

    # Machine B opens its wraps and reads the message.
    ring_b = ss.open_key_wraps(root, key_wraps(0), [machine_b])
    t.assertEqual(ring_b.skipped, [])
    t.assertEqual(ring_b.keyring.current_generation(), 0)
    opened = ss.open_message(ring_b.keyring, message1)
    t.assertEqual((opened.text, opened.author_id, opened.revision), ("Ship the release on Thursday?", owner_id, 1))

    # The owner edits it: revision 2 opens, and the server cannot replay it as revision 1.
    edit = ss.seal_edit(gen0.keyring, message1, owner_id, "Ship on Friday.")
    m = json.loads(message1)
    m["sealed"] = sealed_json(edit)
    m["revision"] = 2
    t.assertEqual(ss.open_message(ring_b.keyring, json.dumps(m)).text, "Ship on Friday.")
    m["revision"] = 1
    with t.assertRaises(ERR.AadMismatch):
        ss.open_message(ring_b.keyring, json.dumps(m))

    # A decision note sealed by the owner opens for the runtime.
    note = ss.seal_decision_note(gen0.keyring, "dreq_01JD3QQB2C4E6G8J0K2M4P6R8T", "approve", owner_id, "Go ahead")
    sealed_note = sealed_json(note)
    event = {"decisionId": "dreq_01JD3QQB2C4E6G8J0K2M4P6R8T", "optionId": "approve", "decidedBy": owner_id,
             "noteCiphertext": sealed_note["ciphertext"], "noteEnvelope": sealed_note["envelope"]}
    t.assertEqual(ss.open_decision_note(ring_b.keyring, json.dumps(event)), "Go ahead")

    # The bot's machine B is removed: the owner rolls the generation to the others.
    rolled = ss.roll_generation(gen0.keyring, [owner.recipient(), machine_a.recipient()])
    t.assertEqual(rolled.key_generation, 1)
    stored[1] = served_wraps(rolled.request_json)
    msg2 = ss.mint_message_id(1_790_000_000_001)
    message2 = as_message(ss.seal_message(rolled.keyring, root, msg2, owner_id, "After the roll", None), msg2, owner_id, 2)

    # Machine A reads both generations; machine B cannot read what follows.
    ring_a = ss.open_key_wraps(root, key_wraps(1), [machine_a])
    t.assertEqual(ring_a.keyring.generations(), [0, 1])
    t.assertEqual(ss.open_message(ring_a.keyring, message2).text, "After the roll")
    ring_b2 = ss.open_key_wraps(root, key_wraps(1), [machine_b])
    t.assertEqual(ring_b2.keyring.generations(), [0])
    with t.assertRaises(ERR.UnknownKeyGeneration) as ctx:
        ss.open_message(ring_b2.keyring, message2)
    t.assertEqual(ctx.exception.code, "UNKNOWN_KEY_GENERATION")
    t.assertEqual(ss.open_message(ring_b2.keyring, message1).text, "Ship the release on Thursday?")
    return {"rolled_to": rolled.key_generation, "bot": bot_id}


if __name__ == "__main__":
    unittest.main()
