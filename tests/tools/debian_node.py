"""debian_node.py -- the browser tests run on the Node.js that Debian 12 ships.

The README's test command installs Debian's `nodejs` (18.20.4) where a
machine has no Node; machines with a newer Node from elsewhere would hide a
package that refuses it. So this checks, without running Node:

- every package pinned in tests/web/package-lock.json, and in the
  Lighthouse benchmark's tests/web/lighthouse/package-lock.json, accepts
  Node 18.20.4 (its `engines.node` range, as npm reads it);
- Node reads web/'s .js files as ES modules (the browser tests import
  them): Node 18 does not guess that from the syntax, so the package.json
  nearest to web/ must say `"type": "module"`.

    /usr/bin/python3 tests/tools/debian_node.py
"""

import json
import os
import re
import sys

DEBIAN_NODE = (18, 20, 4)  # bookworm's nodejs 18.20.4+dfsg
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LOCKS = [os.path.join("tests", "web", "package-lock.json"), os.path.join("tests", "web", "lighthouse", "package-lock.json")]


def version(text):
    """(major, minor, patch) of "18", "18.2", "v18.2.0" (missing parts 0)."""
    parts = [int(part) for part in re.findall(r"\d+", text)[:3]]
    return tuple(parts + [0] * (3 - len(parts)))


def satisfies(node, comparator):
    if comparator in ("*", "x"):
        return True
    match = re.fullmatch(r"(>=|<=|>|<|=|\^|~)?\s*v?([\d.x*]+)", comparator)
    if not match:
        raise ValueError(f"unsupported engines comparator {comparator!r}")
    operator, wanted = match.group(1) or "=", version(match.group(2).replace("x", "0"))
    if operator == "=":  # "18", "6.*": the parts given must match
        given = re.match(r"[\d.]*", match.group(2)).group(0).strip(".")
        return node[:len(given.split("."))] == version(given)[:len(given.split("."))]
    if operator == "^":
        return node >= wanted and node[0] == wanted[0]
    if operator == "~":
        return node >= wanted and node[:2] == wanted[:2]
    return {">=": node >= wanted, "<=": node <= wanted, ">": node > wanted,
            "<": node < wanted, "=": node[:len(wanted)] == wanted}[operator]


def accepts(node, engines_range):
    """npm's reading of a range: alternatives joined by ||, each a list of
    comparators that must all hold."""
    return any(all(satisfies(node, comparator) for comparator in re.sub(r"(>=|<=|>|<|=)\s+", r"\1", alternative).split())
               for alternative in engines_range.split("||") if alternative.strip())


def main():
    problems = []
    for lock in LOCKS:
        with open(os.path.join(ROOT, lock)) as file:
            packages = json.load(file)["packages"]
        for path, package in packages.items():
            wanted = package.get("engines", {}).get("node")
            if path and wanted and not accepts(DEBIAN_NODE, wanted):
                problems.append(f"{lock}: {path} {package.get('version')} wants Node {wanted}")
    folder = os.path.join(ROOT, "web")
    while not os.path.exists(os.path.join(folder, "package.json")) and folder != "/":
        folder = os.path.dirname(folder)
    manifest = os.path.join(folder, "package.json")
    module_type = None
    if os.path.exists(manifest):
        with open(manifest) as file:
            module_type = json.load(file).get("type")
    if module_type != "module":
        problems.append("no package.json above web/ says \"type\": \"module\"")
    for problem in problems:
        print(f"Debian 12's Node {'.'.join(map(str, DEBIAN_NODE))}: {problem}")
    print("ok" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
