"""The README's example: the block in README.md is examples/quickstart.py, and it runs against a real server."""

import os
import re
import subprocess
import sys
import unittest

from support import TOKEN, Server, require_jar

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)
EXAMPLE = os.path.join(PACKAGE_ROOT, "examples", "quickstart.py")


def readme_example():
    """The first python block after the README's "## Example" heading."""
    with open(os.path.join(PACKAGE_ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    m = re.search(r"```python\n(.*?)```", readme[readme.index("\n## Example"):], re.S)
    return m.group(1) if m else None


class QuickstartTest(unittest.TestCase):
    def test_the_readme_example_is_the_example_file(self):
        with open(EXAMPLE, encoding="utf-8") as f:
            self.assertEqual(readme_example(), f.read())

    def test_the_readme_example_runs(self):
        require_jar(self)
        server = Server().start()
        try:
            env = dict(os.environ, TOOLBUS_URL="http://127.0.0.1:%d" % server.port, TOOLBUS_TOKEN=TOKEN,
                       PYTHONPATH=PACKAGE_ROOT)
            out = subprocess.run([sys.executable, EXAMPLE],
                                 env=env, capture_output=True, text=True, timeout=120)
        finally:
            server.stop()
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.strip().splitlines()
        self.assertEqual(len(lines), 3, out.stdout)
        self.assertTrue(lines[0].startswith('{"role": "tool", "tool_call_id": "call_1"'), lines[0])
        self.assertIn('"image_url"', lines[2])


if __name__ == "__main__":
    unittest.main()
