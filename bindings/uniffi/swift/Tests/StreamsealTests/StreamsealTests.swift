// XCTest mirror of the Kotlin tests (bindings/uniffi/kotlin/src/Main.kt).
//
// UNTESTED HERE: no Swift toolchain can be installed on the Linux machines
// this repository is tested on; `cargo xtask test` only proves the generated
// Swift API has not drifted. Run with `swift test` on a Mac after building
// StreamsealRust.xcframework (see bindings/uniffi/README.md).
//
// The golden vectors are checked here in the direction that needs no fixed
// randomness (the package has the same `hazmat*WithRandomness` exports the
// Kotlin and Python suites seal them with, but this file cannot be run here
// to prove a use of them): every deterministic output (AAD bytes, wrap info, public
// keys, bundle AAD) byte for byte, and every sealed output
// of the vectors opened back to its inputs (envelopes with their sender's
// signature checked against a pinned, own or presented key; wraps only as
// made by their sender; the invocation through a stream state that accepts
// the owner's key, with the member's key presented). Sealing with the
// vectors' fixed randomness is covered by the Kotlin and Python suites.

import Foundation
import XCTest

@testable import Streamseal

private let vectorsDir: URL = {
    if let dir = ProcessInfo.processInfo.environment["STREAMSEAL_VECTORS"] {
        return URL(fileURLWithPath: dir)
    }
    // Tests/StreamsealTests -> repository root.
    return URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tests/vectors/streamseal")
}()

private func load(_ name: String) throws -> [String: Any] {
    let data = try Data(contentsOf: vectorsDir.appendingPathComponent(name))
    return try JSONSerialization.jsonObject(with: data) as! [String: Any]
}

private func hex(_ text: String) -> Data {
    var out = Data()
    var i = text.startIndex
    while i < text.endIndex {
        let j = text.index(i, offsetBy: 2)
        out.append(UInt8(text[i..<j], radix: 16)!)
        i = j
    }
    return out
}

private func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

private func slot(_ s: [String: Any]) -> Slot {
    switch s["kind"] as! String {
    case "message":
        return .message(streamId: s["streamId"] as! String, messageId: s["messageId"] as! String,
                        authorId: s["authorId"] as! String, authorType: s["authorType"] as! String,
                        revision: UInt32(s["revision"] as! Int))
    case "botReply":
        return .botReply(streamId: s["streamId"] as! String, messageId: s["messageId"] as! String,
                         authorId: s["authorId"] as! String, invocationId: s["invocationId"] as! String)
    case "traceStep":
        return .traceStep(invocationId: s["invocationId"] as! String, stepId: s["stepId"] as! String,
                          stepType: s["stepType"] as! String,
                          phase: (s["phase"] as! String) == "started" ? .started : .completed,
                          messageId: s["messageId"] as? String)
    case "decisionCard":
        let options = (s["options"] as! [[String: Any]]).map { DecisionOption(id: $0["id"] as! String, tone: $0["tone"] as! String) }
        return .decisionCard(streamId: s["streamId"] as! String, decisionId: s["decisionId"] as! String,
                             invocationId: s["invocationId"] as! String, runtimeSessionId: s["runtimeSessionId"] as! String,
                             options: options, allowNote: s["allowNote"] as! Bool)
    default:
        return .decisionNote(decisionId: s["decisionId"] as! String, optionId: s["optionId"] as! String,
                             decidedBy: s["decidedBy"] as! String)
    }
}

private func json(_ value: Any) throws -> String {
    String(data: try JSONSerialization.data(withJSONObject: value), encoding: .utf8)!
}

/// Asserts that `f` throws the variant whose stable code is `code`.
private func expectCode(_ code: String, _ f: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
    do {
        try f()
        XCTFail("expected \(code)", file: file, line: line)
    } catch let error as StreamsealError {
        XCTAssertTrue(error.description.hasPrefix(code + ": "), error.description, file: file, line: line)
        // LocalizedError: the message, not just the enum name.
        XCTAssertTrue(error.localizedDescription.contains(code), error.localizedDescription, file: file, line: line)
    } catch {
        XCTFail("unexpected \(error)", file: file, line: line)
    }
}

