"""test_deploy.py -- deploy/ is tried, not just shipped.

- The example config starts a real server (only the address, port,
  database and web folder overridden).
- The systemd unit passes `systemd-analyze verify` (with ExecStart pointing
  at the binary under test) and keeps its hardening.
- The unit passes only --config: the server it starts (its command line,
  its environment, the credential it hands over, all moved to a temporary
  folder) and `tessera bot add` / `tessera backup` given the same config
  use one database, and the admin key reaches the server as a credential.
- The nginx example runs for real: nginx on free ports with a fresh
  self-signed certificate in front of a real server; the page, a module, the
  API, a websocket game message and the request id all come through TLS,
  and /metrics is refused from outside the monitoring network.
- scripts/start.sh gives options without a command to `serve` (run in a
  copy of the tree whose installer, cmake and binary only report what they
  were asked).
- The Dockerfile is built and run when docker is usable here; otherwise it
  is checked: two Debian 12 stages, every COPY source exists, every folder
  the build adds is copied, the runtime stage's packages provide every
  shared library the binary needs, and its CMD is a command line the server
  accepts.
"""

import asyncio
import json
import os
import re
import shutil
import socket
import sqlite3
import ssl
import sys
import tempfile
from contextlib import closing

import websockets

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import (TesseraServer, assert_security_headers, http_request,  # noqa: E402
                            run_tests)

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEPLOY = os.path.join(ROOT, "deploy")
WEB = os.path.join(ROOT, "web")


def read(name):
    with open(os.path.join(DEPLOY, name)) as file:
        return file.read()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def run(*command, timeout=60, cwd=None):
    process = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=cwd)
    out, err = await asyncio.wait_for(process.communicate(), timeout)
    return process.returncode, out.decode(), err.decode()


async def test_the_example_config_starts_a_server(binary):
    config = os.path.join(DEPLOY, "tessera.conf.example")
    async with TesseraServer(binary, "--config", config, "--web-dir", WEB) as server:
        status, _, body = await server.http("GET", "/healthz")
        assert status == 200 and json.loads(body)["status"] == "ok"
        assert any('"level":"info"' in line for line in server.log), server.log  # json logs
        async with server.connect(origin="https://play.example.org") as client:
            await client.send(json.dumps({"type": "ping"}))
            assert json.loads(await client.recv())["type"] == "pong"


async def test_the_systemd_units_verify_and_stay_hardened(binary):
    """tessera.service and the several-instances template tessera@.service:
    each verifies, each is hardened, and the template's settings are the
    plain unit's but for the lines that name the instance."""
    folder = tempfile.TemporaryDirectory(prefix="tessera-unit-")
    for name in ("tessera.service", "tessera@.service"):
        unit = read(name)
        for line in ("DynamicUser=yes", "StateDirectory=tessera", "ProtectSystem=strict",
                     "NoNewPrivileges=yes", "Restart=on-failure", "KillSignal=SIGTERM",
                     "PrivateTmp=yes", "ProtectHome=yes"):
            assert re.search(rf"^{re.escape(line)}(/%i)?$", unit, re.M), (name, line)
        path = os.path.join(folder.name, name)
        with open(path, "w") as file:
            file.write(unit.replace("/usr/local/bin/tessera", os.path.abspath(binary)))
        status, out, err = await run("systemd-analyze", "verify",
                                     path.replace("@.service", "@a.service")
                                     if "@" in name else path)
        assert status == 0 and not err.strip(), (name, out, err)

    naming = ("Description=", "ExecStart=", "StateDirectory=", "WorkingDirectory=")

    def settings(unit):
        return [line for line in unit.splitlines()
                if line and not line.startswith("#") and not line.startswith(naming)]

    assert settings(read("tessera.service")) == settings(read("tessera@.service"))
    assert unit_lines(read("tessera@.service"), "ExecStart") == [
        "/usr/local/bin/tessera serve --config /etc/tessera/%i.conf"]
    folder.cleanup()


def unit_lines(unit, key):
    """The values of `key=` lines of the unit, in order."""
    return re.findall(rf"^{re.escape(key)}=(.*)$", unit, re.M)


