// Kotlin tests of the streamseal UniFFI binding, run on the JVM by
// `cargo xtask test` (JNA from /usr/share/java/jna.jar, the library found
// through -Djna.library.path). A plain main: every check throws on failure,
// and main exits non-zero if any test failed.

package streamseal.tests

import java.io.File
import kotlin.system.exitProcess
import kotlin.test.assertContentEquals
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertNull
import kotlin.test.assertTrue
import uniffi.streamseal.AuthKind
import uniffi.streamseal.DecisionOption
import uniffi.streamseal.Family
import uniffi.streamseal.HttpMethod
import uniffi.streamseal.RequiredScope
import uniffi.streamseal.KdfParams
import uniffi.streamseal.KeyWrap
import uniffi.streamseal.SealedBundle
import uniffi.streamseal.SealedPayload
import uniffi.streamseal.Slot
import uniffi.streamseal.StepPhase
import uniffi.streamseal_ffi.*

private val vectors = File(System.getProperty("streamseal.vectors") ?: "tests/vectors/streamseal")
private val reached = sortedSetOf<String>()

private fun load(name: String) = Json.parse(File(vectors, name).readText()).obj()

/** Runs [f] expecting [T] with [code]; records the code as reached. */
private inline fun <reified T : StreamsealException> expect(code: String, f: () -> Unit): T {
    val e = assertFailsWith<T> { f() }
    val actual = codeOf(e)
    assertEquals(code, actual, "code of ${T::class.simpleName}")
    assertTrue(e.message!!.contains(code), "message names the code: ${e.message}")
    reached.add(actual)
    return e
}

private fun codeOf(e: StreamsealException): String {
    // Every variant carries `code`; read it through the generated property.
    val field = e::class.java.getMethod("getCode")
    return field.invoke(e) as String
}

private fun slotOf(s: Map<String, Any?>): Slot = when (s["kind"]) {
    "message" -> Slot.Message(s["streamId"].str(), s["messageId"].str(), s["authorId"].str(), s["revision"].long().toUInt())
    "botReply" -> Slot.BotReply(s["streamId"].str(), s["messageId"].str(), s["authorId"].str(), s["invocationId"].str())
    "traceStep" -> Slot.TraceStep(
        s["invocationId"].str(), s["stepId"].str(), s["stepType"].str(),
        if (s["phase"] == "started") StepPhase.STARTED else StepPhase.COMPLETED,
        s["messageId"] as String?,
    )
    "decisionCard" -> Slot.DecisionCard(
        s["streamId"].str(), s["decisionId"].str(),
        s["options"].list().map { DecisionOption(it.obj()["id"].str(), it.obj()["tone"].str()) },
        s["allowNote"] as Boolean,
    )
    "decisionNote" -> Slot.DecisionNote(s["decisionId"].str(), s["optionId"].str(), s["decidedBy"].str())
    else -> error("unknown slot kind ${s["kind"]}")
}

private fun <T> withRandomness(hex: String, f: () -> T): T {
    setFixedRandomness(hex.hex())
    try {
        val out = f()
        assertEquals(0uL, remainingFixedRandomness(), "every queued random byte was drawn")
        return out
    } finally {
        clearFixedRandomness()
    }
}

private fun payloadJson(p: SealedPayload) = Json.parse(sealedPayloadToJson(p))

// ---- golden vectors, byte for byte

fun goldenEnvelopes() {
    val doc = load("envelopes.json")
    val list = doc["vectors"].list()
    assertEquals(8, list.size)
    for (item in list) {
        val v = item.obj()
        val root = v["rootStreamId"].str()
        val gen = v["keyGeneration"].long().toUInt()
        val ring = Keyring(root)
        ring.insert(gen, StreamKey.fromBytes(v["streamKeyHex"].str().hex()))
        val slot = slotOf(v["slot"].obj())
        assertEquals(v["aadHex"], aadEncode(1u, root, gen, slot).hex(), v["name"].str())
        val sealed = withRandomness(v["randomHex"].str()) { seal(ring, slot, v["plaintext"].str().toByteArray()) }
        assertEquals(v["sealed"], payloadJson(sealed), v["name"].str())
        assertEquals(v["plaintext"], String(open(ring, slot, sealed)))
        val parsed = aadParse(v["aadHex"].str().hex())
        assertEquals(slot, parsed.slot)
        assertEquals(gen, parsed.keyGeneration)
    }
}