final class GoldenVectorTests: XCTestCase {
    func testEnvelopes() throws {
        let vectors = try load("envelopes.json")["vectors"] as! [[String: Any]]
        XCTAssertEqual(vectors.count, 8)
        for v in vectors {
            let root = v["rootStreamId"] as! String
            let gen = UInt32(v["keyGeneration"] as! Int)
            let ring = try Keyring(rootStreamId: root)
            try ring.insert(generation: gen, key: try StreamKey.fromBytes(bytes: hex(v["streamKeyHex"] as! String)))
            let s = slot(v["slot"] as! [String: Any])
            let subject = v["senderSubject"] as! String
            let sender = try IdentityKey.fromSecret(kind: v["senderKind"] as! String, keyId: v["senderKeyId"] as! String,
                                                    secret: try SecretKey.fromBytes(bytes: hex(v["senderSecretKeyHex"] as! String)))
            XCTAssertEqual(sender.publicKey(), v["senderPublicKey"] as! String)
            let aadSender = AadSender(subject: subject, kind: sender.kind(), keyId: sender.keyId())
            XCTAssertEqual(hex(try aadEncode(version: 2, rootStreamId: root, keyGeneration: gen, sender: aadSender, slot: s)),
                           v["aadHex"] as! String)
            let sealed = try sealedPayloadFromJson(json: try json(v["sealed"]!))
            // The key commitment is the first 32 bytes of the ciphertext.
            XCTAssertEqual(hex(try decodeBase64(text: sealed.ciphertext).prefix(32)), v["commitmentHex"] as! String)
            // The opener pinned the sender's key on first use: unverified.
            let trust = try TrustStore(policy: "tofu")
            XCTAssertEqual(try trust.observe(subject: subject, recipient: sender.recipient()), "new")
            let opened = try open(keyring: ring, trust: trust, expected: s, sealed: sealed)
            XCTAssertEqual(String(data: opened.plaintext, encoding: .utf8), v["plaintext"] as? String)
            XCTAssertEqual(opened.sealedBy, SealedBy(subject: subject, kind: sender.kind(), keyId: sender.keyId(), status: "unverified"))
            // Its own key: verified; a key the server presented, not pinned: unverified; none: UNKNOWN_KEY.
            XCTAssertEqual(try open(keyring: ring, trust: try TrustStore(policy: "tofu"), expected: s, sealed: sealed,
                                    own: OwnKeys(subject: subject, keys: [sender])).sealedBy.status, "verified")
            let presented = PresentedKey(subject: subject, kind: sender.kind(), keyId: sender.keyId(), publicKey: sender.publicKey())
            XCTAssertEqual(try open(keyring: ring, trust: try TrustStore(policy: "tofu"), expected: s, sealed: sealed,
                                    presented: [presented]).sealedBy.status, "unverified")
            expectCode("UNKNOWN_KEY") { _ = try open(keyring: ring, trust: try TrustStore(policy: "tofu"), expected: s, sealed: sealed) }
        }
    }

    func testWraps() throws {
        let vectors = try load("wraps.json")["vectors"] as! [[String: Any]]
        XCTAssertEqual(vectors.count, 3)
        for v in vectors {
            let root = v["rootStreamId"] as! String
            let gen = UInt32(v["keyGeneration"] as! Int)
            let me = try IdentityKey.fromSecret(kind: v["recipientKind"] as! String, keyId: v["recipientKeyId"] as! String,
                                                secret: try SecretKey.fromBytes(bytes: hex(v["recipientSecretKeyHex"] as! String)))
            let sender = try IdentityKey.fromSecret(kind: v["senderKind"] as! String, keyId: v["senderKeyId"] as! String,
                                                    secret: try SecretKey.fromBytes(bytes: hex(v["senderSecretKeyHex"] as! String)))
            XCTAssertEqual(me.publicKey(), v["recipientPublicKey"] as! String)
            XCTAssertEqual(sender.publicKey(), v["senderPublicKey"] as! String)
            XCTAssertEqual(hex(try wrapInfo(rootStreamId: root, generation: gen, recipientKind: v["recipientKind"] as! String,
                                            recipientKeyId: v["recipientKeyId"] as! String, senderKind: v["senderKind"] as! String,
                                            senderKeyId: v["senderKeyId"] as! String)), v["infoHex"] as! String)
            let w = v["wrap"] as! [String: Any]
            let wrap = KeyWrap(keyGeneration: gen, recipientKeyId: w["recipientKeyId"] as? String, recipientKind: w["recipientKind"] as? String,
                               wrapEnc: w["wrapEnc"] as! String, wrapCt: w["wrapCt"] as! String)
            let opened = try unwrapStreamKey(rootStreamId: root, wrap: wrap, mine: [me], senders: [sender.recipient()])
            XCTAssertEqual(hex(opened.key.toBytes()), v["streamKeyHex"] as! String)
            // Only as made by the sender: a wrap from no accepted sender is refused.
            let stranger = try IdentityKey.generate(kind: "user", keyId: "stranger")
            expectCode("UNTRUSTED_WRAP") { _ = try unwrapStreamKey(rootStreamId: root, wrap: wrap, mine: [me], senders: [stranger.recipient()]) }
        }
    }

