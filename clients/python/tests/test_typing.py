"""The client is typed for a checker: mypy --strict passes on the package (pyproject.toml's [tool.mypy]),
and code using the installed package (a fresh virtualenv, pip install of this folder, no index) is
checked against its types through py.typed: the events a callback gets, a turn's results, the options."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MYPY = shutil.which("mypy")
WHEELS = os.environ.get("TOOLBUS_PYTHON_WHEELS", "/usr/share/python-wheels")

GOOD = '''import asyncio
from typing import List

from toolbus import Client, KafkaOptions, SendMessage, ToolProgress, ToolResult, Turn


def progress(p: ToolProgress) -> None:
    print(p.progress, p.total, p.message)


async def main() -> List[ToolResult]:
    async with Client("kafka://127.0.0.1:9092", transport=KafkaOptions(calls_topic="c", results_topic="r"),
                      on_progress=progress) as tb:
        turn: Turn = await tb.run_turn("s", [{"tool_call_id": "c1", "name": "echo", "arguments": {}}],
                                       on_send_message=lambda m: print(m.text.upper()))
        return turn.results


results = asyncio.run(main())
text: str = results[0].content
sent: List[SendMessage] = []
'''
# each line one error, at the line given
BAD = GOOD + '''count: int = results[0].content
Client("stdio:", on_progress=lambda p: print(p.percent))
Client("http://127.0.0.1:8765", transport=KafkaOptions(topic_wait="soon"))
'''
EXPECTED = [
    'bad.py:22: error: Incompatible types in assignment (expression has type "str", variable has type "int")'
    '  [assignment]',
    'bad.py:23: error: "ToolProgress" has no attribute "percent"  [attr-defined]',
    'bad.py:24: error: Argument "topic_wait" to "KafkaOptions" has incompatible type "str"; expected "float"'
    '  [arg-type]',
]


@unittest.skipUnless(MYPY or os.environ.get("TOOLBUS_REQUIRE_ALL_TRANSPORTS") == "1", "needs mypy (Debian's mypy)")
class TypingTest(unittest.TestCase):
    def test_mypy_strict_passes_on_the_package(self):
        out = subprocess.run([MYPY or "mypy", "--cache-dir=/dev/null"], cwd=PACKAGE_ROOT, capture_output=True,
                             text=True, timeout=600)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("Success: no issues found", out.stdout)

    def test_code_using_the_installed_package_is_checked_against_its_types(self):
        work = tempfile.mkdtemp(prefix="toolbus-typing-")
        try:
            python = self._venv_with_the_package(work)
            for name, text in (("good.py", GOOD), ("bad.py", BAD)):
                with open(os.path.join(work, name), "w", encoding="utf-8") as f:
                    f.write(text)
            env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
            check = [MYPY or "mypy", "--strict", "--no-incremental", "--cache-dir=/dev/null", "--python-executable",
                     python]
            good = subprocess.run(check + ["good.py"], cwd=work, env=env, capture_output=True, text=True, timeout=600)
            self.assertEqual(good.returncode, 0, good.stdout + good.stderr)
            bad = subprocess.run(check + ["bad.py"], cwd=work, env=env, capture_output=True, text=True, timeout=600)
            errors = [line for line in bad.stdout.splitlines() if ": error: " in line]
            self.assertEqual(errors, EXPECTED, bad.stdout + bad.stderr)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def _venv_with_the_package(self, work):
        """A fresh virtualenv with this folder installed from a copy (pip builds in the tree), no index."""
        venv = os.path.join(work, "venv")
        subprocess.run([sys.executable, "-m", "venv", venv], check=True, capture_output=True, timeout=300)
        python = os.path.join(venv, "bin", "python")
        pip = [python, "-m", "pip", "install", "--quiet", "--no-index"]
        missing = [m for m in ("setuptools", "wheel")
                   if subprocess.run([python, "-c", "import " + m], capture_output=True).returncode != 0]
        if missing:  # a venv has no wheel (nor setuptools from Python 3.12): Debian's wheel files
            subprocess.run(pip + ["--find-links", WHEELS] + missing, check=True, capture_output=True, timeout=300)
        source = os.path.join(work, "src")
        shutil.copytree(PACKAGE_ROOT, source, ignore=shutil.ignore_patterns("tests", "__pycache__", "build",
                                                                           "*.egg-info", ".mypy_cache"))
        out = subprocess.run(pip + ["--no-build-isolation", source], capture_output=True, text=True, timeout=300)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        return python


if __name__ == "__main__":
    unittest.main()
