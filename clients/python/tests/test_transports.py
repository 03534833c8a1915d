"""The client against a real ``toolbus serve``, on every transport the client supports."""

import asyncio
import json
import os
import unittest

import provider_shapes
from support import JAR, TOKEN, CuttableProxy, Server, eventually, require_jar, write_config

from toolbus import (AuthenticationError, BadEventError, Client, KafkaOptions, RedisOptions, StdioOptions, ToolResult,
                     TransportError, WebSocketOptions)

THREE_CALLS = [
    {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{\"a\": 2, \"b\": 40}"}},
    {"id": "c2", "type": "function", "function": {"name": "draw", "arguments": "{\"label\": \"a cat\"}"}},
    {"id": "c3", "type": "function", "function": {"name": "echo", "arguments": "{\"text\": \"hi\"}"}},
]


REQUIRE_ALL = os.environ.get("TOOLBUS_REQUIRE_ALL_TRANSPORTS") == "1"


def _have(module):
    """Whether an optional transport can be tested; in CI (TOOLBUS_REQUIRE_ALL_TRANSPORTS=1) it must be."""
    if REQUIRE_ALL:
        return True
    try:
        __import__(module)
        return True
    except ImportError:
        return False


class ThreeCallTurn:
    """Shared assertions: three calls, one image, mapped for OpenAI and Anthropic."""

    def check_turn(self, turn):
        self.assertEqual([r.tool_call_id for r in turn.results], ["c1", "c2", "c3"])
        self.assertTrue(all(isinstance(r, ToolResult) and not r.is_error for r in turn.results))
        self.assertEqual(turn.results[0].data, {"sum": 42})
        self.assertEqual(len(turn.media), 1)
        self.assertEqual(turn.media[0].message_id, "tool_result:c2:1")
        self.assertEqual(turn.completed.tool_call_ids, ["c1", "c2", "c3"])
        ids = ["c1", "c2", "c3"]
        openai = turn.to_openai()
        provider_shapes.openai_chat(openai, ids)
        self.assertEqual([m["role"] for m in openai], ["tool", "tool", "tool", "user"])
        self.assertEqual(openai[3]["content"][1]["type"], "image_url")
        provider_shapes.anthropic(turn.to_anthropic(), ids)
        provider_shapes.openai_responses(turn.to_openai_responses(), ids)
        provider_shapes.gemini(turn.to_gemini(), ids)


class HttpTest(ThreeCallTurn, unittest.IsolatedAsyncioTestCase):
    @classmethod
    def setUpClass(cls):
        require_jar(cls)
        cls.server = Server().start()
        cls.url = "http://127.0.0.1:%d" % cls.server.port

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    async def test_three_call_turn_with_an_image(self):
        async with Client(self.url, token=TOKEN) as tb:
            turn = await tb.run_turn("py:http:1", THREE_CALLS, context={"user_id": "42"})
        self.check_turn(turn)

    async def test_list_tools(self):
        async with Client(self.url, token=TOKEN) as tb:
            tools = await tb.list_tools("py:http:tools")
        self.assertIn("echo", [t["function"]["name"] for t in tools])

    async def test_a_wrong_token_is_a_typed_error(self):
        async with Client(self.url, token="wrong") as tb:
            with self.assertRaises(AuthenticationError):
                await tb.run_turn("py:http:auth", THREE_CALLS[:1])

    async def test_a_stream_that_ends_before_turn_completed_fails_the_turn(self):
        proxy = await CuttableProxy(self.server.port).start()
        try:
            async with Client("http://127.0.0.1:%d" % proxy.port, token=TOKEN) as tb:
                run = asyncio.ensure_future(tb.run_turn("py:http:ended", [
                    {"tool_call_id": "fast", "name": "echo", "arguments": {"text": "x"}},
                    {"tool_call_id": "slow", "name": "sleep", "arguments": {"ms": 30000}}], timeout=60))
                await eventually(lambda: any(p.turn.results for p in tb._pending.values()), timeout=30)
                proxy.end()
                with self.assertRaises(TransportError):
                    await asyncio.wait_for(run, 10)  # promptly, not at the turn timeout
        finally:
            await proxy.close()

    async def test_a_server_that_closes_without_an_answer_is_a_transport_error(self):
        silent = await asyncio.start_server(lambda reader, writer: writer.close(), "127.0.0.1", 0)
        try:
            port = silent.sockets[0].getsockname()[1]
            async with Client("http://127.0.0.1:%d" % port, token=TOKEN) as tb:
                with self.assertRaises(TransportError):
                    await asyncio.wait_for(tb.run_turn("py:http:silent", THREE_CALLS[:1], timeout=60), 10)
        finally:
            silent.close()
            await silent.wait_closed()

    async def test_a_bad_event_is_a_typed_error(self):
        async with Client(self.url, token=TOKEN) as tb:
            with self.assertRaises(BadEventError):
                await tb.run_turn("py:http:bad", [THREE_CALLS[0], THREE_CALLS[0]])