fun goldenWraps() {
    val list = load("wraps.json")["vectors"].list()
    assertEquals(3, list.size)
    for (item in list) {
        val v = item.obj()
        val root = v["rootStreamId"].str()
        val gen = v["keyGeneration"].long().toUInt()
        val me = IdentityKey.fromSecret(
            v["recipientKind"].str(), v["recipientKeyId"].str(),
            SecretKey.fromBytes(v["recipientSecretKeyHex"].str().hex()),
        )
        assertEquals(v["recipientPublicKey"], me.publicKey())
        assertEquals(v["infoHex"], wrapInfo(root, gen, v["recipientKind"].str(), v["recipientKeyId"].str()).hex())
        val key = StreamKey.fromBytes(v["streamKeyHex"].str().hex())
        val wrap = withRandomness(v["randomHex"].str()) { wrapStreamKey(root, gen, key, me.recipient()) }
        val expected = v["wrap"].obj()
        assertEquals(
            KeyWrap(gen, expected["recipientKeyId"].str(), expected["recipientKind"].str(), expected["wrapEnc"].str(), expected["wrapCt"].str()),
            wrap,
        )
        assertEquals(v["streamKeyHex"], unwrapStreamKey(root, wrap, listOf(me)).toBytes().hex())
    }
}

fun goldenBundles() {
    val list = load("bundles.json")["vectors"].list()
    assertEquals(3, list.size)
    for (item in list) {
        val v = item.obj()
        val secret = SecretKey.fromBytes(v["secretKeyHex"].str().hex())
        assertEquals(v["publicKey"], secret.publicKey())
        assertEquals(v["passphraseKdfBytesHex"], passphraseBytes(v["passphrase"].str()).hex())
        assertEquals(v["aadHex"], bundleAad(1u, v["publicKey"].str()).hex())
        val r = v["record"].obj()
        val p = r["kdfParams"].obj()
        val params = KdfParams(p["algorithm"].str(), p["m"].long().toUInt(), p["t"].long().toUInt(), p["p"].long().toUInt(), p["version"].long().toUInt())
        val record = withRandomness(v["randomHex"].str()) { createBundle(secret, v["passphrase"].str(), params) }
        assertEquals(SealedBundle(r["encryptedPrivateBundle"].str(), r["kdfSalt"].str(), params), record)
        val opened = openBundle(v["publicKey"].str(), record, v["passphrase"].str(), kdfLimitsDefault())
        assertEquals(v["secretKeyHex"], opened.toBytes().hex())
    }
}

fun goldenInvocations() {
    val list = load("invocations.json")["vectors"].list()
    assertEquals(1, list.size)
    val v = list[0].obj()
    val runtime = IdentityKey.fromSecret(
        v["runtimeKeyKind"].str(), v["runtimeKeyId"].str(),
        SecretKey.fromBytes(v["runtimeSecretKeyHex"].str().hex()),
    )
    val opened = OpenedInvocation.open(Json.write(v["invocation"]), listOf(runtime))
    assertEquals(v["expectedPrompt"], opened.prompt())
    assertEquals(v["expectedHistory"], opened.history().map { it.text })
    val body = withRandomness(v["replyRandomHex"].str()) { opened.sealReply(v["replyMessageId"].str(), v["replyText"].str()) }
    assertEquals(v["sealedComplete"], Json.parse(body))
}

// ---- round trips

