"""``pip install`` of the MaiBot shim (with the Python SDK it depends on) into a fresh virtualenv, no
index; the README's plugin run by the installed ``toolbus-maibot-host`` under ``toolbus serve``.

Needs the server jar: run by scripts/test-packages.sh after the build."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
MAIBOT = os.path.dirname(HERE)
HOSTS = os.path.dirname(MAIBOT)
sys.path.insert(0, os.path.join(HOSTS, "python", "tests"))

from installs import make_venv, pip_install, readme_block, require_jar, serve_turn, write_plugin  # noqa: E402

README = os.path.join(MAIBOT, "README.md")


class MaiBotPackageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.work = tempfile.mkdtemp(prefix="toolbus-maibot-")
        # a class cleanup also runs when the venv or the install below fails (tearDownClass would not)
        cls.addClassCleanup(shutil.rmtree, cls.work, ignore_errors=True)
        cls.venv = os.path.join(cls.work, "venv")
        cls.python = make_venv(cls.venv)
        pip_install(cls.python, os.path.join(HOSTS, "python"), MAIBOT)

    def test_both_packages_import_from_the_virtualenv(self) -> None:
        probe = ("import importlib.metadata as m, os, maibot_sdk, toolbus_maibot.host;"
                 "print(os.path.dirname(maibot_sdk.__file__)); print(m.version('toolbus-maibot'));"
                 "print(sorted(m.requires('toolbus-maibot')));"
                 "print(os.path.isfile(os.path.join(os.path.dirname(maibot_sdk.__file__), 'py.typed')))")
        out = subprocess.run([self.python, "-c", probe], capture_output=True, text=True, cwd=self.work,
                             env={"PATH": os.environ.get("PATH", "")}, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        where, version, requires, typed = out.stdout.splitlines()
        self.assertTrue(where.startswith(self.venv), where)
        self.assertEqual(version, "0.1.0")
        self.assertEqual(requires, "['toolbus-plugin']")
        self.assertEqual(typed, "True")

    def test_the_readme_plugin_runs_on_the_installed_host_under_serve(self) -> None:
        require_jar()
        plugins = os.path.join(self.work, "plugins")
        manifest = json.loads(readme_block(README, "json", "## A plugin"))
        self.assertTrue(manifest["command"].endswith("/.venv/bin/toolbus-maibot-host"), manifest)
        manifest["command"] = os.path.join(self.venv, "bin", "toolbus-maibot-host")
        write_plugin(os.path.join(plugins, "greeter"), manifest,
                     {"plugin.py": readme_block(README, "python", "## A plugin")})
        results = serve_turn(plugins, [{"tool_call_id": "c1", "name": "greet", "arguments": {"name": "Ann"}}])
        self.assertFalse(results["c1"]["is_error"], results["c1"])
        self.assertEqual(results["c1"]["content"], "Hello, Ann!")

    def test_python_dash_m_runs_the_same_host(self) -> None:
        folder = os.path.join(self.work, "by-module")
        write_plugin(folder, {"id": "unused"}, {"plugin.py": readme_block(README, "python", "## A plugin")})
        lines = [{"id": 1, "method": "activate", "params": {"pluginId": "greeter"}},
                 {"id": 2, "method": "execute_tool", "params": {"toolName": "greet", "input": "{\"name\": \"Bo\"}"}},
                 {"id": 3, "method": "deactivate"}]
        out = subprocess.run([self.python, "-u", "-m", "toolbus_maibot", folder], capture_output=True, text=True,
                             input="".join(json.dumps(m) + "\n" for m in lines), cwd=self.work,
                             env={"PATH": os.environ.get("PATH", "")}, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        answers = [json.loads(line) for line in out.stdout.splitlines()]
        self.assertEqual([t["name"] for t in answers[0]["tools"]], ["greet"])
        self.assertEqual(answers[1], {"id": 2, "result": {"success": True, "content": "Hello, Bo!"}})


if __name__ == "__main__":
    unittest.main()
