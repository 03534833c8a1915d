"""The options of each transport, one immutable value per transport, checked when made.

``Client(url, transport=...)`` takes the one that matches the URL's scheme; without it, the
defaults of that scheme's options apply (``StdioOptions`` has none: it needs the command).
"""

from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional, Sequence, Tuple, Union


def _positive(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")


def _name(name: str, value: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} must be a non-blank string, got {value!r}")


@dataclass(frozen=True)
class HttpOptions:
    """The gateway over HTTP and Server-Sent Events (``http://``, ``https://``).

    :param answer_timeout: seconds a request waits for the gateway's status and headers
    """

    answer_timeout: float = 30.0

    def __post_init__(self) -> None:
        _positive("answer_timeout", self.answer_timeout)


@dataclass(frozen=True)
class WebSocketOptions:
    """The gateway's WebSocket ``/v1/ws`` (``ws://``, ``wss://``; needs the ``websockets`` package).

    :param reconnect: on a drop, reconnect with backoff and send the turns in flight again; False fails them
    """

    reconnect: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.reconnect, bool):
            raise ValueError(f"reconnect must be True or False, got {self.reconnect!r}")


@dataclass(frozen=True)
class RedisOptions:
    """Redis Streams (``redis://``, ``rediss://``; needs the ``redis`` package), named as in toolbus.yaml's ``bus``.

    :param calls_stream: the stream toolbus reads turns and control events from (``bus.calls``)
    :param results_key: the results stream of a conversation, with ``{stream_id}`` (``bus.results``)
    """

    calls_stream: str = "toolbus:calls"
    results_key: str = "toolbus:results:{stream_id}"

    def __post_init__(self) -> None:
        _name("calls_stream", self.calls_stream)
        _name("results_key", self.results_key)
        if "{stream_id}" not in self.results_key:
            raise ValueError(f"results_key must contain {{stream_id}}, got {self.results_key!r}")


@dataclass(frozen=True)
class KafkaOptions:
    """Kafka (``kafka://HOST:PORT[,HOST:PORT]``; needs the ``kafka-python`` package), named as in toolbus.yaml.

    The client reads the results topic in a consumer group of its own, from its end when it
    connects, and passes on only the events of the streams it runs turns on.

    :param calls_topic: the topic toolbus reads turns and control events from (``bus.calls``)
    :param results_topic: the topic toolbus writes every conversation's events to (``bus.results``)
    :param group_id: the client's consumer group; default: one of its own per client. Share it with no
        other client: the members of a group split the topic's partitions, so each would miss the others' share
    :param topic_wait: seconds ``connect`` waits for the results topic (toolbus creates it at its start)
    """

    calls_topic: str = "toolbus.calls"
    results_topic: str = "toolbus.results"
    group_id: Optional[str] = None
    topic_wait: float = 30.0

    def __post_init__(self) -> None:
        _name("calls_topic", self.calls_topic)
        _name("results_topic", self.results_topic)
        if self.group_id is not None:
            _name("group_id", self.group_id)
        _positive("topic_wait", self.topic_wait)


@dataclass(frozen=True)
class StdioOptions:
    """toolbus as a child process, the stdio sidecar (``stdio:``).

    :param command: the program and its arguments, e.g. ``["./toolbus", "serve", "--bus", "stdio"]``
    :param env: the child's whole environment; default: this process's
    """

    command: Sequence[str]
    env: Optional[Mapping[str, str]] = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.command, str) or not self.command or not all(isinstance(a, str) for a in self.command):
            raise ValueError("command must be a non-empty list of strings, e.g. "
                             f"['./toolbus', 'serve', '--bus', 'stdio'], got {self.command!r}")
        # a tuple: the value stays immutable whatever list it was made from
        object.__setattr__(self, "command", tuple(self.command))


#: One transport's options.
TransportOptions = Union[HttpOptions, WebSocketOptions, RedisOptions, KafkaOptions, StdioOptions]

#: URL scheme -> the options type of its transport.
SCHEMES: Mapping[str, type] = {
    "http": HttpOptions, "https": HttpOptions,
    "ws": WebSocketOptions, "wss": WebSocketOptions,
    "redis": RedisOptions, "rediss": RedisOptions,
    "kafka": KafkaOptions,
    "stdio": StdioOptions,
}
#: URL scheme -> its transport's default options (stdio: has none, it needs the command).
_DEFAULTS: Mapping[str, Callable[[], TransportOptions]] = {
    "http": HttpOptions, "https": HttpOptions,
    "ws": WebSocketOptions, "wss": WebSocketOptions,
    "redis": RedisOptions, "rediss": RedisOptions,
    "kafka": KafkaOptions,
}
GATEWAY_SCHEMES: Tuple[str, ...] = ("http", "https", "ws", "wss")


def for_url(url: str, given: Optional[TransportOptions]) -> TransportOptions:
    """The options for ``url``: ``given`` when it is of the scheme's type, else that type's defaults.

    :raises ValueError: an unsupported scheme, options of another transport, or ``stdio:`` without options
    """
    if not isinstance(url, str) or ":" not in url:
        raise ValueError(f"not a toolbus URL: {url!r} (http, https, ws, wss, redis, rediss, kafka or stdio:)")
    scheme = url.split(":", 1)[0].lower()
    kind = SCHEMES.get(scheme)
    if kind is None:
        raise ValueError(f"unsupported toolbus URL {url!r} (http, https, ws, wss, redis, rediss, kafka or stdio:)")
    if given is None:
        default = _DEFAULTS.get(scheme)
        if default is None:
            raise ValueError("a stdio: URL needs transport=StdioOptions(command=[...]), the command that starts "
                             "toolbus, e.g. ['./toolbus', 'serve', '--bus', 'stdio']")
        return default()
    matches = isinstance(given, kind)
    if not matches:
        raise ValueError(f"{url!r} takes {kind.__name__}, not {type(given).__name__}")
    return given
