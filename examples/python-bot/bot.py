"""A sealed-stream bot runtime over HTTP, in under a hundred lines:
presence with its machine key, a sealed scratchpad session, generation 0
wrapped to the owner and itself, then, for each invocation: claim, open the
sealed prompt (refused if the server forged or downgraded anything), a
sealed step, a sealed reply. It echoes the prompt back; put your model there.

    pip install 'streamseal[http]'
    streamseal serve --port 8787            # a local stand-in of the service
    python bot.py --base-url http://127.0.0.1:8787 --workspace ws_... --key svc_bk_...

It prints one JSON line when ready (the session's stream and the machine's
public key, which the owner compares before trusting it), then one per reply.
"""

import argparse
import json
import os
import time

import streamseal as ss
from streamseal.http import Client


def data(response):
    return json.loads(response.data_json)["data"]


def now_ms():
    return int(time.time() * 1000)


def main():
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--base-url", default=os.environ.get("STREAMSEAL_BASE_URL", "http://127.0.0.1:8787"))
    args.add_argument("--workspace", default=os.environ.get("STREAMSEAL_WORKSPACE"))
    args.add_argument("--key", default=os.environ.get("STREAMSEAL_KEY"), help="the bot's API key (svc_bk_...)")
    args.add_argument("--invocations", type=int, default=0, help="stop after this many (0: never)")
    opts = args.parse_args()

    instance = "machine-a"
    machine = ss.IdentityKey.generate("bot", instance)  # a real runtime keeps it, sealed under a passphrase
    with Client(opts.base_url, opts.workspace, opts.key) as api:
        me = data(api.call({"endpoint": "getMe"}))
        bot_id = me["botId"]
        api.call({"endpoint": "postPresence", "body": {
            "runtimeKind": "custom", "instanceId": instance, "status": "available", "acceptingInvocations": True,
            "capabilities": {}, "publicKey": machine.public_key(), "publicKeyId": machine.key_id()}})

        # The owner's key, pinned on first use (TOFU: the server's word until the owner compares safety numbers).
        trust = ss.TrustStore("tofu")
        owner_record = data(api.call({"endpoint": "getOwnerE2eKey"}))
        link = data(api.call({"endpoint": "createSession", "body": {
            "runtimeKind": "alpha-local", "instanceId": instance, "runtimeSessionId": "python-bot",
            "displayName": "Python bot", "e2e": {"ownerKeyId": owner_record["keyId"]}}}))
        root = link["rootStreamId"]
        owner_id = data(api.call({"endpoint": "getKeyWraps", "streamId": root}))["ownerUserId"]
        owner = ss.owner_key(trust, owner_id, json.dumps(owner_record))
        state = ss.StreamState(root)
        state.set_owner(owner_id)
        state.accept_sender(owner)

        # Generation 0, for the owner and this machine.
        roll = state.prepare_roll(machine, [owner, ss.TrustedKey.own(bot_id, machine)])
        wraps = [{"recipientKind": w.recipient_kind, "recipientKeyId": w.recipient_key_id,
                  "wrapEnc": w.wrap_enc, "wrapCt": w.wrap_ct} for w in roll.wraps()]
        api.call({"endpoint": "postKeyWraps", "streamId": root, "body": {"keyGeneration": 0, "wraps": wraps}})
        state.commit_roll(roll)
        print(json.dumps({"ready": True, "rootStreamId": root, "botId": bot_id,
                          "machineKey": {"kind": "bot", "keyId": machine.key_id(), "publicKey": machine.public_key()}}),
              flush=True)

        handled = 0
        while opts.invocations == 0 or handled < opts.invocations:
            invocation = data(api.call({"endpoint": "claimInvocation", "body": {
                "runtimeKind": "alpha-local", "instanceId": instance,
                "supportedCapabilities": ["active-scratchpad"], "claimTtlSeconds": 60}}))["data"]
            if invocation is None:
                time.sleep(0.2)
                continue
            handled += 1
            try:
                opened = ss.OpenedInvocation.open(json.dumps(invocation), state, trust, bot_id, [machine])
            except ss.StreamsealError as refused:  # forged, replayed, downgraded, ...: never act on it
                api.call({"endpoint": "failInvocation", "invocationId": invocation["id"], "body": {
                    "instanceId": instance, "claimToken": invocation["claimToken"],
                    "errorMessage": f"refused: {refused.code}"}})
                print(json.dumps({"refused": invocation["id"], "code": refused.code}), flush=True)
                continue
            callback = invocation["sealedContext"]["callbackToken"]
            step = json.loads(opened.seal_step("think-1", "thinking", None, "reading the prompt", 1))
            api.call({"endpoint": "sealedStep", "invocationId": invocation["id"], "callbackToken": callback, "body": step})
            answer = f"You said: {opened.prompt()}"
            reply = json.loads(opened.seal_reply(ss.mint_message_id(now_ms()), answer))
            api.call({"endpoint": "sealedComplete", "invocationId": invocation["id"], "callbackToken": callback,
                      "body": reply})
            print(json.dumps({"replied": invocation["id"]}), flush=True)


if __name__ == "__main__":
    main()