@unittest.skipUnless(_have("websockets"), "needs the websockets package (Debian python3-websockets)")
class WebSocketTest(ThreeCallTurn, unittest.IsolatedAsyncioTestCase):
    @classmethod
    def setUpClass(cls):
        require_jar(cls)
        cls.server = Server().start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    async def test_three_call_turn_with_an_image(self):
        async with Client("ws://127.0.0.1:%d/v1/ws" % self.server.port, token=TOKEN) as tb:
            turn = await tb.run_turn("py:ws:1", THREE_CALLS)
        self.check_turn(turn)

    async def test_a_dropped_websocket_is_reconnected_without_losing_the_turn(self):
        proxy = await CuttableProxy(self.server.port).start()
        try:
            async with Client("ws://127.0.0.1:%d/v1/ws" % proxy.port, token=TOKEN) as tb:
                run = asyncio.ensure_future(tb.run_turn("py:ws:drop", [
                    {"tool_call_id": "fast", "name": "echo", "arguments": {"text": "x"}},
                    {"tool_call_id": "slow", "name": "sleep", "arguments": {"ms": 1500}}], turn_id="drop-1"))
                # the first result proves the server runs the turn; then the network fails
                await eventually(lambda: any(p.turn.results for p in tb._pending.values()))
                proxy.cut()
                turn = await asyncio.wait_for(run, 30)
                self.assertGreaterEqual(tb.transport.reconnects, 1)
                self.assertEqual([r.tool_call_id for r in turn.results], ["fast", "slow"])
                self.assertFalse(any(r.is_error for r in turn.results), [r.raw for r in turn.results])
                # the re-sent turn ran again: its second 'fast' result was a duplicate, and dropped
                await eventually(lambda: tb.duplicates_dropped >= 1)
        finally:
            await proxy.close()

    async def test_a_cancel_sent_while_the_websocket_is_down_goes_out_once_it_is_back(self):
        proxy = await CuttableProxy(self.server.port).start()
        progress = []
        try:
            async with Client("ws://127.0.0.1:%d/v1/ws" % proxy.port, token=TOKEN, on_progress=progress.append) as tb:
                stream = "py:ws:downcancel"
                run = asyncio.ensure_future(tb.run_turn(stream, [
                    {"tool_call_id": "slow", "name": "progress", "arguments": {"steps": 100, "ms": 300}}],
                    turn_id="down-1"))
                await eventually(lambda: progress, timeout=30)
                proxy.refuse = True
                proxy.cut()
                # once the client saw the drop (bytes written into a connection that just died are lost
                # on any transport without acknowledgements)
                await eventually(lambda: not tb.transport._connected.is_set())
                cancel = asyncio.ensure_future(tb.cancel(stream, turn_id="down-1", tool_call_id="slow", reason="stop"))
                await eventually(lambda: proxy.refused >= 1)  # a reconnect failed: the cancel waits
                proxy.refuse = False
                await asyncio.wait_for(cancel, 30)
                turn = await asyncio.wait_for(run, 30)
            self.assertEqual(turn.result("slow").error_code, "CANCELLED")
        finally:
            await proxy.close()

    async def test_without_reconnect_a_dropped_websocket_fails_the_turn(self):
        proxy = await CuttableProxy(self.server.port).start()
        try:
            async with Client("ws://127.0.0.1:%d/v1/ws" % proxy.port, token=TOKEN,
                              transport=WebSocketOptions(reconnect=False)) as tb:
                run = asyncio.ensure_future(tb.run_turn("py:ws:noreconnect", [
                    {"tool_call_id": "fast", "name": "echo", "arguments": {"text": "x"}},
                    {"tool_call_id": "slow", "name": "sleep", "arguments": {"ms": 5000}}]))
                await eventually(lambda: any(p.turn.results for p in tb._pending.values()))
                proxy.cut()
                with self.assertRaises(TransportError):
                    await asyncio.wait_for(run, 30)
        finally:
            await proxy.close()