    func testBundles() throws {
        let vectors = try load("bundles.json")["vectors"] as! [[String: Any]]
        XCTAssertEqual(vectors.count, 3)
        for v in vectors {
            let secret = try SecretKey.fromBytes(bytes: hex(v["secretKeyHex"] as! String))
            XCTAssertEqual(secret.publicKey(), v["publicKey"] as! String)
            XCTAssertEqual(hex(try bundleAad(version: 1, publicKey: v["publicKey"] as! String)), v["aadHex"] as! String)
            let r = v["record"] as! [String: Any]
            let p = r["kdfParams"] as! [String: Any]
            let params = KdfParams(algorithm: p["algorithm"] as! String, m: UInt32(p["m"] as! Int), t: UInt32(p["t"] as! Int),
                                   p: UInt32(p["p"] as! Int), version: UInt32(p["version"] as! Int))
            let bundle = SealedBundle(encryptedPrivateBundle: r["encryptedPrivateBundle"] as! String, kdfSalt: r["kdfSalt"] as! String, kdfParams: params)
            // Passphrases cross as the UTF-8 bytes, which the caller wipes when done.
            var passphrase = Data((v["passphrase"] as! String).utf8)
            let opened = try openBundle(publicKey: v["publicKey"] as! String, bundle: bundle, passphrase: passphrase, limits: kdfLimitsDefault())
            XCTAssertEqual(hex(opened.toBytes()), v["secretKeyHex"] as! String)
            passphrase.resetBytes(in: 0..<passphrase.count)
            // The bytes the vector says Argon2 sees (the NFC form) open it too.
            let nfc = hex(v["passphraseKdfBytesHex"] as! String)
            XCTAssertEqual(hex(try openBundle(publicKey: v["publicKey"] as! String, bundle: bundle, passphrase: nfc, limits: kdfLimitsDefault()).toBytes()),
                           v["secretKeyHex"] as! String)
        }
    }

    func testInvocations() throws {
        let v = (try load("invocations.json")["vectors"] as! [[String: Any]])[0]
        let runtime = try IdentityKey.fromSecret(kind: v["runtimeKeyKind"] as! String, keyId: v["runtimeKeyId"] as! String,
                                                 secret: try SecretKey.fromBytes(bytes: hex(v["runtimeSecretKeyHex"] as! String)))
        let invocation = v["invocation"] as! [String: Any]
        let ownerId = v["ownerUserId"] as! String
        // The runtime pinned the owner's key and accepts it as the stream's key sender.
        let trust = try TrustStore(policy: "tofu")
        let owner = try ownerKey(trust: trust, ownerUserId: ownerId,
                                 ownerKeyRecord: try json(["keyId": v["ownerKeyId"]!, "publicKey": v["ownerPublicKey"]!]))
        let state = try StreamState(rootStreamId: invocation["rootStreamId"] as! String)
        try state.setOwner(userId: ownerId)
        try state.acceptSender(trustedKey: owner)
        // The member's key was presented by the server, not pinned.
        let member = PresentedKey(subject: v["memberUserId"] as! String, kind: v["memberKeyKind"] as! String,
                                  keyId: v["memberKeyId"] as! String, publicKey: v["memberPublicKey"] as! String)
        let opened = try OpenedInvocation.open(invocationJson: try json(invocation), state: state, trust: trust,
                                               botId: v["botId"] as! String, identities: [runtime], presented: [member])
        XCTAssertEqual(opened.prompt(), v["expectedPrompt"] as! String)
        XCTAssertEqual(opened.promptSealedBy().status, v["expectedPromptStatus"] as! String)
        let history = opened.history().map { item -> [String: String]? in
            if case let .opened(entry) = item {
                return ["text": entry.text, "sealedBy": entry.sealedBy.subject, "status": entry.sealedBy.status]
            }
            return nil
        }
        XCTAssertEqual(history, (v["expectedHistory"] as! [[String: String]]).map { Optional($0) })
        XCTAssertEqual(opened.wraps().admitted.map { $0.sender }, [ownerId])
        // The reply the vector sealed opens as the bot's reply slot.
        let complete = v["sealedComplete"] as! [String: Any]
        let reply = complete["reply"] as! [String: Any]
        XCTAssertEqual(reply["messageId"] as? String, v["replyMessageId"] as? String)
    }
}

