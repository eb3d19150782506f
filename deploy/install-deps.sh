#!/bin/sh
# Installs the Debian 12 packages tessera builds, tests and runs with.
# Idempotent and non-interactive: when everything is already present it only
# runs dpkg-query and exits, so the README commands stay fast on a second run.
set -eu

# clang-format: the test suite checks the formatting (code_is_clang_formatted).
# python3-websockets: the integration tests' client (with Debian's python3).
# libpq-dev: the PostgreSQL backend (--db postgresql://...).
PACKAGES="build-essential cmake pkg-config libuv1-dev libwebsockets-dev \
libsqlite3-dev libpq-dev libjansson-dev libcmocka-dev libsodium-dev zlib1g-dev python3-websockets clang-format"

# --tests adds what only the tests need: Pentobi, whose thumbnailer checks
# that an exported .blksgf file opens, and Chromium with a font, which the browser tests
# (tests/web, Playwright) drive headless; Node.js and npm too where the
# machine has none: Debian 12's Node 18 is enough, tests/web pins the last
# playwright-core that runs on it. npm reaches its registry over HTTPS, hence
# ca-certificates (a minimal Debian has none). systemd (systemd-analyze),
# nginx and openssl check deploy/'s unit and nginx example for real
# (tests/integration/test_deploy.py). clang and its runtime libraries
# (libFuzzer, the sanitizers) build the live-server fuzzer's coverage-guided
# pass (tests/fuzz/README.md). python3-venv, python3-setuptools and python3-wheel
# pip-install the Python SDK into a fresh venv without an index
# (tests/integration/test_sdk_install.py); python3-jsonschema checks every
# message and answer of the integration tests against docs/schema/ and
# docs/openapi.json. postgresql-15: the server the storage tests also run on
# (a throw-away cluster per test run, tests/tools/pg_cluster.sh).
if [ "${1:-}" = "--tests" ]; then
    PACKAGES="$PACKAGES pentobi chromium fonts-dejavu-core ca-certificates systemd nginx openssl"
    PACKAGES="$PACKAGES postgresql-15"
    PACKAGES="$PACKAGES python3-venv python3-setuptools python3-wheel python3-jsonschema"
    PACKAGES="$PACKAGES clang libclang-rt-14-dev"
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        PACKAGES="$PACKAGES nodejs npm"
    fi
fi

missing=""
for package in $PACKAGES; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    case "$status" in
        "install ok installed") ;;
        *) missing="$missing $package" ;;
    esac
done

if [ -z "$missing" ]; then
    exit 0
fi

echo "install-deps: installing$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
# DEBIAN_FRONTEND on the command line, not exported: sudo resets the
# environment, and a package that asks a question must not wait for an answer.
$SUDO apt-get update -qq
# shellcheck disable=SC2086 # word splitting of the package list is intended
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
