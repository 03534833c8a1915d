"""The memory of seen events: bounded in entries and in bytes."""

import unittest

from toolbus.dedup import SeenKeys


class SeenKeysTest(unittest.TestCase):
    def test_a_key_is_new_once(self):
        seen = SeenKeys(10)
        self.assertTrue(seen.add(("tool_result", "s", "t", "c1")))
        self.assertFalse(seen.add(("tool_result", "s", "t", "c1")))
        self.assertTrue(seen.add(("tool_result", "s", "t", "c2")))

    def test_the_oldest_keys_are_forgotten_and_keys_are_digests(self):
        seen = SeenKeys(2)
        seen.add(("a",))
        seen.add(("tool_progress", "s", "c", 1, None, "x" * (1 << 20)))
        seen.add(("b",))
        self.assertEqual(len(seen), 2)
        self.assertTrue(seen.add(("a",)))
        self.assertTrue(all(len(k) == 32 for k in seen._keys))

    def test_capacity_must_be_positive(self):
        with self.assertRaises(ValueError):
            SeenKeys(0)


if __name__ == "__main__":
    unittest.main()
