"""``pip install ./clients/python`` works: the package installs (no index, no build isolation: the
standard library and Debian's setuptools only), imports from where it was installed with its ``py.typed``
marker, and declares the ``websockets``, ``redis`` and ``kafka`` extras."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _can_pip():
    return subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode == 0


@unittest.skipUnless(_can_pip() or os.environ.get("TOOLBUS_REQUIRE_ALL_TRANSPORTS") == "1",
                     "needs pip (Debian python3-pip)")
class PipInstallTest(unittest.TestCase):
    def test_pip_installs_the_package_with_its_extras(self):
        target = tempfile.mkdtemp(prefix="toolbus-pip-")
        self.addCleanup(shutil.rmtree, target, ignore_errors=True)
        # a copy: pip builds in the source tree (build/, *.egg-info), which must stay clean
        source = os.path.join(tempfile.mkdtemp(prefix="toolbus-src-"), "python")
        self.addCleanup(shutil.rmtree, os.path.dirname(source), ignore_errors=True)
        shutil.copytree(PACKAGE_ROOT, source, ignore=shutil.ignore_patterns("tests", "__pycache__", "build",
                                                                             "*.egg-info"))
        out = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps",
                              "--no-build-isolation", "--target", target, source],
                             capture_output=True, text=True, timeout=300)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        probe = ("import importlib.metadata as m, os, toolbus, toolbus.transports.http, toolbus.transports.stdio,"
                 " toolbus.transports.kafka;"
                 "print(toolbus.__file__); print(m.version('toolbus-client'));"
                 "print(sorted(m.metadata('toolbus-client').get_all('Provides-Extra')));"
                 "print(sorted(r for r in m.requires('toolbus-client')));"
                 "print(os.path.isfile(os.path.join(os.path.dirname(toolbus.__file__), 'py.typed')))")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env["PYTHONPATH"] = target
        ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=target,
                             env=env, timeout=60)
        self.assertEqual(ran.returncode, 0, ran.stderr)
        lines = ran.stdout.splitlines()
        self.assertTrue(lines[0].startswith(target), lines[0])  # the installed copy, not the checkout
        self.assertEqual(lines[1], "0.1.0")
        self.assertIn("'websockets'", lines[2])
        self.assertIn("'redis'", lines[2])
        self.assertIn("websockets (>=10) ; extra == 'websockets'", lines[3])
        self.assertIn("redis (>=4.2) ; extra == 'redis'", lines[3])
        self.assertIn("'kafka'", lines[2])
        self.assertIn("kafka-python (>=2.0.2) ; extra == 'kafka'", lines[3])
        self.assertEqual(lines[4], "True")


if __name__ == "__main__":
    unittest.main()
