#!/usr/bin/env python3
"""List every top-level type of the Maven modules' main sources, with its first Javadoc sentence.

    scripts/architecture-classes.py            # print the class tables (Markdown) to stdout
    scripts/architecture-classes.py --write    # replace the generated block of docs/architecture.md
    scripts/architecture-classes.py --check    # exit 1 when that block is not what the sources say

The block sits between the markers below in docs/architecture.md: one table per module, one row per
type (package, public or not, and what its Javadoc says first). ArchitectureDocTest (executor module,
dev.toolbus.layout) fails when a main type is missing from the page or has two rows.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
BEGIN = "<!-- classes:begin (scripts/architecture-classes.py --write) -->"
END = "<!-- classes:end -->"
# modules without classes worth a row: the BOM, the distribution, the JMH benchmarks
SKIPPED = {"bom", "distribution", "benchmarks"}

TYPE = re.compile(r"^(public\s+)?(?:(?:final|abstract|sealed|non-sealed|strictfp)\s+)*"
                  r"(class|interface|enum|record|@interface)\s+(\w+)", re.M)


def modules():
    pom = (ROOT / "pom.xml").read_text(encoding="utf-8")
    return [m for m in re.findall(r"<module>([^<]+)</module>", pom) if m not in SKIPPED]


def artifact(module):
    pom = (ROOT / module / "pom.xml").read_text(encoding="utf-8")
    pom = re.sub(r"<parent>.*?</parent>", "", pom, flags=re.S)
    m = re.search(r"<artifactId>([^<]+)</artifactId>", pom)
    return m.group(1) if m else module


def first_sentence(javadoc):
    text = re.sub(r"^\s*\*+ ?", "", javadoc, flags=re.M)
    text = text.split("\n@", 1)[0]
    text = re.sub(r"<pre>.*?</pre>", "", text, flags=re.S)
    text = re.sub(r"\{@(?:link|linkplain|code)\s+([^}]*)\}", lambda m: "`" + m.group(1).split(" ")[-1]
                  .split("#")[-1] + "`" if m.group(0).startswith("{@link") else "`" + m.group(1) + "`", text)
    text = re.sub(r"\{@value\s+#?([^}]*)\}", lambda m: "`" + m.group(1).split("#")[-1] + "`", text)
    text = re.sub(r"\{@\w+\s+([^}]*)\}", lambda m: m.group(1), text)
    text = re.sub(r"<[^>]+>", "", text)
    text = " ".join(text.split())
    m = re.search(r"^(.+?[.!?])(\s|$)", text)
    sentence = m.group(1) if m else text
    return sentence.replace("|", "\\|")


def types_of(module):
    out = []
    src = ROOT / module / "src" / "main" / "java"
    for path in sorted(src.rglob("*.java")):
        if path.name == "package-info.java":
            continue
        code = path.read_text(encoding="utf-8")
        pkg = re.search(r"^package\s+([\w.]+)\s*;", code, re.M).group(1)
        name = path.stem
        m = None
        for cand in TYPE.finditer(code):
            if cand.group(3) == name:
                m = cand
                break
        public = bool(m and m.group(1))
        doc = ""
        if m:
            before = code[:m.start()]
            before = re.sub(r"(\s*@[\w.]+(\([^()]*(\([^()]*\)[^()]*)*\))?)+\s*$", "", before)
            j = re.search(r"/\*\*(.*?)\*/\s*$", before, re.S)
            if j:
                doc = first_sentence(j.group(1))
        out.append((pkg, name, public, doc))
    return out


def tables():
    lines = [BEGIN, ""]
    for module in modules():
        types = types_of(module)
        if not types:
            continue
        lines.append(f"### `{module}/` ({artifact(module)})")
        lines.append("")
        lines.append("| class | package | API | holds |")
        lines.append("|---|---|---|---|")
        for pkg, name, public, doc in sorted(types, key=lambda t: (t[0], t[1])):
            short = pkg.removeprefix("dev.toolbus.")
            api = "no" if not public or re.search(r"(^|\.)internal(\.|$)", pkg) else "yes"
            lines.append(f"| `{name}` | `{short}` | {api} | {doc or '—'} |")
        lines.append("")
    lines.append(END)
    return "\n".join(lines)


def main(argv):
    generated = tables()
    if len(argv) < 2:
        print(generated)
        return 0
    doc = DOC.read_text(encoding="utf-8")
    if BEGIN not in doc or END not in doc:
        print(f"{DOC}: no generated block ({BEGIN} … {END})", file=sys.stderr)
        return 2
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    updated = head + generated + tail
    if argv[1] == "--write":
        DOC.write_text(updated, encoding="utf-8")
        return 0
    if argv[1] == "--check":
        if updated != doc:
            print("docs/architecture.md is behind the sources: run scripts/architecture-classes.py --write",
                  file=sys.stderr)
            return 1
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