final class RoundTripAndErrorTests: XCTestCase {
    func testRoundTrips() throws {
        let ring = try Keyring(rootStreamId: "stream_root")
        try ring.insert(generation: 0, key: try StreamKey.generate())
        let me = try IdentityKey.generate(kind: "user", keyId: "key_laptop")
        let trust = try TrustStore(policy: "tofu")
        let s = Slot.decisionNote(decisionId: "dreq_1", optionId: "yes", decidedBy: "usr_1")
        for text in ["", "x", String(repeating: "é ✅ ", count: 100)] {
            let sealed = try seal(keyring: ring, identity: me, subject: "usr_1", slot: s, plaintext: Data(text.utf8))
            let again = try sealedPayloadFromJson(json: sealedPayloadToJson(payload: sealed))
            XCTAssertEqual(again, sealed)
            let opened = try open(keyring: ring, trust: trust, expected: s, sealed: again, own: OwnKeys(subject: "usr_1", keys: [me]))
            XCTAssertEqual(String(data: opened.plaintext, encoding: .utf8), text)
            XCTAssertEqual(opened.sealedBy, SealedBy(subject: "usr_1", kind: "user", keyId: "key_laptop", status: "verified"))
        }
    }

    func testBadInputsRaiseTheirCodes() throws {
        let root = "stream_root"
        let ring = try Keyring(rootStreamId: root)
        try ring.insert(generation: 0, key: try StreamKey.generate())
        let me = try IdentityKey.generate(kind: "user", keyId: "key_laptop")
        let mine = OwnKeys(subject: "usr_1", keys: [me])
        let trust = try TrustStore(policy: "tofu")
        let s = Slot.message(streamId: root, messageId: "msg_1", authorId: "usr_1", authorType: "user", revision: 1)
        let sealed = try seal(keyring: ring, identity: me, subject: "usr_1", slot: s, plaintext: Data("hello".utf8))
        expectCode("MALFORMED_BASE64") { _ = try decodeBase64(text: "not base64!") }
        expectCode("INVALID_LENGTH") { _ = try StreamKey.fromBytes(bytes: Data(count: 16)) }
        expectCode("MALFORMED_JSON") { _ = try sealedPayloadFromJson(json: "[1]") }
        expectCode("AAD_MISMATCH") {
            _ = try open(keyring: ring, trust: trust,
                         expected: .message(streamId: root, messageId: "msg_2", authorId: "usr_1", authorType: "user", revision: 1),
                         sealed: sealed, own: mine)
        }
        // Another key holder sealing as usr_1, under usr_1's key id.
        let forger = try IdentityKey.fromSecret(kind: "user", keyId: me.keyId(), secret: try SecretKey.generate())
        let forged = try seal(keyring: ring, identity: forger, subject: "usr_1", slot: s, plaintext: Data("wire it all".utf8))
        expectCode("SENDER_MISMATCH") { _ = try open(keyring: ring, trust: trust, expected: s, sealed: forged, own: mine) }
        // A slot that names an author seals only as that author.
        expectCode("INVALID_FIELD") { _ = try seal(keyring: ring, identity: me, subject: "usr_2", slot: s, plaintext: Data("x".utf8)) }
        expectCode("KEY_GENERATION_CONFLICT") { try ring.insert(generation: 0, key: try StreamKey.generate()) }
        expectCode("MALFORMED_AAD") { _ = try aadParse(bytes: Data("streamseal/aad".utf8)) }
        expectCode("INVALID_PUBLIC_KEY") {
            _ = try wrapStreamKey(rootStreamId: root, generation: 0, key: try StreamKey.generate(),
                                  sender: try IdentityKey.generate(kind: "bot", keyId: "machine-a"),
                                  recipient: Recipient(kind: "bot", keyId: "machine-x", publicKey: encodeBase64(bytes: Data(count: 32))))
        }
        expectCode("E2E_STREAM_REQUIRES_CIPHERTEXT") { try checkSendRules(knownSealed: false, e2eEnabled: true, bodyJson: "{\"content\":\"hi\"}") }
        expectCode("SEALED_STREAM_DOWNGRADE") { try checkSendRules(knownSealed: true, e2eEnabled: nil, bodyJson: "{\"content\":\"hi\"}") }
        expectCode("KDF_PARAMS_OUT_OF_BOUNDS") { try kdfParamsCheck(params: kdfParamsArgon2id(m: 4 * 1024 * 1024, t: 1, p: 1), limits: kdfLimitsDefault()) }
        // Below the creation floor (m = 19456 KiB, t = 2, p = 1) no new bundle is made.
        expectCode("KDF_PARAMS_OUT_OF_BOUNDS") {
            _ = try createBundle(secret: try SecretKey.generate(), passphrase: Data("right".utf8), params: kdfParamsArgon2id(m: 64, t: 1, p: 1))
        }
        // A passphrase that is not UTF-8.
        expectCode("INVALID_FIELD") {
            _ = try setUpUserKey(keyId: "key_1", passphrase: Data([0xff, 0xfe]), params: kdfParamsCreationFloor())
        }
        XCTAssertEqual(errorCodes().count, 40)
    }

