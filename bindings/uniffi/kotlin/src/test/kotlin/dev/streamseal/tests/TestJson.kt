// JSON for the tests, through Jackson (the tests must not read their vectors
// with the library under test): objects are read as ordered maps
// (LinkedHashMap), arrays as lists, integers as Long and other numbers as
// Double, so that a parsed document compares equal to `mapOf("limit" to 2L)`;
// maps, lists, strings, numbers, booleans and null are written back.

package dev.streamseal.tests

import com.fasterxml.jackson.databind.DeserializationFeature
import com.fasterxml.jackson.databind.json.JsonMapper

object Json {
    private val mapper = JsonMapper.builder()
        .enable(DeserializationFeature.USE_LONG_FOR_INTS)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .build()

    fun parse(text: String): Any? = mapper.readValue(text, Any::class.java)

    fun write(value: Any?): String = mapper.writeValueAsString(value)
}

@Suppress("UNCHECKED_CAST")
fun Any?.obj(): Map<String, Any?> = this as Map<String, Any?>

@Suppress("UNCHECKED_CAST")
fun Any?.list(): List<Any?> = this as List<Any?>

fun Any?.str(): String = this as String

fun Any?.long(): Long = this as Long

fun String.hex(): ByteArray = chunked(2).map { it.toInt(16).toByte() }.toByteArray()

fun ByteArray.hex(): String = joinToString("") { "%02x".format(it) }
