"""Kafka (needs the ``kafka-python`` package: the ``kafka`` extra, or Debian's ``python3-kafka``).

Turns and control events are produced to the calls topic keyed by ``stream_id``; the client reads
the results topic in a consumer group of its own, from the end at the time it connected, and passes
on only the events of the streams it runs turns on (the topic carries every client's conversations:
another client's ``approval_request`` is not ours to answer).

kafka-python blocks, so its consumer runs on a thread of its own, the only one that touches it: it
decodes each polled batch and waits until the event loop has taken it, so at most one batch
(``MAX_POLL_RECORDS`` events) is between the two. Sends are made on the executor and complete on the
producer's I/O thread, which settles an asyncio future.
"""

import asyncio
import concurrent.futures
import functools
import json
import logging
import os
import threading
import time
import uuid
from typing import Any, Dict, List, Optional

from ..errors import TransportError
from ..options import KafkaOptions
from . import Deliver

log = logging.getLogger("toolbus.kafka")

MAX_POLL_RECORDS = 100
POLL_MS = 200
# how long connect waits for the group join and the partitions' end offsets, after the topic exists
JOIN_WAIT_S = 60.0
STOP_WAIT_S = 10.0


class KafkaTransport:
    def __init__(self, brokers: List[str], deliver: Deliver, options: KafkaOptions = KafkaOptions()):
        if not brokers:
            raise ValueError("a kafka:// URL names at least one broker: kafka://HOST:PORT[,HOST:PORT]")
        self._brokers = brokers
        self._deliver = deliver
        self._options = options
        self.group_id = options.group_id or f"toolbus-client-{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self._streams: Dict[str, int] = {}
        self._producer: Any = None
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None

    async def start(self) -> None:
        try:
            import kafka  # noqa: F401
        except ImportError as e:  # pragma: no cover - depends on the installation
            raise TransportError("the Kafka transport needs the 'kafka-python' package "
                                 "(pip install 'toolbus-client[kafka]', or Debian's python3-kafka)") from e
        loop = asyncio.get_running_loop()
        ready: "asyncio.Future[None]" = loop.create_future()
        # the consumer's failure is read here, or (when the producer failed first) dropped on purpose
        ready.add_done_callback(lambda f: None if f.cancelled() else f.exception())
        self._thread = threading.Thread(target=self._consume, args=(loop, ready), name="toolbus-kafka-consumer",
                                        daemon=True)
        self._thread.start()
        try:
            self._producer = await loop.run_in_executor(None, self._make_producer)
            await asyncio.wait_for(asyncio.shield(ready), self._options.topic_wait + JOIN_WAIT_S)
        except asyncio.TimeoutError:
            await self.close()
            waited = self._options.topic_wait + JOIN_WAIT_S
            raise TransportError(f"cannot use Kafka at {','.join(self._brokers)}: the consumer did not join group "
                                 f"{self.group_id} within {waited}s") from None
        except BaseException as e:
            await self.close()
            if isinstance(e, TransportError) or not isinstance(e, Exception):
                raise
            raise TransportError(f"cannot use Kafka at {','.join(self._brokers)}: {e}") from e

    def _make_producer(self) -> Any:
        from kafka import KafkaProducer
        return KafkaProducer(bootstrap_servers=self._brokers, client_id="toolbus-client", acks="all", linger_ms=0,
                             max_block_ms=30000)

    async def close(self) -> None:
        self._stop.set()
        loop = asyncio.get_running_loop()
        thread, self._thread = self._thread, None
        if thread is not None:
            await loop.run_in_executor(None, thread.join, STOP_WAIT_S)
        producer, self._producer = self._producer, None
        if producer is not None:
            await loop.run_in_executor(None, functools.partial(producer.close, timeout=STOP_WAIT_S))

    async def send_turn(self, event: Dict[str, Any]) -> None:
        self._follow(event["stream_id"])
        await self._send(event)

    async def send_control(self, event: Dict[str, Any]) -> None:
        await self._send(event)

    async def request(self, event: Dict[str, Any]) -> None:
        self._follow(event["stream_id"])
        await self._send(event)

    def release(self, stream_id: str) -> None:
        """The client has nothing more in flight on this conversation: its events are no longer passed on."""
        n = self._streams.get(stream_id, 0) - 1
        if n > 0:
            self._streams[stream_id] = n
        else:
            self._streams.pop(stream_id, None)

    def _follow(self, stream_id: str) -> None:
        self._streams[stream_id] = self._streams.get(stream_id, 0) + 1

    async def _send(self, event: Dict[str, Any]) -> None:
        producer = self._producer
        if producer is None:
            raise TransportError("the Kafka transport is closed")
        body = json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        key = str(event.get("stream_id", "")).encode("utf-8")
        loop = asyncio.get_running_loop()
        acked: "asyncio.Future[None]" = loop.create_future()

        def settle(error: Optional[BaseException]) -> None:
            if acked.done():
                return
            if error is None:
                acked.set_result(None)
            else:
                acked.set_exception(TransportError(f"producing to {self._options.calls_topic} failed: {error}"))

        def send() -> None:
            # blocks while the topic's metadata is unknown (up to max_block_ms): not on the event loop
            sent = producer.send(self._options.calls_topic, key=key, value=body)
            sent.add_callback(lambda _: loop.call_soon_threadsafe(settle, None))
            sent.add_errback(lambda e: loop.call_soon_threadsafe(settle, e))

        try:
            await loop.run_in_executor(None, send)
        except Exception as e:  # noqa: BLE001 - kafka-python's errors, a closed producer
            raise TransportError(f"producing to {self._options.calls_topic} failed: {e}") from e
        await acked

    def _consume(self, loop: asyncio.AbstractEventLoop, ready: "asyncio.Future[None]") -> None:
        """The consumer thread: joins, reads the results topic from its end, hands batches to the loop."""
        consumer: Any = None
        try:
            consumer = self._join()
            if consumer is None:
                return
            loop.call_soon_threadsafe(_settle, ready, None)
            delay = 0.05
            while not self._stop.is_set():
                try:
                    batch = consumer.poll(timeout_ms=POLL_MS, max_records=MAX_POLL_RECORDS)
                    delay = 0.05
                except Exception as e:  # noqa: BLE001 - a broker restarting: kafka-python reconnects
                    log.warning("polling %s failed, trying again: %s", self._options.results_topic, e)
                    self._stop.wait(delay)
                    delay = min(delay * 2, 2.0)
                    continue
                events = []
                for records in batch.values():
                    for record in records:
                        try:
                            events.append(json.loads(record.value))
                        except (TypeError, ValueError):
                            continue  # not JSON: not toolbus's
                if events:
                    self._hand_over(loop, events)
        except BaseException as e:  # noqa: BLE001 - reported to start(); after it, the thread just ends
            loop.call_soon_threadsafe(_settle, ready, e)
            if not isinstance(e, Exception):
                raise
        finally:
            if consumer is not None:
                try:
                    consumer.close(autocommit=False)
                except Exception:  # noqa: BLE001 - closing anyway
                    pass

    def _join(self) -> Any:
        """A consumer of the results topic with its partitions assigned and their end offsets taken, or None
        when closed first."""
        from kafka import KafkaConsumer
        consumer = KafkaConsumer(bootstrap_servers=self._brokers, group_id=self.group_id, client_id="toolbus-client",
                                 enable_auto_commit=False, auto_offset_reset="latest",
                                 max_poll_records=MAX_POLL_RECORDS)
        try:
            topic = self._options.results_topic
            deadline = time.monotonic() + self._options.topic_wait
            # toolbus creates the topic at its start: wait for it rather than fail a fresh deployment
            while topic not in consumer.topics():
                if time.monotonic() > deadline:
                    raise TransportError(f"topic {topic} does not exist: is toolbus running on this cluster?")
                if self._stop.wait(0.2):
                    consumer.close(autocommit=False)
                    return None
            consumer.subscribe([topic])
            while not consumer.assignment():
                if self._stop.is_set():
                    consumer.close(autocommit=False)
                    return None
                # joins the group; records it returns were written after the end offsets: none is ours yet
                consumer.poll(timeout_ms=100)
            # the end offsets now, so no event written after connect() returned is skipped
            for partition in consumer.assignment():
                consumer.position(partition)
            return consumer
        except BaseException:
            consumer.close(autocommit=False)
            raise

    def _hand_over(self, loop: asyncio.AbstractEventLoop, events: List[Any]) -> None:
        """Gives one batch to the loop and waits until it took it (bounded: one batch in between)."""
        done = asyncio.run_coroutine_threadsafe(self._pass_on(events), loop)
        while not self._stop.is_set():
            try:
                done.result(timeout=0.5)
                return
            except concurrent.futures.TimeoutError:
                continue
            except Exception:  # noqa: BLE001 - a failing delivery is the client's to log; go on reading
                log.exception("passing Kafka events on failed")
                return
        done.cancel()

    async def _pass_on(self, events: List[Any]) -> None:
        for e in events:
            if isinstance(e, dict) and e.get("stream_id") in self._streams:
                self._deliver(e)


def _settle(future: "asyncio.Future[None]", error: Optional[BaseException]) -> None:
    if future.done():
        return
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(error)