    func testTrustStoreAndSafetyNumbers() throws {
        let me = try IdentityKey.generate(kind: "user", keyId: "key_laptop")
        let bob = try IdentityKey.generate(kind: "user", keyId: "key_phone")
        let swapped = try IdentityKey.generate(kind: "user", keyId: "key_phone")
        let store = try TrustStore(policy: "tofu")
        XCTAssertEqual(try store.observe(subject: "usr_bob", recipient: bob.recipient()), "new")
        XCTAssertEqual(try store.observe(subject: "usr_bob", recipient: swapped.recipient()), "changed")
        expectCode("KEY_CHANGED") { _ = try store.trusted(subject: "usr_bob", recipient: swapped.recipient()) }
        try store.verify(subject: "usr_bob", recipient: bob.recipient())
        XCTAssertEqual(try store.trusted(subject: "usr_bob", recipient: bob.recipient()).level(), "verified")
        let data = try store.toBytes(identity: me)
        XCTAssertEqual(try TrustStore.fromBytes(bytes: data, identity: me).keysOf(subject: "usr_bob"), store.keysOf(subject: "usr_bob"))
        expectCode("STATE_AUTH_FAILED") { _ = try TrustStore.fromBytes(bytes: data, identity: bob) }
        let onMe = try safetyNumber(localSubject: "usr_me", localKey: me.publicKey(), remoteSubject: "usr_bob", remoteKey: bob.publicKey())
        let onBob = try safetyNumber(localSubject: "usr_bob", localKey: bob.publicKey(), remoteSubject: "usr_me", remoteKey: me.publicKey())
        XCTAssertEqual(onMe.digits(), onBob.digits())
        XCTAssertTrue(try onBob.matchesScanned(scanned: onMe.scannable()))
        XCTAssertFalse(try onMe.matchesScanned(scanned: onMe.scannable()))
        XCTAssertEqual(try fingerprint(subject: "usr_me", publicKey: me.publicKey()).digits.count, 30)
    }
}

