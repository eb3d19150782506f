"""test_sdk_install.py -- the Python SDK installed with pip, as a bot author installs it.

Each run copies clients/python to a temporary folder (pip builds in the
source tree, which must stay clean), makes a fresh venv with Debian's
python3 (--system-site-packages, so Debian's websockets is seen), installs
the SDK with Debian's setuptools and no index (`pip install
--no-build-isolation --no-index`), and then plays against a real server with
that install only: an example bot copied out of the checkout, and the
`tessera-bot` command, alone and with --gtp. The SDK's version is the
server's, and the protocol version it states is the one docs/PROTOCOL.md
states.
"""

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import TesseraServer, run_tests  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SDK = os.path.join(ROOT, "clients", "python")
PROTOCOL_DOC = os.path.join(ROOT, "docs", "PROTOCOL.md")
GTP_ENGINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gtp_random_engine.py")
INSTALL_TIMEOUT_S = 120
GAME_TIMEOUT_S = 40


class Install:
    """A fresh venv with the SDK pip-installed into it."""

    def __init__(self, folder):
        self.folder = folder
        self.venv = os.path.join(folder, "venv")
        self.python = os.path.join(self.venv, "bin", "python")
        self.command = os.path.join(self.venv, "bin", "tessera-bot")
        self.transcript = []

    def run(self, *arguments, timeout=INSTALL_TIMEOUT_S):
        done = subprocess.run(arguments, capture_output=True, text=True, timeout=timeout,
                              cwd=self.folder)
        self.transcript.append(f"$ {' '.join(arguments)}\n{done.stdout}{done.stderr}")
        assert done.returncode == 0, self.transcript[-1]
        return done.stdout

    def make(self):
        source = os.path.join(self.folder, "source")
        shutil.copytree(SDK, source, ignore=shutil.ignore_patterns(
            "__pycache__", "build", "*.egg-info"))
        self.run("/usr/bin/python3", "-m", "venv", "--system-site-packages", self.venv)
        out = self.run(self.python, "-m", "pip", "install", "--no-build-isolation",
                       "--no-index", source)
        assert re.search(r"^Successfully installed tessera-bot-\S+$", out, re.MULTILINE), out
        return self


_FOLDER = tempfile.TemporaryDirectory(prefix="tessera-sdk-")  # removed as the run ends
_INSTALL = []


def installed():
    """The run's one install (made by the first test that needs it); its
    commands and pip's last line go to stdout, for the record."""
    if not _INSTALL:
        _INSTALL.append(Install(_FOLDER.name).make())
        for step in _INSTALL[0].transcript:
            lines = step.strip().splitlines()
            print("  " + "\n    -> ".join(lines[:1] + lines[1:][-1:]), flush=True)
    return _INSTALL[0]


async def play(*command, key=None):
    """Runs a bot process; returns (status, stdout JSON lines, stderr)."""
    environment = dict(os.environ)
    environment.pop("TESSERA_BOT_KEY", None)
    if key:
        environment["TESSERA_BOT_KEY"] = key
    process = await asyncio.create_subprocess_exec(
        *command, env=environment, cwd=tempfile.gettempdir(),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), GAME_TIMEOUT_S)
    lines = [json.loads(line) for line in out.decode().splitlines() if line.strip()]
    return process.returncode, lines, err.decode()


def assert_one_finished_game(status, lines, errors, players):
    assert status == 0, errors
    assert len(lines) == 1 and lines[0]["seat"] == 0, lines
    assert len(lines[0]["result"]["scores"]) == players, lines
    assert "refused" not in errors and "random legal move" not in errors, errors


def documented_protocol_version():
    with open(PROTOCOL_DOC) as document:
        match = re.search(r"protocol version \*\*(\d+)\*\*", document.read())
    assert match, "docs/PROTOCOL.md states no protocol version"
    return int(match.group(1))


async def test_a_fresh_venv_installs_the_sdk_at_the_servers_version(binary):
    install = await asyncio.to_thread(installed)
    server_version = subprocess.run([binary, "--version"], capture_output=True, text=True,
                                    check=True).stdout.split()[1]
    expected = f"tessera-bot {server_version} (protocol {documented_protocol_version()})"
    assert install.run(install.command, "--version").strip() == expected
    where = install.run(install.python, "-c",
                        "import tessera_bot; print(tessera_bot.__file__)").strip()
    assert where.startswith(install.venv + os.sep), where  # the install, not the checkout


async def test_an_example_bot_and_the_command_play_from_the_install_alone(binary):
    """The example is copied out of the checkout, so only the install can
    give it tessera_bot; the command is the one pip put in the venv, alone
    and seating a GTP engine (the GTP bridge's test engine)."""
    install = await asyncio.to_thread(installed)
    bots = tempfile.mkdtemp(prefix="bots-", dir=install.folder)
    example = shutil.copy(os.path.join(SDK, "examples", "greedy_blokus.py"), bots)
    async with TesseraServer(binary) as server:
        done = subprocess.run([binary, "bot", "add", "installed-bot", "--db", server.db_path],
                              check=True, capture_output=True, text=True)
        key = re.search(r"^key ([0-9a-f]{48})$", done.stdout, re.MULTILINE).group(1)
        assert_one_finished_game(*await play(
            install.python, example, "--url", server.ws_url(), "--practice",
            "blokus:duo:random", key=key), 2)
        assert_one_finished_game(*await play(
            install.command, "--url", server.ws_url(), "--practice", "blokus:4p:random",
            "--name", "installed-guest"), 4)
        pieces = os.path.join(bots, "pieces.json")
        with open(pieces, "w") as out:
            subprocess.run([binary, "pieces"], stdout=out, check=True)
        engine = (f"/usr/bin/python3 {GTP_ENGINE} --pieces {pieces} "
                  f"--log {os.path.join(bots, 'engine.log')}")
        assert_one_finished_game(*await play(
            install.command, "--url", server.ws_url(), "--gtp", engine, "--practice",
            "blokus:duo:greedy", "--name", "installed-engine"), 2)
        await server.wait_for_log(r"player \d+ \(installed-bot\) signed in")


if __name__ == "__main__":
    installed()  # outside the tests' time limit: pip on a loaded machine takes its time
    run_tests(globals())
