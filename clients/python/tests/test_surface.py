"""The Python client's public surface equals its column of clients/surface.md, which the Node client's
tests hold to the other column: every name the table gives exists, and every public name the package
has is in the table (a gap is a row with the other side's cell empty and a reason)."""

import dataclasses
import inspect
import os
import re
import unittest
from typing import Any, Dict, List, Set, Tuple

import toolbus
from toolbus import events

SURFACE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "surface.md")
CELL = re.compile(r"^`([^`]+)`$")
# methods whose keyword parameters are part of the surface (with the constructor's)
METHODS_WITH_OPTIONS = ("run_turn", "cancel", "respond_input", "list_tools", "list_skills")
INSTANCES = {"Client": lambda: toolbus.Client("http://127.0.0.1:1"), "Turn": lambda: toolbus.Turn("s", "t")}


def rows() -> List[Tuple[str, str, str]]:
    """(python, node, note) of each table row; a cell is its name, or "" for —."""
    out = []
    with open(SURFACE, encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 4 or cells[0] in ("kind", "---"):
                continue
            names = []
            for cell in cells[1:3]:
                m = CELL.match(cell)
                if cell != "—" and m is None:
                    raise AssertionError(f"a cell is a `name` or —, got {cell!r} in: {line.strip()}")
                names.append(m.group(1) if m else "")
            out.append((names[0], names[1], cells[3]))
    return out


def member_names(cls: type) -> Set[str]:
    """Public methods, properties and attributes of a class, its dataclass fields, and its instance's attributes."""
    names = {n for n in dir(cls) if not n.startswith("_")}
    if dataclasses.is_dataclass(cls):
        names |= {f.name for f in dataclasses.fields(cls) if not f.name.startswith("_")}
    if cls.__name__ in INSTANCES:
        names |= {n for n in vars(INSTANCES[cls.__name__]()) if not n.startswith("_")}
    return names


def keyword_parameters(function: Any) -> Set[str]:
    """Parameters that can be passed by keyword and have a default (the required ones are the call's own)."""
    return {p.name for p in inspect.signature(function).parameters.values()
            if p.default is not inspect.Parameter.empty and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}


def resolves(name: str) -> bool:
    m = re.match(r"^(\w+)\((\w+)=\)$", name)
    if m:
        return m.group(2) in keyword_parameters(getattr(toolbus, m.group(1)))
    m = re.match(r"^(\w+)\.(\w+)\((\w+)=\)$", name)
    if m:
        return m.group(3) in keyword_parameters(getattr(getattr(toolbus, m.group(1)), m.group(2)))
    m = re.match(r"^(\w+)\.(\w+)$", name)
    if m:
        cls = getattr(toolbus, m.group(1), None)
        return isinstance(cls, type) and m.group(2) in member_names(cls)
    return re.match(r"^\w+$", name) is not None and name in toolbus.__all__


class SurfaceTest(unittest.TestCase):
    def setUp(self) -> None:
        self.python = [p for p, _, _ in rows() if p]

    def test_the_table_has_rows_and_a_reason_for_each_gap(self) -> None:
        table = rows()
        self.assertGreater(len(table), 80)
        for python, node, note in table:
            self.assertTrue(python or node, "a row names something")
            if not python or not node:
                self.assertTrue(note, f"the gap at {python or node} says why")

    def test_every_name_in_the_python_column_exists(self) -> None:
        missing = [n for n in self.python if not resolves(n)]
        self.assertEqual(missing, [], "named in clients/surface.md, not in the package")

    def test_every_export_is_in_the_table(self) -> None:
        self.assertEqual(sorted(set(toolbus.__all__) - set(self.python)), [],
                         "exported by toolbus, not in clients/surface.md")

    def test_every_public_member_of_the_client_and_the_turn_is_in_the_table(self) -> None:
        for cls in (toolbus.Client, toolbus.Turn):
            listed = {n.split(".", 1)[1] for n in self.python if re.match(rf"^{cls.__name__}\.\w+$", n)}
            self.assertEqual(sorted(member_names(cls) - listed), [], f"{cls.__name__} members not in the table")

    def test_every_option_and_keyword_parameter_is_in_the_table(self) -> None:
        expected: Dict[str, Set[str]] = {"Client(%s=)": keyword_parameters(toolbus.Client)}
        for method in METHODS_WITH_OPTIONS:
            expected["Client.%s(%%s=)" % method] = keyword_parameters(getattr(toolbus.Client, method))
        for options in (toolbus.HttpOptions, toolbus.WebSocketOptions, toolbus.RedisOptions, toolbus.KafkaOptions,
                        toolbus.StdioOptions):
            expected[options.__name__ + ".%s"] = {f.name for f in dataclasses.fields(options)}
        missing = [shape % name for shape, names in expected.items() for name in sorted(names)
                   if shape % name not in self.python]
        self.assertEqual(missing, [], "options and parameters not in clients/surface.md")

    def test_every_method_of_an_event_is_in_the_table(self) -> None:
        missing = []
        for name in toolbus.__all__:
            cls = getattr(toolbus, name)
            if not (isinstance(cls, type) and issubclass(cls, events.Event)):
                continue
            own = {n for n, v in vars(cls).items()
                   if not n.startswith("_") and (callable(v) or isinstance(v, property))}
            inherited = {n for n in own if cls is not events.Event and hasattr(events.Event, n)}
            missing += [f"{name}.{m}" for m in sorted(own - inherited) if f"{name}.{m}" not in self.python]
        self.assertEqual(missing, [], "event methods not in clients/surface.md")


if __name__ == "__main__":
    unittest.main()
