"""check_layers.py -- the layers only look down, checked by #include.

Each top folder of C code is a layer or a tool (the root CMakeLists.txt and
the README's Layout say what each holds):

    engine <- protocol <- lobby <- history <- server <- cli
    storage beside them (below lobby), util below all

A file may include headers of its own folder and of the folders LAYERS
allows it; tests/ may include any layer. Three more rules hold everywhere:
only storage/ includes sqlite3.h (nothing else sees SQLite), only
storage/store_pg.c and storage/store_listen.c (its statements, and the
connection that listens for notices) include libpq-fe.h (nothing else sees
libpq), and a folder's
*_internal.h is included only from that folder. A folder of C code this
table does not know fails, so a new layer is placed before it is used.

Lines that break a rule today and cannot be fixed by moving files are
listed in EXCEPTIONS, each with the reason and the issue that removes it;
an exception that no longer matches fails too, so the list only shrinks.
The rules are tried on a made-up tree first, so a check that found
nothing because it looked at nothing cannot pass.

    /usr/bin/python3 tests/tools/check_layers.py
"""

import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# The folders each folder's files may include, besides their own.
# The files that see libpq.
LIBPQ_FILES = ("storage/store_pg.c", "storage/store_listen.c")

LAYERS = {
    "util": set(),
    "engine": {"util"},
    "protocol": {"engine", "util"},
    "storage": {"util"},
    "lobby": {"protocol", "engine", "storage", "util"},
    "history": {"lobby", "protocol", "engine", "storage", "util"},
    "server": {"history", "lobby", "protocol", "engine", "storage", "util"},
    "cli": {"server", "history", "lobby", "protocol", "engine", "storage", "util", "bench"},
    # Benchmarks and the history database generator: the libraries below
    # the server (tessera_bench is linked into `tessera bench`).
    "bench": {"history", "lobby", "protocol", "engine", "storage", "util"},
    # Tests reach into any layer; the two rules below still hold for them.
    "tests": {"engine", "util", "protocol", "storage", "lobby", "history", "server", "cli",
              "bench"},
}

# (file, included header): lines allowed to break a rule for now.
EXCEPTIONS = {
    # issue 17: storage's unit tests read and damage the database with plain
    # SQL (a column's value, a forged row) through the store's internals;
    # the narrow storage interface of issue 17 gives them a way that does not.
    ("tests/unit/test_store.c", "sqlite3.h"),
    # issue 18: the storage tests' databases (test_db.c), SQLite files or
    # PostgreSQL databases, read and written with plain SQL.
    ("tests/unit/test_db.c", "sqlite3.h"),
    ("tests/unit/test_db.c", "libpq-fe.h"),
    ("tests/unit/test_store.c", "storage/store_internal.h"),
    ("tests/unit/test_store_read.c", "storage/store_internal.h"),
    ("tests/unit/test_store_results.c", "storage/store_internal.h"),
    # issue 17: the move log's migration test writes a version-6 database
    # (rows as that version stored them) on a plain SQLite connection.
    ("tests/unit/test_action_record.c", "sqlite3.h"),
    ("tests/unit/test_action_record.c", "storage/store_internal.h"),
    # issue 17: the lobby tests' harness counts stored rows with plain SQL
    # on the store's own connection.
    ("tests/unit/lobby_harness.c", "storage/store_internal.h"),
}

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def problems(files, layers, exceptions):
    """The rule breaks in `files` ({path: text}), as sorted messages, and
    the exceptions that matched nothing."""
    found, used = [], set()
    for path, text in sorted(files.items()):
        folder = path.split("/")[0]
        if folder not in layers:
            found.append(f"{path}: folder {folder}/ is not in check_layers.py's LAYERS")
            continue
        for header in INCLUDE.findall(text):
            top = header.split("/")[0] if "/" in header else folder
            broken = []
            if top != folder and top in layers and top not in layers[folder]:
                broken.append(f"{folder}/ may not include {top}/")
            if os.path.basename(header) == "sqlite3.h" and folder != "storage":
                broken.append("only storage/ includes sqlite3.h")
            if header == "libpq-fe.h" and path not in LIBPQ_FILES:
                broken.append("only " + " and ".join(LIBPQ_FILES) + " include libpq-fe.h")
            if header.endswith("_internal.h") and top != folder:
                broken.append(f"{header} is internal to {top}/")
            if broken and (path, header) in exceptions:
                used.add((path, header))
            elif broken:
                found.append(f"{path}: #include {header}: {'; '.join(broken)}")
    for path, header in sorted(exceptions - used):
        found.append(f"stale exception ({path}, {header}): remove it from EXCEPTIONS")
    return found


def self_test():
    """The rules catch each kind of break on a made-up tree."""
    files = {
        "engine/a.c": '#include "protocol/x.h"\n#include "util/x.h"\n#include <string.h>\n',
        "protocol/a.c": '#include "lobby/lobby.h"\n#include "engine/b.h"\n',
        "lobby/a.c": '#include "history/replay.h"\n#include "lobby_internal.h"\n',
        "history/a.c": '#include "lobby/lobby_internal.h"\n#include "lobby/match.h"\n',
        "server/a.c": '#  include "cli/commands.h"\n#include <sqlite3.h>\n',
        "storage/a.c": "#include <sqlite3.h>\n",
        "cli/a.c": '#include "server/app.h"\n',
        "tests/a.c": '#include "storage/store_internal.h"\n',
        "records/a.c": "",
    }
    exceptions = {("tests/a.c", "storage/store_internal.h"), ("tests/b.c", "sqlite3.h")}
    expected = [
        "engine/a.c: #include protocol/x.h: engine/ may not include protocol/",
        "history/a.c: #include lobby/lobby_internal.h: lobby/lobby_internal.h is internal to lobby/",
        "lobby/a.c: #include history/replay.h: lobby/ may not include history/",
        "protocol/a.c: #include lobby/lobby.h: protocol/ may not include lobby/",
        "records/a.c: folder records/ is not in check_layers.py's LAYERS",
        "server/a.c: #include cli/commands.h: server/ may not include cli/",
        "server/a.c: #include sqlite3.h: only storage/ includes sqlite3.h",
        "stale exception (tests/b.c, sqlite3.h): remove it from EXCEPTIONS",
    ]
    got = problems(files, LAYERS, exceptions)
    if got != expected:
        sys.exit("check_layers.py's self-test failed:\n  " + "\n  ".join(got))


def source_files():
    """{path: text} of every .c and .h file under the root's folders, but
    build folders (any with a CMakeCache.txt) and node_modules."""
    files = {}
    for folder in sorted(os.listdir(ROOT)):
        if folder.startswith(".") or not os.path.isdir(os.path.join(ROOT, folder)):
            continue
        for directory, subfolders, names in os.walk(os.path.join(ROOT, folder)):
            if os.path.exists(os.path.join(directory, "CMakeCache.txt")):
                subfolders[:] = []
                continue
            subfolders[:] = [name for name in subfolders if name != "node_modules"]
            for name in names:
                if name.endswith((".c", ".h")):
                    path = os.path.join(directory, name)
                    with open(path, encoding="utf-8") as file:
                        files[os.path.relpath(path, ROOT)] = file.read()
    return files


def main():
    self_test()
    files = source_files()
    found = problems(files, LAYERS, EXCEPTIONS)
    for message in found:
        print(message, file=sys.stderr)
    if found:
        sys.exit(1)
    print(f"{len(files)} files: every #include looks down ({len(EXCEPTIONS)} exceptions, listed in EXCEPTIONS)")


if __name__ == "__main__":
    main()
