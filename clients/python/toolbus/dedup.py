"""A bounded memory of event keys already seen (delivery is at least once)."""

import hashlib
from collections import OrderedDict
from typing import Hashable, Tuple


class SeenKeys:
    """Remembers the newest ``capacity`` keys; ``add`` says whether a key is new.

    Each key is kept as a 32-byte digest of its ``repr``, so the memory is bounded in bytes as well as
    entries whatever the ids and progress messages hold.
    """

    def __init__(self, capacity: int = 10000):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self._capacity = capacity
        self._keys: "OrderedDict[bytes, None]" = OrderedDict()

    def add(self, key: Tuple[Hashable, ...]) -> bool:
        digest = hashlib.sha256(repr(key).encode("utf-8", "surrogatepass")).digest()
        if digest in self._keys:
            self._keys.move_to_end(digest)
            return False
        self._keys[digest] = None
        if len(self._keys) > self._capacity:
            self._keys.popitem(last=False)
        return True

    def __len__(self) -> int:
        return len(self._keys)