fun roundTrips() {
    val ring = Keyring("stream_root")
    ring.insert(0u, StreamKey.generate())
    val slots = listOf(
        Slot.Message("stream_root", "msg_1", "usr_1", 1u),
        Slot.BotReply("stream_root", "msg_2", "bot_1", "inv_1"),
        Slot.TraceStep("inv_1", "step_1", "thinking", StepPhase.STARTED, null),
        Slot.DecisionCard("stream_root", "dreq_1", listOf(DecisionOption("yes", "primary")), false),
        Slot.DecisionNote("dreq_1", "yes", "usr_1"),
    )
    for (slot in slots) {
        for (text in listOf("", "x", "é ✅ ".repeat(100))) {
            val sealed = seal(ring, slot, text.toByteArray())
            val again = sealedPayloadFromJson(sealedPayloadToJson(sealed))
            assertEquals(sealed, again)
            assertEquals(text, String(open(ring, slot, again)))
            assertEquals(slot, aadParse(decodeBase64(sealed.envelope.aad)).slot)
        }
    }
    val bytes = ByteArray(256) { it.toByte() }
    assertContentEquals(bytes, decodeBase64(encodeBase64(bytes)))
    val secret = SecretKey.generate()
    assertEquals(secret.publicKey(), SecretKey.fromBytes(secret.toBytes()).publicKey())
    val bundle = createBundle(secret, "pässwörd", kdfParamsArgon2id(64u, 1u, 1u))
    assertContentEquals(secret.toBytes(), openBundle(secret.publicKey(), bundle, "pässwörd", kdfLimitsDefault()).toBytes())
    val bot = IdentityKey.generate("bot", "machine-a")
    val key = StreamKey.generate()
    val wrap = wrapStreamKey("stream_root", 7u, key, bot.recipient())
    assertTrue(key.equals(unwrapStreamKey("stream_root", wrap, listOf(bot))))
}

// ---- every error code of the core, from Kotlin

