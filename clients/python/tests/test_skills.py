"""list_skills through the Python client against a real ``toolbus serve --skills``: over HTTP and the
stdio sidecar, list_skills, a load_skill call, then list_skills again hands the loaded skill back."""

import os
import unittest

from support import TOKEN, Server, require_jar, temp_dir
from toolbus import Client, SkillsEvent, StdioOptions


def _skills_dir(owner):
    """The skills folder, removed when ``owner`` (a test, or a test class in setUpClass) cleans up."""
    root = temp_dir(owner, prefix="toolbus-py-skills-")
    os.makedirs(os.path.join(root, "pdf"))
    with open(os.path.join(root, "pdf", "SKILL.md"), "w", encoding="utf-8") as f:
        f.write("---\nname: pdf-tools\ndescription: Fill and merge PDF forms\ntriggers: [表单]\n---\nUse pdftk.\n")
    with open(os.path.join(root, "deploy.skill.yaml"), "w", encoding="utf-8") as f:
        f.write("name: deploy\ndescription: Deploy the bot\ncontent: |\n  1. build\n  2. ship\n")
    return root


class SkillsFlow:
    async def check_flow(self, tb, stream):
        first = await tb.list_skills(stream, text="帮我填这个表单", selected=["nope"])
        self.assertIsInstance(first, SkillsEvent)
        self.assertEqual("auto", first.mode)
        self.assertEqual(["deploy", "pdf-tools"], [s["name"] for s in first.skills])
        self.assertEqual([("pdf-tools", "matched")], [(d["name"], d["reason"]) for d in first.documents])
        self.assertEqual(["nope"], first.missing)
        self.assertEqual([], first.loaded)
        turn = await tb.run_turn(stream, [{"id": "c1", "type": "function",
                                           "function": {"name": "load_skill", "arguments": "{\"name\":\"deploy\"}"}}])
        self.assertFalse(turn.results[0].is_error, turn.results[0].content)
        again = await tb.list_skills(stream)
        self.assertEqual(["deploy"], again.loaded)
        self.assertEqual("loaded", again.documents[0]["reason"])
        self.assertEqual("# deploy\n\n1. build\n2. ship", again.documents[0]["text"])


class HttpSkillsTest(SkillsFlow, unittest.IsolatedAsyncioTestCase):
    @classmethod
    def setUpClass(cls):
        require_jar(cls)
        cls.server = Server("--skills", _skills_dir(cls)).start()
        cls.url = "http://127.0.0.1:%d" % cls.server.port

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    async def test_list_skills_load_skill_list_skills(self):
        async with Client(self.url, token=TOKEN) as tb:
            await self.check_flow(tb, "py:http:skills")


class StdioSkillsTest(SkillsFlow, unittest.IsolatedAsyncioTestCase):
    def setUp(self):
        require_jar(self)

    async def test_list_skills_load_skill_list_skills(self):
        command = Server("--bus", "stdio", "--skills", _skills_dir(self), gateway=False).command()
        async with Client("stdio:", transport=StdioOptions(command)) as tb:
            await self.check_flow(tb, "py:stdio:skills")
