// A consumer of the streamseal jar and nothing else of the repository:
// `cargo xtask package --consumers jvm` copies this project to
// target/package-consumers/jvm, installs the jar into the local Maven
// repository and runs this main with the dependency classpath (the jar, and
// JNA and the Kotlin standard library through the jar's POM), without
// -Djna.library.path: JNA loads libstreamseal_ffi.so from the jar.
// Exits non-zero on any wrong result.

package dev.streamseal.consumer

import dev.streamseal.Slot
import dev.streamseal.ffi.IdentityKey
import dev.streamseal.ffi.Keyring
import dev.streamseal.ffi.OwnKeys
import dev.streamseal.ffi.StreamKey
import dev.streamseal.ffi.StreamsealException
import dev.streamseal.ffi.TrustStore
import dev.streamseal.ffi.decodeBase64
import dev.streamseal.ffi.errorCodes
import dev.streamseal.ffi.open
import dev.streamseal.ffi.seal
import java.lang.management.ManagementFactory
import kotlin.system.exitProcess

private fun check(ok: Boolean, what: String) {
    if (!ok) {
        System.err.println("consumer: FAILED: $what")
        exitProcess(1)
    }
}

fun main() {
    val atMain = ManagementFactory.getRuntimeMXBean().uptime
    check(System.getProperty("jna.library.path") == null, "no jna.library.path is set")
    val resource = Thread.currentThread().contextClassLoader.getResource("linux-x86-64/libstreamseal_ffi.so")
    check(resource?.protocol == "jar", "the library is a resource of the jar: $resource")

    // The first call loads JNA, extracts the library from the jar and registers its functions.
    val started = System.nanoTime()
    val me = IdentityKey.generate("user", "key_laptop")
    val firstCall = (System.nanoTime() - started) / 1e6
    check(decodeBase64(me.publicKey()).size == 32, "an X25519 public key of 32 bytes")

    // Sealed by my key, opened as verified.
    val started2 = System.nanoTime()
    val ring = Keyring("stream_root")
    ring.insert(0u, StreamKey.generate())
    val slot = Slot.Message("stream_root", "msg_1", "usr_me", "user", 1u)
    val sealed = seal(ring, me, "usr_me", slot, "hello from the jar".toByteArray())
    val opened = open(ring, TrustStore("tofu"), slot, sealed, own = OwnKeys("usr_me", listOf(me)))
    val roundTrip = (System.nanoTime() - started2) / 1e6
    check(String(opened.plaintext) == "hello from the jar", "the plaintext opens: ${String(opened.plaintext)}")
    check(opened.sealedBy.status == "verified", "sealed by my own key: ${opened.sealedBy}")
    check(opened.keyGeneration == 0u, "generation 0")

    // Opened in another slot: refused with its stable code.
    val moved = Slot.Message("stream_root", "msg_2", "usr_me", "user", 1u)
    val refused = try {
        open(ring, TrustStore("tofu"), moved, sealed, own = OwnKeys("usr_me", listOf(me)))
        null
    } catch (e: StreamsealException.AadMismatch) {
        e
    }
    check(refused?.code == "AAD_MISMATCH", "a moved ciphertext is AAD_MISMATCH: $refused")
    check(refused.toString().startsWith("AAD_MISMATCH: "), "toString is CODE: message: $refused")
    check("AAD_MISMATCH" in errorCodes() && errorCodes().size == 40, "error_codes() lists the 40 codes")

    println(
        "consumer: ok (JVM start to main %d ms, first call %.1f ms, seal and open %.1f ms)"
            .format(atMain, firstCall, roundTrip),
    )
}
