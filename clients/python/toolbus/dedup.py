"""A bounded memory of event keys already seen (delivery is at least once)."""

import hashlib
from collections import OrderedDict


class SeenKeys:
    """Remembers the newest ``capacity`` keys; ``add`` says whether a key is new.

    Each key is kept as a 32-byte digest of its ``repr``, so the memory is bounded in bytes as well as
    entries whatever the ids and progress messages hold.
    """

    def __init__(self, capacity=10000):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self._capacity = capacity
        self._keys = OrderedDict()

    def add(self, key):
        key = hashlib.sha256(repr(key).encode("utf-8", "surrogatepass")).digest()
        if key in self._keys:
            self._keys.move_to_end(key)
            return False
        self._keys[key] = None
        if len(self._keys) > self._capacity:
            self._keys.popitem(last=False)
        return True

    def __len__(self):
        return len(self._keys)