fun everyErrorCode() {
    val root = "stream_root"
    val ring = Keyring(root)
    ring.insert(0u, StreamKey.generate())
    val slot = Slot.Message(root, "msg_1", "usr_1", 1u)
    val sealed = seal(ring, slot, "hello".toByteArray())

    expect<StreamsealException.MalformedBase64>("MALFORMED_BASE64") { decodeBase64("not base64!") }
    expect<StreamsealException.InvalidLength>("INVALID_LENGTH") { StreamKey.fromBytes(ByteArray(16)) }
    expect<StreamsealException.InputTooLarge>("INPUT_TOO_LARGE") { seal(ring, slot, ByteArray(4 * 1024 * 1024 + 1)) }
    expect<StreamsealException.MalformedJson>("MALFORMED_JSON") { sealedPayloadFromJson("[1]") }
    expect<StreamsealException.InvalidField>("INVALID_FIELD") { mintMessageId(ULong.MAX_VALUE) }
    expect<StreamsealException.UnsupportedEnvelopeVersion>("UNSUPPORTED_ENVELOPE_VERSION") {
        open(ring, slot, sealed.copy(envelope = sealed.envelope.copy(v = 2u)))
    }
    expect<StreamsealException.MalformedAad>("MALFORMED_AAD") { aadParse("streamseal/aad".toByteArray()) }
    expect<StreamsealException.AadMismatch>("AAD_MISMATCH") { open(ring, Slot.Message(root, "msg_2", "usr_1", 1u), sealed) }
    // A generation the envelope and its AAD agree on, but the keyring lacks.
    val later = Keyring(root)
    later.insert(5u, StreamKey.generate())
    val sealedLater = seal(later, slot, "later".toByteArray())
    expect<StreamsealException.UnknownKeyGeneration>("UNKNOWN_KEY_GENERATION") { open(ring, slot, sealedLater) }
    expect<StreamsealException.KeyGenerationConflict>("KEY_GENERATION_CONFLICT") { ring.insert(0u, StreamKey.generate()) }
    val tampered = decodeBase64(sealed.ciphertext).also { it[0] = (it[0].toInt() xor 1).toByte() }
    expect<StreamsealException.DecryptionFailed>("DECRYPTION_FAILED") {
        open(ring, slot, sealed.copy(ciphertext = encodeBase64(tampered)))
    }
    val lowOrder = encodeBase64(ByteArray(32))
    expect<StreamsealException.InvalidPublicKey>("INVALID_PUBLIC_KEY") {
        wrapStreamKey(root, 0u, StreamKey.generate(), Recipient("bot", "machine-x", lowOrder))
    }
    val bot = IdentityKey.generate("bot", "machine-a")
    val other = IdentityKey.generate("bot", "machine-b")
    val wrap = wrapStreamKey(root, 0u, StreamKey.generate(), bot.recipient())
    expect<StreamsealException.NoMatchingKey>("NO_MATCHING_KEY") { unwrapStreamKey(root, wrap, listOf(other)) }
    expect<StreamsealException.UntrustedWrap>("UNTRUSTED_WRAP") { unwrapStreamKey("stream_other", wrap, listOf(bot)) }
    expect<StreamsealException.TooManyKeys>("TOO_MANY_KEYS") { unwrapStreamKey(root, wrap, List(33) { bot }) }

    val secret = SecretKey.generate()
    val small = kdfParamsArgon2id(64u, 1u, 1u)
    val bundle = createBundle(secret, "right", small)
    val raw = decodeBase64(bundle.encryptedPrivateBundle)
    val limits = kdfLimitsDefault()
    expect<StreamsealException.UnsupportedBundleVersion>("UNSUPPORTED_BUNDLE_VERSION") {
        openBundle(secret.publicKey(), bundle.copy(encryptedPrivateBundle = encodeBase64(raw.copyOf().also { it[0] = 2 })), "right", limits)
    }
    expect<StreamsealException.MalformedBundle>("MALFORMED_BUNDLE") {
        openBundle(secret.publicKey(), bundle.copy(encryptedPrivateBundle = encodeBase64(raw.copyOf(raw.size - 1))), "right", limits)
    }
    expect<StreamsealException.WrongPassphrase>("WRONG_PASSPHRASE") { openBundle(secret.publicKey(), bundle, "wrong", limits) }
    // A bundle that decrypts under the record's AAD but holds another key.
    val salt = decodeBase64(bundle.kdfSalt)
    val kek = deriveKey("right", salt, small)
    val iv = ByteArray(12) { 7 }
    val ct = aes256gcmSeal(kek, iv, SecretKey.generate().toBytes(), bundleAad(1u, secret.publicKey()))
    val crafted = bundle.copy(encryptedPrivateBundle = encodeBase64(byteArrayOf(1) + iv + ct))
    expect<StreamsealException.BundleKeyMismatch>("BUNDLE_KEY_MISMATCH") { openBundle(secret.publicKey(), crafted, "right", limits) }
    expect<StreamsealException.UnsupportedKdf>("UNSUPPORTED_KDF") { kdfParamsCheck(small.copy(algorithm = "argon2i"), limits) }
    expect<StreamsealException.KdfParamsOutOfBounds>("KDF_PARAMS_OUT_OF_BOUNDS") {
        openBundle(secret.publicKey(), bundle.copy(kdfParams = small.copy(m = 4u * 1024u * 1024u)), "right", limits)
    }
    setFixedRandomness(ByteArray(0))
    try {
        expect<StreamsealException.RandomnessUnavailable>("RANDOMNESS_UNAVAILABLE") { StreamKey.generate() }
    } finally {
        clearFixedRandomness()
    }
    val v = expect<StreamsealException.ValidationFailed>("VALIDATION_FAILED") { checkSendRules(false, "{\"content\":\"\"}") }
    assertTrue(v.details.isNotEmpty(), "validation details: ${v.details}")
    expect<StreamsealException.E2eStreamRequiresCiphertext>("E2E_STREAM_REQUIRES_CIPHERTEXT") { checkSendRules(true, "{\"content\":\"hi\"}") }
    val sealedBody = sealMessage(ring, root, mintMessageId(1_790_000_000_000uL), "usr_1", "hi", null)
    expect<StreamsealException.E2ePayloadRequiresE2eStream>("E2E_PAYLOAD_REQUIRES_E2E_STREAM") { checkSendRules(false, sealedBody) }

    assertEquals(errorCodes().toSortedSet(), reached, "every code of the core is reached from Kotlin")
    assertEquals(25, reached.size)
}

