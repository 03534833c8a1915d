"""``pip install ./tool-sources/hosts/python`` into a fresh virtualenv (no index), then the README's plugin
run from that virtualenv under ``toolbus serve``; and a type checker sees the installed package's types.

Needs the server jar: run by scripts/test-packages.sh after the build."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from installs import make_venv, pip_install, readme_block, require_jar, serve_turn, write_plugin  # noqa: E402

SDK = os.path.dirname(HERE)
README = os.path.join(SDK, "README.md")


class PythonSdkPackageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.work = tempfile.mkdtemp(prefix="toolbus-py-sdk-")
        # a class cleanup also runs when the venv or the install below fails (tearDownClass would not)
        cls.addClassCleanup(shutil.rmtree, cls.work, ignore_errors=True)
        cls.python = make_venv(os.path.join(cls.work, "venv"))
        pip_install(cls.python, SDK)

    def test_the_package_is_installed_with_its_type_marker(self) -> None:
        probe = ("import importlib.metadata as m, os, toolbus_plugin;"
                 "d = os.path.dirname(toolbus_plugin.__file__);"
                 "print(d); print(m.version('toolbus-plugin')); print(os.path.isfile(os.path.join(d, 'py.typed')))")
        out = subprocess.run([self.python, "-c", probe], capture_output=True, text=True, cwd=self.work,
                             env={"PATH": os.environ.get("PATH", "")}, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        where, version, typed = out.stdout.split()
        self.assertTrue(where.startswith(os.path.join(self.work, "venv")), where)  # not the checkout
        self.assertEqual(version, "0.1.0")
        self.assertEqual(typed, "True")

    def test_the_readme_plugin_runs_from_the_virtualenv_under_serve(self) -> None:
        require_jar()
        plugins = os.path.join(self.work, "plugins")
        manifest = __import__("json").loads(readme_block(README, "json", "## A plugin"))
        self.assertEqual(manifest["args"], ["-u", "weather.py"])
        manifest["command"] = self.python
        write_plugin(os.path.join(plugins, "weather"), manifest,
                     {"weather.py": readme_block(README, "python", "## A plugin")})
        results = serve_turn(plugins, [
            {"tool_call_id": "c1", "name": "weather", "arguments": {"city": "Oslo"}},
            {"tool_call_id": "c2", "name": "weather", "arguments": {"city": "Atlantis"}}])
        self.assertFalse(results["c1"]["is_error"], results["c1"])
        self.assertEqual(results["c1"]["data"], {"city": "Oslo", "celsius": 4})
        self.assertTrue(results["c2"]["is_error"])
        self.assertIn("unknown city: Atlantis", results["c2"]["content"])

    @unittest.skipUnless(shutil.which("mypy") or os.environ.get("TOOLBUS_REQUIRE_JAR") == "1",
                         "needs mypy (Debian's mypy)")
    def test_a_type_checker_sees_the_installed_types(self) -> None:
        good = ("from toolbus_plugin import Call, JsonObject, config, tool\n\n\n"
                "@tool(description='Adds.', timeout_ms=5000)\n"
                "async def add(ctx: Call, a: int, b: int = 1) -> int:\n"
                "    ctx.progress(1, 2)\n"
                "    ok: bool = await ctx.send_text('adding')\n"
                "    return a + b if ok else 0\n\n\n"
                "settings: JsonObject = config()\n"
                "total: int = add.__name__.count('a')\n")
        bad = good + "wrong: int = config()\n"
        for name, text in (("good.py", good), ("bad.py", bad)):
            with open(os.path.join(self.work, name), "w", encoding="utf-8") as f:
                f.write(text)
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
        run = [shutil.which("mypy") or "mypy", "--strict", "--no-incremental", "--python-executable", self.python]
        ok = subprocess.run(run + ["good.py"], capture_output=True, text=True, cwd=self.work, env=env, timeout=300)
        self.assertEqual(ok.returncode, 0, ok.stdout + ok.stderr)
        ko = subprocess.run(run + ["bad.py"], capture_output=True, text=True, cwd=self.work, env=env, timeout=300)
        self.assertEqual(ko.returncode, 1, ko.stdout + ko.stderr)
        self.assertIn('bad.py:13: error: Incompatible types in assignment (expression has type "Dict[str, Any]", '
                      'variable has type "int")', ko.stdout)


if __name__ == "__main__":
    unittest.main()
