"""Conversation control through the client on every transport: cancel, approval from a callback,
messages sent to the chat, and a tool's question answered from a callback."""

import asyncio
import dataclasses
import json
import os
import time
import unittest

from support import TOKEN, Server, eventually, require_jar, write_config

from toolbus import (Client, InputRequest, KafkaOptions, RedisOptions, SendMessage, StdioOptions, ToolResult,
                     TransportError)
from toolbus.transports.http import HttpTransport

REQUIRE_ALL = os.environ.get("TOOLBUS_REQUIRE_ALL_TRANSPORTS") == "1"
# the servers run with approval mode auto for the wipe cases; echo, greet and ask_city are medium risk,
# so the other cases switch the step off for their turn (context.approval_mode)
NO_APPROVAL = {"approval_mode": "off"}


def _have(module):
    if REQUIRE_ALL:
        return True
    try:
        __import__(module)
        return True
    except ImportError:
        return False


class ControlCases:
    """The cases; subclasses say how to reach the server."""

    def client(self, **callbacks):
        raise NotImplementedError

    def stream(self, name):
        return "py:%s:%s:%d" % (self.__class__.__name__, name, os.getpid())

    async def test_cancel_stops_a_running_call_and_keeps_the_rest(self):
        progress = []
        async with self.client(on_progress=progress.append) as tb:
            stream = self.stream("cancel")
            # 100 steps of 300 ms: 30 s unless cancelled; its first progress event shows it runs (on a broker
            # or the sidecar the results come as one batch at the end, the live events at once)
            run = asyncio.ensure_future(tb.run_turn(stream, [
                {"tool_call_id": "fast", "name": "echo", "arguments": {"text": "kept"}},
                {"tool_call_id": "slow", "name": "progress", "arguments": {"steps": 100, "ms": 300}}],
                turn_id="t-cancel", context=NO_APPROVAL))
            await eventually(lambda: progress, timeout=30)
            started = time.monotonic()
            await tb.cancel(stream, turn_id="t-cancel", tool_call_id="slow", reason="user said stop")
            turn = await asyncio.wait_for(run, 10)
            self.assertLess(time.monotonic() - started, 5)
        self.assertEqual(turn.result("fast").content, "kept")
        self.assertEqual(turn.result("slow").error_code, "CANCELLED")
        self.assertLess(len(progress), 100)

    async def test_an_approval_answered_from_a_callback(self):
        asked = []

        async def approve(req):
            asked.append(req)
            await req.approve()

        async with self.client(on_approval_request=approve) as tb:
            turn = await tb.run_turn(self.stream("approve"), [
                {"tool_call_id": "w", "name": "wipe", "arguments": {"target": "tmp"}}])
        self.assertEqual(len(asked), 1)
        self.assertEqual(asked[0].calls[0]["tool_call_id"], "w")
        self.assertEqual(asked[0].calls[0]["risk"], "high")
        self.assertEqual(turn.result("w").content, "wiped tmp")

    async def test_a_denied_approval_is_not_approved(self):
        async with self.client(on_approval_request=lambda req: req.deny()) as tb:
            turn = await tb.run_turn(self.stream("deny"), [
                {"tool_call_id": "w", "name": "wipe", "arguments": {"target": "tmp"}}])
        self.assertEqual(turn.result("w").error_code, "NOT_APPROVED")

    async def test_an_approval_may_edit_the_arguments_of_its_call(self):
        async with self.client(on_approval_request=lambda req: req.approve(tool_call_id="w",
                                                                           arguments={"target": "other"})) as tb:
            turn = await tb.run_turn(self.stream("edit"), [
                {"tool_call_id": "w", "name": "wipe", "arguments": {"target": "tmp"}}])
        self.assertEqual(turn.result("w").content, "wiped other")
        self.assertEqual(turn.result("w").metadata.get("arguments_edited"), True)

    async def test_a_deny_may_say_why_and_the_model_reads_it(self):
        async with self.client(on_approval_request=lambda req: req.deny(message="not on a friday")) as tb:
            turn = await tb.run_turn(self.stream("deny-why"), [
                {"tool_call_id": "w", "name": "wipe", "arguments": {"target": "tmp"}}])
        self.assertEqual(turn.result("w").error_code, "NOT_APPROVED")
        self.assertIn("not on a friday", turn.result("w").content)

    async def test_send_message_arrives_before_the_result(self):
        sent = []
        async with self.client(on_send_message=sent.append) as tb:
            turn = await tb.run_turn(self.stream("greet"), [
                {"tool_call_id": "g", "name": "greet", "arguments": {"text": "你好！"}}], context=NO_APPROVAL)
        self.assertEqual([m.text for m in sent], ["你好！"])
        kinds = [type(e) for e in turn.events]
        self.assertLess(kinds.index(SendMessage), kinds.index(ToolResult))
        self.assertEqual(turn.result("g").content, "greeted")

    async def test_a_redelivered_turn_is_answered_again_and_the_copies_are_dropped(self):
        async with self.client() as tb:
            stream = self.stream("redelivered")
            calls = [{"tool_call_id": "d1", "name": "echo", "arguments": {"text": "once"}},
                     {"tool_call_id": "d2", "name": "draw", "arguments": {"label": "a cat"}}]
            first = await tb.run_turn(stream, calls, turn_id="t-first", context=NO_APPROVAL)
            self.assertEqual(len(first.events), 4)  # two results, the image's user_message, turn_completed
            before = tb.duplicates_dropped
            # a later turn keeps the stream followed (Redis reads a stream only while it has a turn)
            later = asyncio.ensure_future(tb.run_turn(stream, [
                {"tool_call_id": "l1", "name": "sleep", "arguments": {"ms": 30000}}], turn_id="t-later",
                context=NO_APPROVAL, timeout=60))
            await eventually(lambda: (stream, "t-later") in tb._pending)
            # the first turn delivered again, as an at-least-once bus or a retrying sender would: toolbus
            # does not run it again and answers with its recorded events, marked replayed. (A copy that
            # comes before the finished run is recorded joins it, and on a bus publishes nothing: the
            # copy is sent again until an answer comes.)
            copy = {"type": "tool_calls", "stream_id": stream, "turn_id": "t-first", "calls": calls,
                    "context": NO_APPROVAL}
            for attempt in range(10):
                await tb.transport.send_turn(copy)
                try:
                    await eventually(lambda: tb.duplicates_dropped >= before + 4, timeout=3)
                    break
                except AssertionError:
                    if attempt == 9:
                        raise
            await tb.cancel(stream, turn_id="t-later")
            turn = await asyncio.wait_for(later, 30)
        self.assertEqual([r.tool_call_id for r in turn.results], ["l1"])
        self.assertEqual(turn.result("l1").error_code, "CANCELLED")
        self.assertEqual(len(first.events), 4)
        self.assertEqual(first.result("d1").content, "once")

    async def test_the_bot_cores_trace_context_comes_back_on_every_event(self):
        trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
        async with self.client() as tb:
            turn = await tb.run_turn(self.stream("traced"), [
                {"tool_call_id": "t1", "name": "add", "arguments": {"a": 2, "b": 40}},
                {"tool_call_id": "t2", "name": "draw", "arguments": {"label": "x"}}], context=NO_APPROVAL,
                traceparent="00-%s-00f067aa0ba902b7-01" % trace_id, tracestate="core=1")
        self.assertEqual(len(turn.events), 4)
        for e in turn.events:
            self.assertRegex(e.traceparent or "", "^00-%s-[0-9a-f]{16}-01$" % trace_id, e.type)
            self.assertEqual(e.tracestate, "core=1")

    async def test_a_control_events_trace_context_reaches_toolbus(self):
        # answers nobody waits for are refused with UNKNOWN_REQUEST errors that carry the answers'
        # trace context back: it reached toolbus (over HTTP the 404 answers the POST itself)
        traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        errors, refused = [], []

        async def approve(req):
            question = InputRequest(type="input_request", stream_id=req.stream_id, turn_id=None, raw={},
                                    input_id="in-nobody-waits")
            for stray in (tb.respond_approval(dataclasses.replace(req, approval_id="ap-nobody-waits"), "approve",
                                              traceparent=traceparent, tracestate="ui=1"),
                          tb.respond_input(question, "accept", {"city": "Oslo"}, traceparent=traceparent,
                                           tracestate="ui=1")):
                try:
                    await stray
                except TransportError as e:
                    refused.append(e)
            await tb.respond_approval(req, "approve", traceparent=traceparent)

        async with self.client(on_approval_request=approve, on_error=errors.append) as tb:
            turn = await tb.run_turn(self.stream("traced-answer"), [
                {"tool_call_id": "w", "name": "wipe", "arguments": {"target": "tmp"}}])
            over_http = isinstance(tb.transport, HttpTransport)
            if not over_http:
                await eventually(lambda: len(errors) == 2, timeout=10)
        self.assertEqual(turn.result("w").content, "wiped tmp")
        if over_http:
            self.assertEqual([str(e)[:8] for e in refused], ["HTTP 404", "HTTP 404"])
            self.assertEqual(errors, [])
        else:
            self.assertEqual(refused, [])
            self.assertEqual([(e.code, e.traceparent, e.tracestate) for e in errors],
                             [("UNKNOWN_REQUEST", traceparent, "ui=1")] * 2)
            self.assertEqual(sorted(w for e in errors for w in ("ap-nobody-waits", "in-nobody-waits") if w in e.message),
                             ["ap-nobody-waits", "in-nobody-waits"])

    async def test_a_question_answered_from_a_callback(self):
        async with self.client(on_input_request=lambda req: req.accept({"city": "Paris"})) as tb:
            turn = await tb.run_turn(self.stream("ask"), [{"tool_call_id": "a", "name": "ask_city", "arguments": {}}],
                                     context=NO_APPROVAL)
        self.assertEqual(turn.result("a").content, "city Paris")

    async def test_a_declined_question_is_an_answer_too(self):
        asked = []

        async def decline(req):
            asked.append(req)
            await req.decline()

        async with self.client(on_input_request=decline) as tb:
            turn = await tb.run_turn(self.stream("decline"), [{"tool_call_id": "a", "name": "ask_city", "arguments": {}}],
                                     context=NO_APPROVAL)
        self.assertEqual([r.message for r in asked], ["Which city?"])
        self.assertEqual(turn.result("a").content, "no answer")