class StdioTest(ThreeCallTurn, unittest.IsolatedAsyncioTestCase):
    def setUp(self):
        require_jar(self)

    async def test_three_call_turn_on_the_sidecar(self):
        command = Server(gateway=False, *["--bus", "stdio"]).command()
        async with Client("stdio:", transport=StdioOptions(command)) as tb:
            turn = await tb.run_turn("py:stdio:1", THREE_CALLS)
        self.check_turn(turn)


@unittest.skipUnless(_have("redis") and (REQUIRE_ALL or os.environ.get("TOOLBUS_REDIS_URL")),
                     "needs the redis package and TOOLBUS_REDIS_URL (scripts/lib/services.sh starts Redis)")
class RedisTest(ThreeCallTurn, unittest.IsolatedAsyncioTestCase):
    @classmethod
    def setUpClass(cls):
        require_jar(cls)
        cls.redis_url = os.environ["TOOLBUS_REDIS_URL"]
        cls.prefix = "pyclient%d" % os.getpid()
        cls.calls = cls.prefix + ":calls"
        cls.results = cls.prefix + ":results:{stream_id}"
        cls.config = write_config(cls, "bus:\n  type: redis\n  url: %s\n  calls: '%s'\n  results: '%s'\n  group: %s\n"
                                  "gateway:\n  enabled: false\n" % (cls.redis_url, cls.calls, cls.results, cls.prefix))
        cls.server = Server("--config", cls.config, gateway=False).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def client(self):
        return Client(self.redis_url, transport=RedisOptions(calls_stream=self.calls, results_key=self.results))

    async def test_three_call_turn_over_redis(self):
        async with self.client() as tb:
            turn = await tb.run_turn("py:redis:%d" % os.getpid(), THREE_CALLS)
        self.check_turn(turn)

    async def test_two_turns_of_one_stream_started_together_share_one_reader(self):
        stream = "py:redis:two:%d" % os.getpid()
        async with self.client() as tb:
            a = asyncio.ensure_future(tb.run_turn(stream, [{"tool_call_id": "a1", "name": "sleep",
                                                            "arguments": {"ms": 300}}], turn_id="two-a"))
            b = asyncio.ensure_future(tb.run_turn(stream, [{"tool_call_id": "b1", "name": "echo",
                                                            "arguments": {"text": "b"}}], turn_id="two-b"))
            readers = lambda: [t for t in asyncio.all_tasks() if t.get_coro().__name__ == "_read"]  # noqa: E731
            await eventually(lambda: tb.transport._users.get(stream) == 2 and readers())
            self.assertEqual(len(readers()), 1)
            ta, tb2 = await asyncio.wait_for(asyncio.gather(a, b), 60)
            self.assertFalse(ta.result("a1").is_error)
            self.assertEqual(tb2.result("b1").content, "b")
            await eventually(lambda: not readers())  # the reader stops with the last turn

    async def test_duplicate_events_are_dropped(self):
        import redis.asyncio as aioredis
        stream = "py:redis:dup:%d" % os.getpid()
        async with self.client() as tb:
            turn = await tb.run_turn(stream, THREE_CALLS[:1], turn_id="dup-1")
            self.assertEqual(len(turn.results), 1)
            # the results stream now holds the turn; write its events again, as a redelivery would
            r = aioredis.from_url(self.redis_url)
            key = self.results.replace("{stream_id}", stream)
            entries = await r.xrange(key)
            before = tb.duplicates_dropped
            turn2 = asyncio.ensure_future(tb.run_turn(stream, [{"tool_call_id": "c9", "name": "sleep",
                                                                "arguments": {"ms": 300}}], turn_id="dup-2"))
            await eventually(lambda: stream in tb.transport._readers)
            for _, fields in entries:
                await r.xadd(key, {"event": fields[b"event"]})
            second = await asyncio.wait_for(turn2, 30)
            await r.close()
            await r.connection_pool.disconnect()
            self.assertEqual([x.tool_call_id for x in second.results], ["c9"])
            await eventually(lambda: tb.duplicates_dropped >= before + len(entries))
            self.assertEqual(len(turn.results), 1)