// ---- the sealed-flow scenario

/** The wraps of a `POST .../e2e/key-wraps` body as the list serves them (each with its generation). */
private fun servedWraps(requestJson: String): List<Any?> {
    val request = Json.parse(requestJson).obj()
    return request["wraps"].list().map { LinkedHashMap(it.obj()).apply { put("keyGeneration", request["keyGeneration"]) } }
}

fun scenario() {
    val root = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M"
    val ownerId = "usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q1"
    val small = kdfParamsArgon2id(64u, 1u, 1u)
    val limits = kdfLimitsDefault()

    // The owner sets up a passphrase key; the server stores the record.
    val new = setUpUserKey("key_owner_laptop", "correct horse", small)
    val record = LinkedHashMap(Json.parse(new.recordJson).obj())
    record["createdAt"] = "2026-11-21T10:00:00Z"
    expect<StreamsealException.WrongPassphrase>("WRONG_PASSPHRASE") { unlock(Json.write(record), "wrong horse", limits) }
    val owner = unlock(Json.write(record), "correct horse", limits)
    assertEquals(new.key.publicKey(), owner.publicKey())

    // A bot runtime on two machines, one key each.
    val machineA = IdentityKey.generate("bot", "machine-a")
    val machineB = IdentityKey.generate("bot", "machine-b")

    // Generation 0, wrapped to all; the server keeps the wraps it was sent.
    val gen0 = generationZero(root, listOf(owner.recipient(), machineA.recipient(), machineB.recipient()))
    assertEquals(0u, gen0.keyGeneration)
    val stored = sortedMapOf(0 to servedWraps(gen0.requestJson))
    assertEquals(3, stored[0]!!.size)
    fun keyWraps(current: Int) = Json.write(
        mapOf("currentKeyGeneration" to current.toLong(), "ownerUserId" to ownerId, "wraps" to stored.values.flatten()),
    )
    fun asMessage(body: String, id: String, sequence: Int): String {
        val b = Json.parse(body).obj()
        assertTrue("content" !in b, "a sealed body carries no plaintext")
        return Json.write(
            mapOf(
                "id" to id, "streamId" to root, "sequence" to sequence.toString(), "authorId" to ownerId,
                "authorType" to "user", "content" to "[sealed]", "replyCount" to 0L, "metadata" to emptyMap<String, Any>(),
                "revision" to 1L, "createdAt" to "2026-11-21T10:00:00Z", "sealed" to b["sealed"],
            ),
        )
    }

    val msg1 = mintMessageId(1_790_000_000_000uL)
    val body = sealMessage(gen0.keyring, root, msg1, ownerId, "Ship the release on Thursday?", "cmid_1")
    checkSendRules(true, body)
    val message1 = asMessage(body, msg1, 1)

    // Machine B opens its wraps and reads it.
    val ringB = openKeyWraps(root, keyWraps(0), listOf(machineB))
    assertEquals(emptyList(), ringB.skipped)
    assertEquals(0u, ringB.keyring.currentGeneration())
    val opened = openMessage(ringB.keyring, message1)
    assertEquals("Ship the release on Thursday?", opened.text)
    assertEquals(ownerId, opened.authorId)

    // An edit opens as revision 2 and cannot be replayed as revision 1.
    val edit = sealEdit(gen0.keyring, message1, ownerId, "Ship on Friday.")
    val m = LinkedHashMap(Json.parse(message1).obj())
    m["sealed"] = payloadJson(edit)
    m["revision"] = 2L
    assertEquals("Ship on Friday.", openMessage(ringB.keyring, Json.write(m)).text)
    m["revision"] = 1L
    expect<StreamsealException.AadMismatch>("AAD_MISMATCH") { openMessage(ringB.keyring, Json.write(m)) }

    // A decision card from the runtime's side, and the owner's note.
    val card = sealDecisionCard(
        ringB.keyring, root, "dreq_01JD3QQB2C4E6G8J0K2M4P6R8T", "session-1", "inv_01JD3QN9E1G3J5M7Q9S1V3X5Z7",
        listOf(DecisionOption("approve", "primary"), DecisionOption("reject", "neutral")), true,
        """{"title":"Deploy?","body":"All checks green.","labels":{"approve":"Deploy","reject":"Wait"}}""",
    )
    assertEquals("Deploy?", Json.parse(openDecisionCard(gen0.keyring, root, card)).obj()["title"])
    val note = payloadJson(sealDecisionNote(gen0.keyring, "dreq_01JD3QQB2C4E6G8J0K2M4P6R8T", "approve", ownerId, "Go ahead")).obj()
    val event = mapOf(
        "decisionId" to "dreq_01JD3QQB2C4E6G8J0K2M4P6R8T", "optionId" to "approve", "decidedBy" to ownerId,
        "noteCiphertext" to note["ciphertext"], "noteEnvelope" to note["envelope"],
    )
    assertEquals("Go ahead", openDecisionNote(ringB.keyring, Json.write(event)))

    // Machine B is removed: the generation rolls to the others.
    val rolled = rollGeneration(gen0.keyring, listOf(owner.recipient(), machineA.recipient()))
    assertEquals(1u, rolled.keyGeneration)
    stored[1] = servedWraps(rolled.requestJson)
    val msg2 = mintMessageId(1_790_000_000_001uL)
    val message2 = asMessage(sealMessage(rolled.keyring, root, msg2, ownerId, "After the roll", null), msg2, 2)

    val ringA = openKeyWraps(root, keyWraps(1), listOf(machineA))
    assertEquals(listOf(0u, 1u), ringA.keyring.generations())
    assertEquals("After the roll", openMessage(ringA.keyring, message2).text)
    val ringB2 = openKeyWraps(root, keyWraps(1), listOf(machineB))
    assertEquals(listOf(0u), ringB2.keyring.generations())
    expect<StreamsealException.UnknownKeyGeneration>("UNKNOWN_KEY_GENERATION") { openMessage(ringB2.keyring, message2) }
    assertEquals("Ship the release on Thursday?", openMessage(ringB2.keyring, message1).text)
    assertNull(openDecisionNote(ringA.keyring, Json.write(mapOf("decisionId" to "dreq_01JD3QQB2C4E6G8J0K2M4P6R8T", "optionId" to "approve", "decidedBy" to ownerId))))
}