def gateway_server():
    return Server("--approval-mode", "auto").start()


class ApprovalAnswerChecksTest(unittest.IsolatedAsyncioTestCase):
    """A malformed answer is refused before anything is sent (no connection is needed to find out)."""

    async def test_misused_fields_are_refused(self):
        from toolbus.events import ApprovalRequest
        client = Client("ws://127.0.0.1:9/v1/ws", TOKEN)
        req = ApprovalRequest(type="approval_request", stream_id="s", turn_id="t", raw={},
                              approval_id="ap-0123456789abcdef",
                              calls=[{"tool_call_id": "w"}, {"tool_call_id": "x"}])
        with self.assertRaisesRegex(ValueError, "deny only"):
            await client.respond_approval(req, "approve", message="why")
        with self.assertRaisesRegex(ValueError, "deny only"):
            await client.respond_approval(req, "deny", message="x" * 2001)
        with self.assertRaisesRegex(ValueError, "approve or approve_session"):
            await client.respond_approval(req, "deny", arguments={"a": 1})
        with self.assertRaisesRegex(ValueError, "not a call of this request"):
            await client.respond_approval(req, "approve", tool_call_id="nope")


class HttpControlTest(ControlCases, unittest.IsolatedAsyncioTestCase):
    @classmethod
    def setUpClass(cls):
        require_jar(cls)
        cls.server = gateway_server()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def client(self, **callbacks):
        return Client("http://127.0.0.1:%d" % self.server.port, token=TOKEN, **callbacks)