def kafka_server(owner, prefix, extra=""):
    """``toolbus serve`` on the test broker, with topics and group of its own; its config is removed when
    ``owner`` (a test, or a test class in setUpClass) cleans up."""
    config = write_config(owner, "bus:\n  type: kafka\n  url: %s\n  calls: '%s.calls'\n  results: '%s.results'\n"
                          "  group: %s\ngateway:\n  enabled: false\n%s"
                          % (os.environ["TOOLBUS_KAFKA_BOOTSTRAP"], prefix, prefix, prefix, extra))
    return Server("--config", config, gateway=False).start()


@unittest.skipUnless(_have("kafka") and (REQUIRE_ALL or os.environ.get("TOOLBUS_KAFKA_BOOTSTRAP")),
                     "needs the kafka-python package and TOOLBUS_KAFKA_BOOTSTRAP (scripts/lib/services.sh starts Kafka)")
class KafkaTest(ThreeCallTurn, unittest.IsolatedAsyncioTestCase):
    @classmethod
    def setUpClass(cls):
        require_jar(cls)
        cls.prefix = "pyclient%d" % os.getpid()
        cls.server = kafka_server(cls, cls.prefix)
        cls.url = "kafka://" + os.environ["TOOLBUS_KAFKA_BOOTSTRAP"]
        cls.options = KafkaOptions(calls_topic=cls.prefix + ".calls", results_topic=cls.prefix + ".results")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    async def test_three_call_turn_over_kafka(self):
        async with Client(self.url, transport=self.options) as tb:
            turn = await tb.run_turn("py:kafka:%d" % os.getpid(), THREE_CALLS, timeout=60)
        self.check_turn(turn)

    async def test_a_missing_results_topic_is_a_clear_transport_error(self):
        options = KafkaOptions(calls_topic=self.prefix + ".calls", results_topic=self.prefix + ".nothing",
                               topic_wait=1.0)
        with self.assertRaises(TransportError) as raised:
            async with Client(self.url, transport=options):
                pass
        self.assertIn("topic %s.nothing does not exist" % self.prefix, str(raised.exception))

    async def test_an_unreachable_broker_is_a_transport_error(self):
        with self.assertRaises(TransportError) as raised:
            async with Client("kafka://127.0.0.1:1", transport=self.options):
                pass
        self.assertIn("cannot use Kafka at 127.0.0.1:1", str(raised.exception))


if __name__ == "__main__":
    unittest.main()