async def test_the_unit_and_the_commands_share_one_database(binary):
    unit = read("tessera.service")
    command = unit_lines(unit, "ExecStart")[0].split()
    assert command == ["/usr/local/bin/tessera", "serve", "--config", "/etc/tessera/tessera.conf"]
    folder = tempfile.TemporaryDirectory(prefix="tessera-unit-")
    state, credentials = (os.path.join(folder.name, name) for name in ("state", "credentials"))
    os.makedirs(state)
    os.makedirs(credentials, mode=0o700)
    config = os.path.join(folder.name, "tessera.conf")
    with open(config, "w") as file:  # world-readable, as shipped
        file.write(read("tessera.conf.example").replace("/var/lib/tessera", state)
                   .replace("port = 8080", "port = 0")
                   .replace("/usr/local/share/tessera/web", WEB))
    # LoadCredential= copies the root-only key into the credentials folder (%d).
    admin_key = "k" * 32
    [credential] = unit_lines(unit, "LoadCredential")
    name, _, _ = credential.partition(":")
    with open(os.open(os.path.join(credentials, name), os.O_WRONLY | os.O_CREAT, 0o400), "w") as key:
        key.write(admin_key + "\n")
    environment = dict(os.environ)
    for line in unit_lines(unit, "Environment"):
        variable, _, value = line.partition("=")
        environment[variable] = value.replace("%d", credentials)
    elsewhere = os.path.join(folder.name, "elsewhere")  # not the unit's WorkingDirectory
    os.makedirs(elsewhere)

    status, out, err = await run(os.path.abspath(binary), "bot", "add", "unit-bot", "--config",
                                 config, cwd=elsewhere)
    assert status == 0, (out, err)
    bot_key = re.search(r"^key (\S+)$", out, re.M).group(1)

    server = await asyncio.create_subprocess_exec(
        os.path.abspath(binary), *command[1:-1], config, cwd=state, env=environment,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        line = (await asyncio.wait_for(server.stdout.readline(), 10)).decode()
        port = int(re.match(r"listening on http://127.0.0.1:(\d+)", line).group(1))
        async with websockets.connect(f"ws://127.0.0.1:{port}/ws", open_timeout=5) as client:
            await client.send(json.dumps({"type": "hello", "name": "unit-bot", "bot": True,
                                          "key": bot_key}))
            welcome = json.loads(await asyncio.wait_for(client.recv(), 5))
            assert welcome["type"] == "welcome", welcome  # the bot `tessera bot` stored
        status, _, body = await http_request(port, "POST", "/api/bots", b'{"name":"admin-bot"}',
                                             headers={"Authorization": f"Bearer {admin_key}"})
        assert status == 201, body  # the key came through the credential
    finally:
        server.terminate()
        _, log = await server.communicate()
    assert server.returncode == 0, log

    status, out, err = await run(os.path.abspath(binary), "backup",
                                 os.path.join(folder.name, "copy.db"), "--config", config,
                                 cwd=elsewhere)
    assert status == 0 and f"backed up {state}/tessera.db" in out, (out, err)
    with closing(sqlite3.connect(os.path.join(folder.name, "copy.db"))) as copy:
        names = {row[0] for row in copy.execute("SELECT name FROM players")}
    assert {"unit-bot", "admin-bot"} <= names, names
    assert not os.path.exists(os.path.join(elsewhere, "data")), "a second database appeared"
    folder.cleanup()


def stub(path, body):
    """An executable shell script at `path`."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as file:
        file.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, 0o755)


async def test_start_sh_gives_options_without_a_command_to_serve(binary):
    folder = tempfile.TemporaryDirectory(prefix="tessera-start-")
    tree = folder.name
    os.makedirs(os.path.join(tree, "scripts"))
    shutil.copy(os.path.join(ROOT, "scripts", "start.sh"), os.path.join(tree, "scripts"))
    stub(os.path.join(tree, "deploy", "install-deps.sh"), "exit 0")
    stub(os.path.join(tree, "bin", "cmake"), "exit 0")
    stub(os.path.join(tree, "build-release", "tessera"), 'printf "%s\\n" "$@"')
    environment = dict(os.environ, PATH=os.path.join(tree, "bin") + ":" + os.environ["PATH"])
    for given, run_as in (([], ["serve"]),
                          (["--port", "9000"], ["serve", "--port", "9000"]),
                          (["--help"], ["serve", "--help"]),
                          (["serve", "--port", "9000"], ["serve", "--port", "9000"]),
                          (["perft", "--depth", "2"], ["perft", "--depth", "2"]),
                          (["--version"], ["--version"])):
        process = await asyncio.create_subprocess_exec(
            os.path.join(tree, "scripts", "start.sh"), *given, env=environment,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(process.communicate(), 10)
        assert process.returncode == 0, (given, err)
        assert out.decode().splitlines() == run_as, (given, out, err)
    folder.cleanup()


def nginx_site(https_port, http_port, upstreams, example="nginx.conf.example"):
    """An example site (and the snippet it includes, nginx-common.conf),
    moved to free ports -- `upstreams` maps each port the example names to
    a running server's -- this checkout's web folder and a test
    certificate; IPv6 listeners dropped (the machine may have none): the
    texts of site.conf and common.conf."""
    site = read(example)
    for example_port, port in upstreams.items():
        site = site.replace(f"server 127.0.0.1:{example_port}", f"server 127.0.0.1:{port}")
    site = site.replace("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;")
    site = site.replace("listen 80;", f"listen 127.0.0.1:{http_port};")
    site = re.sub(r"^\s*listen \[::\].*\n", "", site, flags=re.M)
    site = site.replace("/etc/nginx/snippets/tessera-common.conf", "common.conf")
    common = read("nginx-common.conf").replace("/usr/local/share/tessera/web", WEB)
    common = common.replace("/etc/letsencrypt/live/play.example.org/", "")
    return site, common


async def start_nginx(folder, site):
    """Starts nginx in `folder` on nginx_site's texts (a fresh self-signed
    certificate beside them)."""
    status, _, err = await run(
        "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        "-subj", "/CN=play.example.org", "-addext",
        "subjectAltName=DNS:play.example.org,IP:127.0.0.1",  # so a client can verify it
        "-keyout", os.path.join(folder, "privkey.pem"),
        "-out", os.path.join(folder, "fullchain.pem"))
    assert status == 0, err
    for name, text in zip(("site.conf", "common.conf"), site):
        with open(os.path.join(folder, name), "w") as file:
            file.write(text)
    # Started as root, nginx runs its workers as nobody, who cannot read a
    # checkout in root's home (a fresh machine's first clone): they run as
    # root then. Started as anyone else, they run as that user anyway.
    workers = "user root;\n" if os.geteuid() == 0 else ""
    with open(os.path.join(folder, "nginx.conf"), "w") as file:
        file.write(f"{workers}pid {folder}/nginx.pid;\nerror_log {folder}/error.log;\n"
                   "events {}\n"
                   f"http {{\n  access_log {folder}/access.log;\n"
                   f"  client_body_temp_path {folder};\n  proxy_temp_path {folder};\n"
                   f"  fastcgi_temp_path {folder};\n  uwsgi_temp_path {folder};\n"
                   f"  scgi_temp_path {folder};\n"
                   "  include /etc/nginx/mime.types;\n  include site.conf;\n}\n")
    status, out, err = await run("nginx", "-t", "-p", folder, "-c", "nginx.conf")
    assert status == 0, (out, err)
    return await asyncio.create_subprocess_exec(
        "nginx", "-p", folder, "-c", "nginx.conf", "-g", "daemon off;",
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)


async def https_get(port, path):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    for _ in range(50):  # nginx is listening once a connection is accepted
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context)
            break
        except ConnectionRefusedError:
            await asyncio.sleep(0.1)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: play.example.org\r\nConnection: close\r\n\r\n"
                 .encode())
    data = await asyncio.wait_for(reader.read(), 5)
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = {}  # a repeated header reads as its values joined, as HTTP allows
    for name, _, value in (line.partition(":") for line in lines[1:]):
        name = name.strip().lower()
        headers[name] = f"{headers[name]}, {value.strip()}" if name in headers else value.strip()
    return int(lines[0].split()[1]), headers, body



async def test_the_nginx_example_serves_the_client_the_api_and_websockets(binary):
    folder = tempfile.TemporaryDirectory(prefix="tessera-nginx-")
    async with TesseraServer(binary, "--trusted-proxies", "127.0.0.1") as server:
        https_port, http_port = free_port(), free_port()
        nginx = await start_nginx(folder.name,
                                  nginx_site(https_port, http_port, {8080: server.port}))
        try:
            status, headers, body = await https_get(https_port, "/")
            assert status == 200 and b"<main id=\"page\">" in body, (status, body[:200])
            assert headers["strict-transport-security"].startswith("max-age="), headers
            assert headers["cache-control"] == "no-cache", headers
            status, headers, _ = await https_get(https_port, "/web/app.js")
            assert status == 200 and "javascript" in headers["content-type"], headers
            assert headers["cache-control"] == "no-cache", headers
            status, headers, body = await https_get(https_port, "/api/games?limit=1")
            assert status == 200 and json.loads(body)["items"] == [], body
            assert re.fullmatch(r"[0-9a-f]{8}-\d+", headers["x-request-id"]), headers
            assert_security_headers(headers, "/api/games")
            for path in ("/", "/web/app.js", "/healthz", "/nope"):
                _, headers, _ = await https_get(https_port, path)
                assert_security_headers(headers, path)
            status, _, _ = await https_get(https_port, "/metrics")
            assert status == 403
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            async with websockets.connect(f"wss://127.0.0.1:{https_port}/ws", ssl=context,
                                          open_timeout=5) as client:
                await client.send(json.dumps({"type": "hello", "name": "through-nginx"}))
                welcome = json.loads(await asyncio.wait_for(client.recv(), 5))
                assert welcome["type"] == "welcome", welcome
        finally:
            nginx.terminate()
            _, err = await nginx.communicate()
        assert nginx.returncode == 0, err
    folder.cleanup()


def dockerfile_stages(text):
    stages, current = [], None
    for line in text.splitlines():
        if line.startswith("FROM "):
            current = {"from": line.split()[1], "lines": []}
            stages.append(current)
        elif current is not None:
            current["lines"].append(line)
    return stages


def apt_packages(stage):
    command = " ".join(line.rstrip("\\").strip() for line in stage["lines"])
    match = re.search(r"apt-get install -y --no-install-recommends ([^&]+)", command)
    return match.group(1).split()


async def package_closure(packages):
    """The packages and everything they depend on."""
    status, out, err = await run("apt-cache", "depends", "--recurse", "--no-recommends",
                                 "--no-suggests", "--no-conflicts", "--no-breaks",
                                 "--no-replaces", "--no-enhances", *packages)
    assert status == 0, err
    return {line.strip() for line in out.splitlines() if not line.startswith(" ")}


async def check_dockerfile_without_docker(binary, text):
    stages = dockerfile_stages(text)
    assert [stage["from"].split(":")[0] for stage in stages] == ["debian", "debian"], stages
    assert all(stage["from"].startswith("debian:12") for stage in stages), stages
    copied = set()
    for line in stages[0]["lines"]:
        if line.startswith("COPY "):
            for source in line.split()[1:-1]:
                assert os.path.exists(os.path.join(ROOT, source)), source
                copied.add(source)
    # The image is built without the tests: every other folder the root
    # CMakeLists.txt adds must be copied in (a new layer's folder too).
    with open(os.path.join(ROOT, "CMakeLists.txt")) as file:
        folders = set(re.findall(r"^\s*add_subdirectory\((\w+)\)", file.read(), re.M))
    assert folders - {"tests"} <= copied, sorted(folders - {"tests"} - copied)
    provided = await package_closure(apt_packages(stages[1]))
    # The libraries the binary names itself (their own needs come with
    # their packages), where the loader finds them; a sanitizer build of the
    # test suite also names the sanitizers' runtimes, which the image's
    # Release build does not.
    status, out, _ = await run("readelf", "-d", binary)
    assert status == 0
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[(\S+)\]", out))
    status, out, _ = await run("ldd", binary)
    assert status == 0
    found = dict(re.findall(r"^\s*(\S+) => (/\S+)", out, re.M))
    for name in sorted(needed):
        if re.match(r"lib(asan|ubsan)\.so", name):
            continue
        library = found[name]
        status, owner, _ = await run("dpkg", "-S", os.path.realpath(library))
        if status != 0:  # some libraries are only known by their /lib path
            status, owner, _ = await run("dpkg", "-S", library.replace("/usr/lib/", "/lib/"))
        package = owner.split(":")[0]
        assert package in provided, f"{library} ({package}) is missing from the runtime stage"
    # lws loads its libuv event plugin at start (dlopen: no NEEDED entry);
    # without it the server cannot listen.
    assert "libwebsockets-evlib-uv" in provided, "lws's libuv plugin is not in the runtime stage"
    cmd = json.loads(re.search(r"^CMD (\[.*\])$", text, re.M).group(1))
    folder = tempfile.TemporaryDirectory(prefix="tessera-cmd-")
    args = [folder.name + "/t.db" if arg.startswith("/var/lib/tessera/") else arg for arg in cmd]
    args[args.index("--port") + 1] = "0"
    args[args.index("--bind") + 1] = "127.0.0.1"
    process = await asyncio.create_subprocess_exec(
        binary, *args, "--web-dir", WEB, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    line = await asyncio.wait_for(process.stdout.readline(), 10)
    assert line.startswith(b"listening on http://127.0.0.1:"), line
    process.terminate()
    assert await process.wait() == 0
    folder.cleanup()


async def docker_is_usable():
    if not shutil.which("docker"):
        return False
    status, _, _ = await run("docker", "info", timeout=20)
    return status == 0


async def test_the_dockerfile_builds_an_image_that_serves(binary):
    text = read("Dockerfile")
    if not await docker_is_usable():
        print("docker is not usable here: checking the Dockerfile instead of building it")
        await check_dockerfile_without_docker(binary, text)
        return
    status, out, err = await run("docker", "build", "-f", os.path.join(DEPLOY, "Dockerfile"),
                                 "-t", "tessera-test", ROOT, timeout=1200)
    assert status == 0, err[-2000:]
    port = free_port()
    status, container, err = await run("docker", "run", "-d", "-p", f"127.0.0.1:{port}:8080",
                                       "tessera-test")
    assert status == 0, err
    try:
        for _ in range(100):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                data = await asyncio.wait_for(reader.read(), 5)
                writer.close()
                if data.startswith(b"HTTP/1.1 200"):
                    break
            except (ConnectionError, OSError):
                pass
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the container never answered /healthz")
    finally:
        status, _, err = await run("docker", "stop", container.strip(), timeout=60)
        assert status == 0, err


if __name__ == "__main__":
    run_tests(globals())