@unittest.skipUnless(_have("websockets"), "needs the websockets package (Debian python3-websockets)")
class WebSocketControlTest(HttpControlTest):
    def client(self, **callbacks):
        return Client("ws://127.0.0.1:%d/v1/ws" % self.server.port, token=TOKEN, **callbacks)


class StdioControlTest(ControlCases, unittest.IsolatedAsyncioTestCase):
    def setUp(self):
        require_jar(self)

    def client(self, **callbacks):
        command = Server("--bus", "stdio", "--approval-mode", "auto", gateway=False).command()
        return Client("stdio:", transport=StdioOptions(command), **callbacks)


@unittest.skipUnless(_have("redis") and (REQUIRE_ALL or os.environ.get("TOOLBUS_REDIS_URL")),
                     "needs the redis package and TOOLBUS_REDIS_URL (scripts/lib/services.sh starts Redis)")
class RedisControlTest(ControlCases, unittest.IsolatedAsyncioTestCase):
    @classmethod
    def setUpClass(cls):
        require_jar(cls)
        cls.redis_url = os.environ["TOOLBUS_REDIS_URL"]
        prefix = "pyctl%d" % os.getpid()
        cls.calls = prefix + ":calls"
        cls.results = prefix + ":results:{stream_id}"
        config = write_config(cls, "bus:\n  type: redis\n  url: %s\n  calls: '%s'\n  results: '%s'\n  group: %s\n"
                              "gateway:\n  enabled: false\napproval:\n  mode: auto\n"
                              % (cls.redis_url, cls.calls, cls.results, prefix))
        cls.server = Server("--config", config, gateway=False).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def client(self, **callbacks):
        return Client(self.redis_url, transport=RedisOptions(calls_stream=self.calls, results_key=self.results),
                      **callbacks)