// ---- the sans-IO catalogue and paging helpers

fun catalogue() {
    val all = endpoints()
    assertEquals(58u, endpointCount())
    assertEquals(endpointCount().toInt(), all.size)
    assertEquals(58, all.map { it.id }.toSet().size)
    val send = endpoint("sendMessage")
    assertEquals(all.first { it.id == "sendMessage" }, send)
    assertEquals("sendMessage", send.id)
    assertEquals(HttpMethod.POST, send.method)
    assertTrue(!send.idempotent && !send.claimBound && !send.conflictMayMeanLanded)
    for (row in all) assertEquals(row, endpoint(row.id))
    assertEquals("/streams/{streamId}/messages", send.pathTemplate)
    assertEquals(listOf("streamId"), send.pathParams)
    assertEquals(RequiredScope.Scope("messages:write"), send.scope)
    assertEquals(AuthKind.BEARER, send.auth)
    assertEquals(Family.MESSAGES, send.family)
    assertEquals("messages:write", missingScope("sendMessage", listOf("messages:read")))
    assertNull(missingScope("sendMessage", listOf("messages:read", "messages:write")))
    assertEquals(RequiredScope.NoKey, endpoint("postWebhook").scope)
    assertEquals(AuthKind.SECRET_URL, endpoint("postWebhook").auth)
    expect<StreamsealException.InvalidField>("INVALID_FIELD") { endpoint("noSuchEndpoint") }
    expect<StreamsealException.InvalidField>("INVALID_FIELD") { missingScope("noSuchEndpoint", emptyList()) }
    val cmid = mintClientMessageId(1_790_000_000_000uL)
    assertTrue(cmid.startsWith("cmid_") && cmid.length == 31, cmid)
    assertEquals("c2", nextCursor(true, "c2"))
    assertNull(nextCursor(false, "c2"))
    assertNull(nextCursor(true, ""))

    // nextMessageQuery: backwards `before` the lowest sequence (7 and 42
    // in the fixture), forwards `after` the highest; null on the last page.
    val list = Json.parse(File(fixtures, "message_list_2026-08-21.json").readText()).obj()
    assertNull(nextMessageQuery("""{"limit":2}""", Json.write(list)))
    val more = Json.write(LinkedHashMap(list).apply { put("hasMore", true) })
    assertEquals(mapOf("limit" to 2L, "before" to 7L), Json.parse(nextMessageQuery("""{"limit":2}""", more)!!).obj())
    assertEquals(mapOf("after" to 42L), Json.parse(nextMessageQuery("""{"after":1}""", more)!!).obj())
    expect<StreamsealException.MalformedJson>("MALFORMED_JSON") { nextMessageQuery("{}", """{"data":[]}""") }
}