final class ScenarioTests: XCTestCase {
    func testSharedScratchpad() throws {
        let root = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M"
        let ownerId = "usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q1"
        // The passphrase crosses as UTF-8 bytes: the library zeroizes its
        // copy, the app wipes its own (resetBytes) once done.
        var passphrase = Data("correct horse".utf8)
        let new = try setUpUserKey(keyId: "key_owner_laptop", passphrase: passphrase, params: kdfParamsCreationFloor())
        var record = try JSONSerialization.jsonObject(with: Data(new.recordJson.utf8)) as! [String: Any]
        record["createdAt"] = "2026-11-21T10:00:00Z"
        expectCode("WRONG_PASSPHRASE") { _ = try unlock(recordJson: try json(record), passphrase: Data("wrong".utf8), limits: kdfLimitsDefault()) }
        let owner = try unlock(recordJson: try json(record), passphrase: passphrase, limits: kdfLimitsDefault())
        passphrase.resetBytes(in: 0..<passphrase.count)
        let machineB = try IdentityKey.generate(kind: "bot", keyId: "machine-b")
        let botId = "bot_01JD3QB0T0000000000000000B"
        // Generation 0 from the owner, to its machine-b key pinned on first sight; in force once committed.
        let ownerTrust = try TrustStore(policy: "tofu")
        let ownerState = try StreamState(rootStreamId: root)
        let gen0 = try ownerState.prepareRoll(identity: owner, trustedKeys: [
            TrustedKey.own(subject: ownerId, identity: owner),
            try ownerTrust.admit(subject: botId, recipient: machineB.recipient()),
        ])
        XCTAssertEqual(gen0.roster().count, 2)
        XCTAssertEqual(try ownerState.commitRoll(roll: gen0), 0)
        let wraps: [[String: Any]] = gen0.wraps().map { w in
            ["keyGeneration": Int(w.keyGeneration), "recipientKeyId": w.recipientKeyId!, "recipientKind": w.recipientKind!,
             "wrapEnc": w.wrapEnc, "wrapCt": w.wrapCt]
        }
        // Machine B pins the owner's key and accepts it as the key sender.
        let trustB = try TrustStore(policy: "tofu")
        let stateB = try StreamState(rootStreamId: root)
        try stateB.setOwner(userId: ownerId)
        try stateB.acceptSender(trustedKey: try ownerKey(trust: trustB, ownerUserId: ownerId,
                                                         ownerKeyRecord: try json(["keyId": owner.keyId(), "publicKey": owner.publicKey()])))
        let list = try json(["currentKeyGeneration": 0, "ownerUserId": ownerId, "wraps": wraps])
        XCTAssertEqual(try openKeyWraps(state: stateB, trust: trustB, keyWrapsJson: list, identities: [machineB]).admitted.count, 1)
        let id = try mintMessageId(nowMs: 1_790_000_000_000)
        let body = try sealMessage(keyring: ownerState.keyring(), identity: owner, subject: ownerId, streamId: root, messageId: id,
                                   text: "Ship the release on Thursday?")
        let sent = try JSONSerialization.jsonObject(with: Data(body.utf8)) as! [String: Any]
        XCTAssertEqual(sent["clientMessageId"] as? String, id)
        func message(id serverId: String, streamId: String, authorType: String = "user") throws -> String {
            try json(["id": serverId, "streamId": streamId, "sequence": "1", "authorId": ownerId, "authorType": authorType,
                      "content": "[sealed]", "replyCount": 0, "metadata": [String: Any](), "revision": 1,
                      "createdAt": "2026-11-21T10:00:00Z", "clientMessageId": id, "sealed": sent["sealed"]!])
        }
        let opened = try openMessage(keyring: stateB.keyring(), trust: trustB, streamId: root, messageJson: try message(id: id, streamId: root))
        XCTAssertEqual(opened.text, "Ship the release on Thursday?")
        XCTAssertEqual(opened.sealedBy, SealedBy(subject: ownerId, kind: "user", keyId: owner.keyId(), status: "unverified"))
        // The server assigns an id of its own: it opens through clientMessageId, with the minted id.
        let served = try message(id: "msg_01JD3QZZSERVERASSIGNED000000", streamId: root)
        XCTAssertEqual(try openMessage(keyring: stateB.keyring(), trust: trustB, streamId: root, messageJson: served).messageId, id)
        // Moved to a thread, or with another authorType: refused.
        let thread = "stream_01JD3QJ5THREAD00000000000A"
        expectCode("AAD_MISMATCH") {
            _ = try openMessage(keyring: stateB.keyring(), trust: trustB, streamId: thread, messageJson: try message(id: id, streamId: thread))
        }
        expectCode("AAD_MISMATCH") {
            _ = try openMessage(keyring: stateB.keyring(), trust: trustB, streamId: root,
                                messageJson: try message(id: id, streamId: root, authorType: "system"))
        }

        // A hostile server mints generation 1 with its own key: skipped, never sealed under.
        let server = try IdentityKey.generate(kind: "user", keyId: owner.keyId())
        let forged = try wrapStreamKey(rootStreamId: root, generation: 1, key: try StreamKey.generate(), sender: server,
                                       recipient: machineB.recipient())
        let forgedList = try json(["currentKeyGeneration": 1, "ownerUserId": ownerId, "wraps": wraps + [[
            "keyGeneration": 1, "recipientKeyId": forged.recipientKeyId!, "recipientKind": forged.recipientKind!,
            "wrapEnc": forged.wrapEnc, "wrapCt": forged.wrapCt,
        ]]])
        let report = try openKeyWraps(state: stateB, trust: trustB, keyWrapsJson: forgedList, identities: [machineB])
        XCTAssertEqual(report.skipped, [SkippedWrap(keyGeneration: 1, code: "UNTRUSTED_WRAP")])
        XCTAssertEqual(stateB.highWater(), 0)
        expectCode("UNKNOWN_KEY_GENERATION") {
            _ = try sealMessage(keyring: stateB.keyring(), identity: machineB, subject: botId, streamId: root,
                                messageId: try mintMessageId(nowMs: 1_790_000_000_001), text: "for the server")
        }
    }
}
