"""streamseal.http (the endpoints over httpx, sync and asyncio) against
`streamseal serve` over real sockets: a sealed bot loop end to end, a 429
waited out, a send whose answer is lost resent without a duplicate, a call
that may have landed never resent blindly, and the hostile server's attacks
refused with their codes.

`cargo xtask test` runs this with httpx from a pinned venv, the package laid
out as the wheel lays it out (STREAMSEAL_PY_BINDINGS/streamseal) and the
binary in STREAMSEAL_BIN.
"""

import asyncio
import json
import os
import subprocess
import sys
import time
import unittest
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
sys.path.insert(0, os.environ.get("STREAMSEAL_PY_BINDINGS", os.path.join(ROOT, "target", "uniffi", "python")))

import streamseal as ss  # noqa: E402
from streamseal.http import AsyncClient, Client, LostResponse  # noqa: E402

BIN = os.environ.get("STREAMSEAL_BIN", os.path.join(ROOT, "target", "debug", "streamseal"))


class Serve:
    """`streamseal serve` on a free port, for one test."""

    def __init__(self, *args):
        self.proc = subprocess.Popen([BIN, "serve", "--port", "0", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.seed = json.loads(self.proc.stdout.readline())
        self.base = self.seed["baseUrl"]

    def close(self):
        self.proc.kill()
        self.proc.wait()

    def control(self, key, method, path, body=None):
        """The stand-in's `/_serve/` routes (what the service does in its app)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
        with urllib.request.urlopen(req) as res:
            text = res.read().decode()
            return json.loads(text) if text else None

    def client(self, key, **options):
        return Client(self.base, self.seed["workspaceId"], key, **options)


def data(response):
    """The typed data of an ApiResponse (`{"kind", "data"}` JSON)."""
    return json.loads(response.data_json)["data"]


FAST = ss.RetryPolicy(base_delay_ms=10, max_delay_ms=50, max_attempts=3, max_wait_ms=5000)


class SealedWorld:
    """A sealed session at generation 0 over HTTP: the owner's key set up, the
    runtime's machine key in presence, the wraps posted, both states holding
    generation 0."""

    def __init__(self, serve):
        self.serve = serve
        seed = serve.seed
        self.owner_id, self.bot_id = seed["user"]["id"], seed["bots"][0]["id"]
        self.owner_api = serve.client(seed["user"]["key"], retry=FAST)
        self.bot_api = serve.client(seed["bots"][0]["key"], retry=FAST)
        self.owner = ss.IdentityKey.generate("user", "key_owner")
        self.machine = ss.IdentityKey.generate("bot", "machine-a")
        serve.control(seed["user"]["key"], "PUT", "/_serve/e2e-key",
                      {"keyId": self.owner.key_id(), "publicKey": self.owner.public_key()})
        self.bot_api.call({"endpoint": "postPresence", "body": {
            "runtimeKind": "alpha-local", "instanceId": "machine-a", "status": "available",
            "acceptingInvocations": True, "capabilities": {},
            "publicKey": self.machine.public_key(), "publicKeyId": self.machine.key_id()}})
        link = data(self.bot_api.call({"endpoint": "createSession", "body": {
            "runtimeKind": "alpha-local", "instanceId": "machine-a", "runtimeSessionId": "sess-1",
            "displayName": "Scratch", "e2e": {"ownerKeyId": self.owner.key_id()}}}))
        assert link["e2eEnabled"] is True
        self.root = link["rootStreamId"]
        # The runtime: pins the owner's key, makes generation 0.
        self.bot_trust = ss.TrustStore("tofu")
        owner_record = json.dumps(data(self.bot_api.call({"endpoint": "getOwnerE2eKey"})))
        owner_key = ss.owner_key(self.bot_trust, self.owner_id, owner_record)
        self.bot_state = ss.StreamState(self.root)
        self.bot_state.set_owner(self.owner_id)
        self.bot_state.accept_sender(owner_key)
        roll = self.bot_state.prepare_roll(self.machine, [owner_key, ss.TrustedKey.own(self.bot_id, self.machine)])
        wraps = [{"recipientKind": w.recipient_kind, "recipientKeyId": w.recipient_key_id,
                  "wrapEnc": w.wrap_enc, "wrapCt": w.wrap_ct} for w in roll.wraps()]
        stored = data(self.bot_api.call({"endpoint": "postKeyWraps", "streamId": self.root,
                                         "body": {"keyGeneration": 0, "wraps": wraps}}))
        assert stored["stored"] == 2
        self.bot_state.commit_roll(roll)
        # The owner's device: pinned the machine key (compared out of band).
        self.owner_trust = ss.TrustStore("tofu")
        self.machine_key = self.owner_trust.admit(self.bot_id, self.machine.recipient())
        self.owner_state = ss.StreamState(self.root)
        self.owner_state.accept_sender(self.machine_key)
        listed = json.dumps(data(self.owner_api.call({"endpoint": "getKeyWraps", "streamId": self.root})))
        report = ss.open_key_wraps(self.owner_state, self.owner_trust, listed, [self.owner])
        assert report.skipped == []

    def send(self, text):
        body = ss.seal_message(self.owner_state.keyring(), self.owner, self.owner_id, self.root,
                               ss.mint_message_id(int(time.time() * 1000)), text)
        return data(self.owner_api.call({"endpoint": "sendMessage", "streamId": self.root, "body": json.loads(body)}))

    def claim(self):
        return data(self.bot_api.call({"endpoint": "claimInvocation", "body": {
            "runtimeKind": "alpha-local", "instanceId": "machine-a",
            "supportedCapabilities": ["active-scratchpad"], "claimTtlSeconds": 60}}))["data"]

    def open(self, invocation):
        return ss.OpenedInvocation.open(json.dumps(invocation), self.bot_state, self.bot_trust, self.bot_id,
                                        [self.machine])

    def close(self):
        self.owner_api.close()
        self.bot_api.close()


class HttpAdapter(unittest.TestCase):
    def setUp(self):
        self.serves = []

    def tearDown(self):
        for s in self.serves:
            s.close()

    def serve(self, *args):
        s = Serve(*args)
        self.serves.append(s)
        return s

    def test_a_success_body_that_is_not_utf8_is_refused(self):
        # A byte no UTF-8 text has (0xFF) in a stream's name: read with a
        # replacement character before; a byte-order mark: refused by the
        # JSON reader. An error body is read only for its code.
        client = Client("https://api.example.test", "ws_01J80000000000000000000001", "svc_bk_secret")
        built = client._core.build({"endpoint": "listStreams", "query": {"type": "channel"}})
        with open(os.path.join(ROOT, "tests", "fixtures", "wire", "stream_page_2026-08-21.json"), "rb") as f:
            honest = f.read()
        headers = [("service-version", "2026-08-21")]
        self.assertEqual(client._core.read(built, 200, headers, honest).data_json[:2], '{"')
        bad = honest.replace(b'"general"', b'"gen\xffral"', 1)
        self.assertNotEqual(bad, honest)
        with self.assertRaises(ss.StreamsealError.MalformedJson) as caught:
            client._core.read(built, 200, headers, bad)
        self.assertEqual(caught.exception.code, "MALFORMED_JSON")
        self.assertIn("not UTF-8", str(caught.exception))
        # As any success body that is not JSON: MalformedResponse, with the status.
        with self.assertRaises(ss.StreamsealError.MalformedResponse) as caught:
            client._core.read(built, 200, headers, b"\xef\xbb\xbf" + honest)
        self.assertEqual((caught.exception.code, caught.exception.status), ("MALFORMED_JSON", 200))
        with self.assertRaises(ss.StreamsealError.Api) as caught:
            client._core.read(built, 400, headers, b'{"error": "bad \xff"}')
        self.assertEqual((caught.exception.status, caught.exception.error_message), (400, "bad \ufffd"))

    def test_a_sealed_bot_loop_end_to_end(self):
        serve = self.serve("--rate-limit", "0")
        w = SealedWorld(serve)
        try:
            prompt = "summarise the release notes"
            sent = w.send(prompt)
            self.assertEqual(sent["data"]["content"], "[sealed]")
            invocation = w.claim()
            opened = w.open(invocation)
            self.assertEqual(opened.prompt(), prompt)
            self.assertEqual(opened.prompt_sealed_by().subject, w.owner_id)
            callback = invocation["sealedContext"]["callbackToken"]
            step = json.loads(opened.seal_step("step-1", "thinking", None, "reading", 5))
            w.bot_api.call({"endpoint": "sealedStep", "invocationId": invocation["id"],
                            "callbackToken": callback, "body": step})
            reply_text = "Three changes."
            reply = json.loads(opened.seal_reply(ss.mint_message_id(int(time.time() * 1000)), reply_text))
            done = data(w.bot_api.call({"endpoint": "sealedComplete", "invocationId": invocation["id"],
                                        "callbackToken": callback, "body": reply}))
            self.assertTrue(done["messageId"].startswith("msg_"))
            # The owner opens the history: prompt and reply, each checked.
            pages = list(w.owner_api.pages({"endpoint": "listMessages", "streamId": w.root, "query": {}}))
            messages = json.loads(pages[0].data_json)["data"]["data"]
            results = ss.open_messages(w.owner_state.keyring(), w.owner_trust, w.root, json.dumps(messages),
                                       ss.OwnKeys(subject=w.owner_id, keys=[w.owner]), [])
            self.assertEqual([r.message.text for r in results], [prompt, reply_text])
            self.assertEqual([r.message.sealed_by.subject for r in results], [w.owner_id, w.bot_id])
            # Revoke: the owner removes the bot, the runtime is told.
            serve.control(serve.seed["user"]["key"], "POST", f"/_serve/streams/{w.root}/remove-bot")
            events = serve.control(serve.seed["bots"][0]["key"], "GET", "/_serve/events?after=0&waitMs=2000")
            kinds = [ss.decode_event(e["event"], json.dumps(e["payload"])) for e in events["data"]]
            self.assertIsInstance(kinds[-1], ss.RealtimeEvent.E2E_REVOKE)
        finally:
            w.close()

    def test_a_429_is_waited_out_then_200(self):
        serve = self.serve("--rate-limit", "2", "--window-ms", "1500")
        with serve.client(serve.seed["bots"][0]["key"]) as client:
            started = time.monotonic()
            for _ in range(3):
                self.assertEqual(data(client.call({"endpoint": "getMe"}))["kind"], "bot")
            self.assertGreaterEqual(time.monotonic() - started, 1.0, "the third call waited for the window")
        # Without retries, the 429 is raised with its facts and the step.
        with serve.client(serve.seed["bots"][0]["key"], retry=False) as once:
            with self.assertRaises(ss.StreamsealError.Api) as ctx:
                for _ in range(3):
                    once.call({"endpoint": "getMe"})
            self.assertEqual(ctx.exception.status, 429)
            self.assertEqual(ctx.exception.retry.kind, ss.RetryKind.RATE_LIMITED)
            self.assertIsInstance(ctx.exception.step, ss.RetryStep.GIVE_UP)

    def test_a_lost_answer_is_resent_and_lands_once(self):
        serve = self.serve("--rate-limit", "0")
        user, bot = serve.seed["user"]["key"], serve.seed["bots"][0]["key"]
        retries = []
        with serve.client(bot) as b, serve.client(user, retry=FAST, on_retry=lambda n, step: retries.append((n, step))) as owner:
            link = data(b.call({"endpoint": "createSession", "body": {
                "runtimeKind": "alpha-local", "instanceId": "machine-a", "runtimeSessionId": "s",
                "displayName": "Scratch"}}))
            serve.control(user, "POST", "/_serve/faults", {"endpoint": "sendMessage"})
            sent = data(owner.call({"endpoint": "sendMessage", "streamId": link["rootStreamId"],
                                    "body": {"content": "ship it"}}))
            listed = data(owner.call({"endpoint": "listMessages", "streamId": link["rootStreamId"], "query": {}}))
            self.assertEqual([m["clientMessageId"] for m in listed["data"]], [sent["data"]["clientMessageId"]])
            # The first answer was lost (the connection closed unanswered): sent again once.
            self.assertEqual([(n, isinstance(step, ss.RetryStep.RETRY)) for n, step in retries], [(1, True)])

    def test_what_may_have_landed_is_read_back_not_resent(self):
        serve = self.serve("--rate-limit", "0")
        w = SealedWorld(serve)
        try:
            # The key-wrap post of generation 0 again: a 409 that may mean it landed.
            with self.assertRaises(ss.StreamsealError.Api) as ctx:
                w.bot_api.call({"endpoint": "postKeyWraps", "streamId": w.root, "body": {"keyGeneration": 0, "wraps": [
                    {"recipientKind": "bot", "recipientKeyId": "machine-a", "wrapEnc": "ZW5j", "wrapCt": "Y3Q="}]}})
            self.assertTrue(ctx.exception.may_have_landed)
            self.assertEqual(ctx.exception.step, ss.RetryStep.READ_BACK(endpoint="getKeyWraps", delay_ms=0))
            # No answer at all to a claim (not retry-safe, no read tells): given up, not resent.
            serve.control(serve.seed["user"]["key"], "POST", "/_serve/faults", {"endpoint": "claimInvocation"})
            with self.assertRaises(LostResponse) as lost:
                w.claim()
            self.assertEqual(lost.exception.step,
                             ss.RetryStep.GIVE_UP(reason=ss.GiveUpReason.OUTCOME_UNKNOWN, wait_ms=None))
        finally:
            w.close()

    def test_the_hostile_servers_attacks_are_refused(self):
        serve = self.serve("--rate-limit", "0")
        user = serve.seed["user"]["key"]
        w = SealedWorld(serve)

        def hostile(*attacks):
            serve.control(user, "POST", "/_serve/hostile", {"attacks": list(attacks)})

        try:
            w.send("before the attack")
            hostile("mint-generation")
            invocation = w.claim()
            opened = w.open(invocation)
            self.assertEqual([(s.key_generation, s.code) for s in opened.wraps().skipped],
                             [(1, "UNTRUSTED_WRAP")])
            with self.assertRaises(ss.StreamsealError.UnknownKeyGeneration):
                opened.seal_reply(ss.mint_message_id(int(time.time() * 1000)), "never under the server's key")
            hostile()
            w.send("the owner's words")
            hostile("forge-prompt")
            with self.assertRaises(ss.StreamsealError.UnknownKeyGeneration):
                w.open(w.claim())
            hostile()
            w.send("sealed words")
            hostile("downgrade")
            with self.assertRaises(ss.StreamsealError.SealedStreamDowngrade):
                w.open(w.claim())
        finally:
            w.close()

    def test_the_python_bot_example_answers_sealed(self):
        """examples/python-bot/bot.py, run as it is, against serve; the owner's side here."""
        serve = self.serve("--rate-limit", "0")
        seed = serve.seed
        owner = ss.IdentityKey.generate("user", "key_owner")
        serve.control(seed["user"]["key"], "PUT", "/_serve/e2e-key",
                      {"keyId": owner.key_id(), "publicKey": owner.public_key()})
        env = dict(os.environ, STREAMSEAL_BASE_URL=serve.base, STREAMSEAL_WORKSPACE=seed["workspaceId"],
                   STREAMSEAL_KEY=seed["bots"][0]["key"],
                   PYTHONPATH=os.environ.get("STREAMSEAL_PY_BINDINGS", os.path.join(ROOT, "target", "uniffi", "python")))
        bot = subprocess.Popen([sys.executable, os.path.join(ROOT, "examples", "python-bot", "bot.py"),
                                "--invocations", "1"], stdout=subprocess.PIPE, text=True, env=env)
        try:
            ready = json.loads(bot.stdout.readline())
            root, bot_id = ready["rootStreamId"], ready["botId"]
            trust = ss.TrustStore("tofu")
            machine = trust.admit(bot_id, ss.Recipient(kind=ready["machineKey"]["kind"],
                                                       key_id=ready["machineKey"]["keyId"],
                                                       public_key=ready["machineKey"]["publicKey"]))
            state = ss.StreamState(root)
            state.accept_sender(machine)
            with serve.client(seed["user"]["key"]) as api:
                listed = json.dumps(data(api.call({"endpoint": "getKeyWraps", "streamId": root})))
                self.assertEqual(ss.open_key_wraps(state, trust, listed, [owner]).skipped, [])
                body = ss.seal_message(state.keyring(), owner, seed["user"]["id"], root,
                                       ss.mint_message_id(int(time.time() * 1000)), "hello, bot")
                api.call({"endpoint": "sendMessage", "streamId": root, "body": json.loads(body)})
                self.assertEqual(json.loads(bot.stdout.readline())["replied"][:4], "inv_")
                messages = data(api.call({"endpoint": "listMessages", "streamId": root, "query": {}}))
                results = ss.open_messages(state.keyring(), trust, root, json.dumps(messages["data"]),
                                           ss.OwnKeys(subject=seed["user"]["id"], keys=[owner]), [])
                self.assertEqual([r.message.text for r in results], ["hello, bot", "You said: hello, bot"])
                self.assertEqual(results[1].message.sealed_by.subject, bot_id)
            self.assertEqual(bot.wait(timeout=30), 0)
        finally:
            bot.kill()
            bot.wait()

    def test_the_async_client(self):
        serve = self.serve("--rate-limit", "2", "--window-ms", "1200")
        seed = serve.seed

        async def run():
            async with AsyncClient(serve.base, seed["workspaceId"], seed["bots"][0]["key"]) as client:
                kinds = [data(await client.call({"endpoint": "getMe"}))["kind"] for _ in range(3)]
                link = data(await client.call({"endpoint": "createSession", "body": {
                    "runtimeKind": "alpha-local", "instanceId": "m", "runtimeSessionId": "s",
                    "displayName": "Scratch"}}))
                pages = [p async for p in client.pages({"endpoint": "listMessages",
                                                        "streamId": link["rootStreamId"], "query": {}})]
                return kinds, pages

        kinds, pages = asyncio.run(run())
        self.assertEqual(kinds, ["bot", "bot", "bot"])
        self.assertEqual(len(pages), 1)


if __name__ == "__main__":
    unittest.main()