private val fixtures = File(vectors, "../../fixtures/wire")
private val ctx = Context("https://chat.example.test", "ws_01J80000000000000000000001", "svc_bk_secret", null)

fun endpointsBuiltAndParsed() {
    val send = Json.write(
        mapOf(
            "endpoint" to "sendMessage", "streamId" to "stream_01J80000000000000000000010",
            "body" to mapOf("content" to "ship it", "clientMessageId" to "cmid_1"),
        ),
    )
    val req = buildRequest(ctx, send)
    assertEquals(HttpMethod.POST, req.method)
    assertEquals("/api/v1/workspaces/ws_01J80000000000000000000001/streams/stream_01J80000000000000000000010/messages", req.path)
    assertEquals(listOf(Header("Authorization", "Bearer svc_bk_secret"), Header("Content-Type", "application/json")), req.headers)
    assertEquals(mapOf("content" to "ship it", "clientMessageId" to "cmid_1"), Json.parse((req.body as RequestBody.Json).json))
    assertTrue(req.retrySafe)
    val ok = parseResponse(
        req,
        HttpResponse(201u, listOf(Header("Service-Version", "2026-08-21")), File(fixtures, "message_send_2026-08-21.json").readText()),
    )
    assertEquals(201.toUShort(), ok.status)
    assertEquals("2026-08-21", ok.version)
    assertEquals("message", Json.parse(ok.dataJson).obj()["kind"])

    val limited = assertFailsWith<StreamsealException.Api> {
        parseResponse(req, HttpResponse(429u, listOf(Header("Retry-After", "7")), File(fixtures, "error_rate_limited.json").readText()))
    }
    assertEquals(429.toUShort(), limited.status)
    assertEquals(7uL, limited.retryAfter)
    assertTrue(limited.retrySafe)
    val invalid = assertFailsWith<StreamsealException.Api> {
        parseResponse(req, HttpResponse(400u, emptyList(), File(fixtures, "error_validation.json").readText()))
    }
    assertEquals(listOf("Required"), invalid.details["instanceId"])
    expect<StreamsealException.ValidationFailed>("VALIDATION_FAILED") {
        buildRequest(ctx, """{"endpoint":"sendMessage","streamId":"s","body":{"content":""}}""")
    }
    expect<StreamsealException.MalformedJson>("MALFORMED_JSON") { buildRequest(ctx, """{"endpoint":"noSuchEndpoint"}""") }

    val list = """{"endpoint":"listStreams","query":{"type":"channel","limit":2}}"""
    val listReq = buildRequest(ctx, list)
    assertEquals("https://chat.example.test/api/v1/workspaces/ws_01J80000000000000000000001/streams?type=channel&limit=2", listReq.url)
    val page = parseResponse(listReq, HttpResponse(200u, emptyList(), File(fixtures, "stream_page_2026-08-21.json").readText()))
    assertNull(nextPage(list, page.dataJson))
    val data = LinkedHashMap(Json.parse(page.dataJson).obj())
    data["data"] = LinkedHashMap(data["data"].obj()).apply { put("hasMore", true); put("cursor", "c2") }
    val next = Json.parse(nextPage(list, Json.write(data))!!).obj()
    assertEquals("listStreams", next["endpoint"])
    assertEquals(mapOf("type" to "channel", "limit" to 2L, "after" to "c2"), next["query"])
    assertTrue(buildRequest(ctx, Json.write(next)).url.endsWith("/streams?type=channel&after=c2&limit=2"))
    assertNull(nextPage("""{"endpoint":"getMe"}""", Json.write(data)))
    assertNull(nextPage(list, """{"kind":"noContent"}"""))
    expect<StreamsealException.MalformedJson>("MALFORMED_JSON") { nextPage(list, """{"kind":"streams","data":{"data":[]}}""") }

    // A message list pages by sequence.
    val messages = """{"endpoint":"listMessages","streamId":"stream_1","query":{"limit":2}}"""
    val listed = parseResponse(
        buildRequest(ctx, messages),
        HttpResponse(200u, emptyList(), File(fixtures, "message_list_2026-08-21.json").readText()),
    )
    val more = LinkedHashMap(Json.parse(listed.dataJson).obj())
    more["data"] = LinkedHashMap(more["data"].obj()).apply { put("hasMore", true) }
    val nextMessages = Json.parse(nextPage(messages, Json.write(more))!!).obj()
    assertEquals(mapOf("limit" to 2L, "before" to 7L), nextMessages["query"])
}

