#!/usr/bin/env python3
"""check_citations.py -- every document the repository cites is in the repository.

Code and docs cite only the repository's own docs/. This check fails, naming
each file and line, when:

- a file outside docs/ names a Markdown document (NAME.md) that is not one
  of the repository's; or a "../" path that lands in no folder of the
  repository (nor a build folder), from the file's folder or any other; or a
  /work/ path, the machine's folders outside the repository;
- any file cites a section of docs/ARCHITECTURE.md that does not exist, in
  the citation form

      docs/ARCHITECTURE.md, "Reef Builder rules"

  (the quoted text is a heading of any level, word for word, on one line; a
  comment may break the line between the comma and the quote), or links one
  by an anchor (ARCHITECTURE.md#reef-builder-rules) that no heading makes;
- docs/ARCHITECTURE.md has two headings alike, or a link to an anchor of its
  own that no heading makes.

Files are those git knows (tracked, or new and not ignored); without git, the
source tree minus build folders and node_modules. Binary files are skipped.

Usage: check_citations.py [REPOSITORY]   (default: this file's repository)
"""
import os
import posixpath
import re
import subprocess
import sys

ARCHITECTURE = "docs/ARCHITECTURE.md"
# A cited Markdown document: a path-like token ending in ".md".
MARKDOWN_CITATION = re.compile(r"[A-Za-z0-9_./~-]*[A-Za-z0-9_-]\.md\b")
# A relative path that climbs: "../x", not part of a longer path ("/a/../b").
CLIMBING_PATH = re.compile(r"(?<![A-Za-z0-9_./-])((?:\.\./)+[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*)")
MACHINE_PATH = re.compile(r"/work/[A-Za-z0-9_.-]+")
# docs/ARCHITECTURE.md, "Heading" -- across a comment's line break too.
SECTION_CITATION = re.compile(r'ARCHITECTURE\.md,\s*(?:(?:\*|#|//)\s*)*"([^"]*)"')
ANCHOR_CITATION = re.compile(r"ARCHITECTURE\.md#([A-Za-z0-9_-]+)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
IGNORED_PARTS = ("node_modules", ".git")


def repository_files(root):
    """The repository's files, as paths relative to `root`."""
    try:
        listing = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            check=True, capture_output=True).stdout
        return sorted({path for path in listing.decode().split("\0") if path})
    except (OSError, subprocess.CalledProcessError):
        files = []
        for folder, subfolders, names in os.walk(root):
            subfolders[:] = [name for name in subfolders
                             if name not in IGNORED_PARTS and not name.startswith("build")]
            for name in names:
                files.append(os.path.relpath(os.path.join(folder, name), root))
        return sorted(path.replace(os.sep, "/") for path in files)


def read_text(root, path):
    """The file's text, or None for a binary or unreadable one."""
    try:
        with open(os.path.join(root, path), encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


def anchor_of(heading):
    """The anchor a Markdown renderer (GitHub's) gives a heading."""
    text = re.sub(r"[`*_]{2,}|`", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def headings_of(text):
    """Every heading of a Markdown text (outside code blocks), in order."""
    headings, is_code = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            is_code = not is_code
            continue
        match = None if is_code else HEADING.match(line)
        if match:
            headings.append(match.group(1))
    return headings


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


class Checker:
    def __init__(self, root):
        self.root = root
        self.files = repository_files(root)
        self.file_set = set(self.files)
        self.folders = {""}
        for path in self.files:
            parts = path.split("/")[:-1]
            for depth in range(1, len(parts) + 1):
                self.folders.add("/".join(parts[:depth]))
        self.markdown_names = {posixpath.basename(p) for p in self.files if p.endswith(".md")}
        architecture = read_text(root, ARCHITECTURE) or ""
        self.headings = headings_of(architecture)
        self.anchors = {anchor_of(heading) for heading in self.headings}
        self.problems = []

    def report(self, path, text, offset, problem):
        self.problems.append(f"{path}:{line_of(text, offset)}: {problem}")

    def is_in_repository(self, path, climbing):
        """Whether `climbing` ("../x/y") lands in the repository from the folder
        of `path`, or from any folder of it (a command may `cd` first)."""
        start = posixpath.dirname(path)
        for folder in [start] + sorted(self.folders):
            landed = posixpath.normpath(posixpath.join(folder, climbing))
            if landed.startswith("..") or landed.startswith("/"):
                continue
            first = landed.split("/")[0]
            if landed in self.file_set or landed in self.folders or first.startswith("build"):
                return True
        return False

    def check_outside_docs(self, path, text):
        for match in MARKDOWN_CITATION.finditer(text):
            name = posixpath.basename(match.group(0))
            if name not in self.markdown_names:
                self.report(path, text, match.start(),
                            f"cites {match.group(0)}, which is not in the repository")
        for match in CLIMBING_PATH.finditer(text):
            if not self.is_in_repository(path, match.group(1)):
                self.report(path, text, match.start(),
                            f"names {match.group(1)}, a path outside the repository")
        for match in MACHINE_PATH.finditer(text):
            self.report(path, text, match.start(),
                        f"names {match.group(0)}, a path outside the repository")

    def check_sections(self, path, text):
        for match in SECTION_CITATION.finditer(text):
            if "\n" in match.group(1):
                self.report(path, text, match.start(),
                            f"cites a heading of {ARCHITECTURE} across a line break:"
                            " keep the quoted heading on one line")
            elif match.group(1) not in self.headings:
                self.report(path, text, match.start(),
                            f'cites {ARCHITECTURE}, "{match.group(1)}", which has no such heading')
        for match in ANCHOR_CITATION.finditer(text):
            if match.group(1) not in self.anchors:
                self.report(path, text, match.start(),
                            f"links {ARCHITECTURE}#{match.group(1)}, which no heading makes")
        if path == ARCHITECTURE:
            for match in re.finditer(r"\]\(#([A-Za-z0-9_-]+)\)", text):
                if match.group(1) not in self.anchors:
                    self.report(path, text, match.start(),
                                f"links #{match.group(1)}, which no heading makes")

    def run(self):
        if not self.headings:
            self.problems.append(f"{ARCHITECTURE}: missing, or without headings")
        repeated = sorted({h for h in self.headings if self.headings.count(h) > 1})
        for heading in repeated:
            self.problems.append(f'{ARCHITECTURE}: the heading "{heading}" is not unique')
        this_file = os.path.relpath(os.path.abspath(__file__), self.root).replace(os.sep, "/")
        for path in self.files:
            if path == this_file or any(part in IGNORED_PARTS for part in path.split("/")):
                continue  # this file names what it looks for
            text = read_text(self.root, path)
            if text is None:
                continue
            if not path.startswith("docs/"):
                self.check_outside_docs(path, text)
            self.check_sections(path, text)
        return self.problems


def main(argv):
    default_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    root = argv[1] if len(argv) > 1 else default_root
    problems = Checker(root).run()
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} citation(s) to fix: code and docs cite only the repository's"
              f" docs/, and a section of {ARCHITECTURE} by its exact heading")
        return 1
    print("every citation is in the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