@unittest.skipUnless(_have("kafka") and (REQUIRE_ALL or os.environ.get("TOOLBUS_KAFKA_BOOTSTRAP")),
                     "needs the kafka-python package and TOOLBUS_KAFKA_BOOTSTRAP (scripts/lib/services.sh starts Kafka)")
class KafkaControlTest(ControlCases, unittest.IsolatedAsyncioTestCase):
    @classmethod
    def setUpClass(cls):
        require_jar(cls)
        cls.bootstrap = os.environ["TOOLBUS_KAFKA_BOOTSTRAP"]
        cls.prefix = "pyctl%d" % os.getpid()
        cls.options = KafkaOptions(calls_topic=cls.prefix + ".calls", results_topic=cls.prefix + ".results")
        config = write_config(cls, "bus:\n  type: kafka\n  url: %s\n  calls: '%s'\n  results: '%s'\n  group: %s\n"
                              "gateway:\n  enabled: false\napproval:\n  mode: auto\n"
                              % (cls.bootstrap, cls.options.calls_topic, cls.options.results_topic, cls.prefix))
        cls.server = Server("--config", config, gateway=False).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def client(self, **callbacks):
        return Client("kafka://" + self.bootstrap, transport=self.options, timeout=60, **callbacks)

    async def test_events_produced_to_the_results_topic_again_are_dropped(self):
        from kafka import KafkaProducer
        stream = self.stream("dup")
        producer = KafkaProducer(bootstrap_servers=self.bootstrap)
        try:
            async with self.client() as tb:
                first = await tb.run_turn(stream, [{"tool_call_id": "c1", "name": "echo", "arguments": {"text": "once"}}],
                                          turn_id="dup-1", context=NO_APPROVAL)
                self.assertEqual(len(first.results), 1)
                before = tb.duplicates_dropped
                second = asyncio.ensure_future(tb.run_turn(stream, [
                    {"tool_call_id": "c9", "name": "sleep", "arguments": {"ms": 1000}}], turn_id="dup-2",
                    context=NO_APPROVAL))
                await eventually(lambda: (stream, "dup-2") in tb._pending)
                # the first turn's events again, as a redelivery after a consumer restart would bring them
                def redeliver():
                    for e in first.events:
                        producer.send(self.options.results_topic, key=stream.encode(), value=json.dumps(e.raw).encode())
                    producer.flush(30)
                await asyncio.get_running_loop().run_in_executor(None, redeliver)
                turn = await asyncio.wait_for(second, 60)
                self.assertEqual([r.tool_call_id for r in turn.results], ["c9"])
                await eventually(lambda: tb.duplicates_dropped >= before + len(first.events), timeout=30)
                self.assertEqual(len(first.results), 1)
        finally:
            producer.close(10)

    async def test_a_client_does_not_answer_the_approvals_of_streams_it_does_not_run(self):
        answered = []

        async def approve(req):
            answered.append(req)
            await req.approve()

        async with self.client(on_approval_request=approve):  # a bystander on the same results topic
            async with self.client(on_approval_request=lambda req: req.deny()) as tb:
                turn = await tb.run_turn(self.stream("own"), [
                    {"tool_call_id": "w", "name": "wipe", "arguments": {"target": "tmp"}}])
        self.assertEqual(turn.result("w").error_code, "NOT_APPROVED")
        self.assertEqual(answered, [])


if __name__ == "__main__":
    unittest.main()
