"""Test support for the package tests: a fresh virtualenv, ``pip install`` of a folder without an index,
and ``toolbus serve`` running one turn against a plugins folder."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(HERE))))
JAR = os.environ.get("TOOLBUS_JAR", os.path.join(ROOT, "server", "target", "toolbus-server.jar"))
WAIT_S = 180


def require_jar() -> None:
    """Skips without the server jar; fails instead when TOOLBUS_REQUIRE_JAR=1 (scripts/test-packages.sh)."""
    if os.path.isfile(JAR):
        return
    message = f"the server jar {JAR} is missing: mvn -pl server -am package -DskipTests"
    if os.environ.get("TOOLBUS_REQUIRE_JAR") == "1":
        raise AssertionError(message)
    raise unittest.SkipTest(message)


def readme_block(readme: str, language: str, after: str) -> str:
    """The first fenced block of ``language`` after the heading ``after`` in a README."""
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    start = text.index(after)
    m = re.search(r"```" + language + r"\n(.*?)```", text[start:], re.S)
    if m is None:
        raise AssertionError(f"no {language} block after {after!r} in {readme}")
    return m.group(1)


def _run(args: List[str]) -> "subprocess.CompletedProcess[str]":
    out = subprocess.run(args, capture_output=True, text=True, timeout=WAIT_S)
    if out.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {out.returncode}:\n{out.stdout}\n{out.stderr}")
    return out


# Debian's wheels of pip, setuptools and wheel (python3-pip-whl, python3-setuptools-whl, python3-wheel-whl)
WHEELS = os.environ.get("TOOLBUS_PYTHON_WHEELS", "/usr/share/python-wheels")


def make_venv(directory: str) -> str:
    """A fresh virtualenv (no system site-packages) that can build a setuptools project offline; returns its
    python. A venv brings pip (and setuptools before Python 3.12) but not ``wheel``, which setuptools before
    70.1 needs to build one: both come from Debian's wheel files, without an index."""
    _run([sys.executable, "-m", "venv", directory])
    python = os.path.join(directory, "bin", "python")
    missing = [m for m in ("setuptools", "wheel")
               if subprocess.run([python, "-c", f"import {m}"], capture_output=True).returncode != 0]
    if missing:
        _run([python, "-m", "pip", "install", "--quiet", "--no-index", "--find-links", WHEELS, *missing])
    return python


def pip_install(python: str, *folders: str) -> None:
    """``pip install --no-index --no-build-isolation`` of copies of the folders (pip builds in the tree)."""
    work = tempfile.mkdtemp(prefix="toolbus-pip-src-")
    try:
        copies = []
        for folder in folders:
            copy = os.path.join(work, os.path.basename(folder.rstrip("/")))
            shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("tests", "__pycache__", "build", "*.egg-info"))
            copies.append(copy)
        _run([python, "-m", "pip", "install", "--quiet", "--no-index", "--no-build-isolation", *copies])
    finally:
        shutil.rmtree(work, ignore_errors=True)


def write_plugin(folder: str, manifest: Dict[str, object], files: Dict[str, str]) -> None:
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "plugin.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f)
    for name, text in files.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(text)


def serve_turn(plugins: str, calls: List[Dict[str, object]], extra: Optional[List[str]] = None) -> Dict[str, dict]:
    """Runs one turn of ``calls`` on ``toolbus serve --bus stdio --plugins DIR``; the tool_result events by call id."""
    turn = {"type": "tool_calls", "stream_id": "packages", "turn_id": "t1", "calls": calls}
    java_opts = os.environ.get("TOOLBUS_JAVA_OPTS", "-Xmx256m").split()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    out = subprocess.run(["java", *java_opts, "-jar", JAR, "serve", "--bus", "stdio", "--plugins", plugins,
                          "--log-level", "warn", *(extra or [])],
                         input=json.dumps(turn) + "\n", capture_output=True, text=True, timeout=WAIT_S, env=env)
    if out.returncode != 0:
        raise AssertionError(f"toolbus serve exited {out.returncode}: {out.stderr[-4000:]}")
    results = {}
    for line in out.stdout.splitlines():
        event = json.loads(line)
        if event.get("type") == "tool_result":
            results[event["tool_call_id"]] = event
    if set(results) != {c["tool_call_id"] for c in calls}:
        raise AssertionError(f"results {sorted(results)} for {len(calls)} calls; stdout: {out.stdout[-2000:]}; "
                             f"stderr: {out.stderr[-4000:]}")
    return results