fun errorsCarryMessages() {
    val e = assertFailsWith<StreamsealException.MalformedBase64> { decodeBase64("%%%") }
    // Display is exported: toString() is the core's one line, `CODE: message`.
    assertEquals("MALFORMED_BASE64: ${e.errorMessage}", e.toString())
    assertTrue(e.message!!.contains("MALFORMED_BASE64"), e.message)
    assertEquals("MALFORMED_BASE64", e.code)
    assertTrue(e.errorMessage.contains("base64"), e.errorMessage)
}

fun main() {
    val tests = listOf(
        "golden envelopes" to ::goldenEnvelopes,
        "golden wraps" to ::goldenWraps,
        "golden bundles" to ::goldenBundles,
        "golden invocations" to ::goldenInvocations,
        "round trips" to ::roundTrips,
        "every error code" to ::everyErrorCode,
        "errors carry messages" to ::errorsCarryMessages,
        "catalogue and paging" to ::catalogue,
        "requests built and responses parsed" to ::endpointsBuiltAndParsed,
        "sealed-flow scenario" to ::scenario,
    )
    var failed = 0
    for ((name, test) in tests) {
        try {
            test()
            println("ok   $name")
        } catch (t: Throwable) {
            failed++
            println("FAIL $name: $t")
            t.printStackTrace()
        }
    }
    println("kotlin: ${tests.size - failed} passed, $failed failed; ${reached.size} error codes reached")
    if (failed > 0) exitProcess(1)
}
