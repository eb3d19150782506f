// harness.mjs -- what every browser test stands on: a real `tessera serve`
// on a free port with a fresh database, Debian's Chromium driven by
// playwright-core with a fresh profile per browser, a record of every
// console error and Content-Security-Policy violation (a test ends by
// asserting there was none), screenshots saved as artifacts, and
// closeLeftBrowsers for each test file's after hook.
//
// Environment (set by ctest, see tests/CMakeLists.txt):
//   TESSERA_BIN            the tessera binary to start
//   TESSERA_WEB_ARTIFACTS  where screenshots go (default tests/web/artifacts)
//   TESSERA_CHROMIUM       the browser (default /usr/bin/chromium)
// The server always serves the web/ folder of this checkout (--web-dir), so
// the tests try the client files next to them whatever binary runs them.
//
// Nothing here sleeps to synchronize: every wait is for a line, an element
// or a process exit, bounded by a timeout.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const HERE = dirname(fileURLToPath(import.meta.url));
const ARTIFACTS = process.env.TESSERA_WEB_ARTIFACTS || join(HERE, "artifacts");
const CHROMIUM = process.env.TESSERA_CHROMIUM || "/usr/bin/chromium";
const WEB_DIR = join(HERE, "..", "..", "web");
const LISTENING = /^listening on http:\/\/\[?([^\]]+)\]?:(\d+)$/;
const START_TIMEOUT_MS = 10000;
const STOP_TIMEOUT_MS = 5000;
const openBrowsers = new Set(); /* the browsers not closed yet */

/* The flags the issue fixes for a headless, quiet, network-free Chromium;
 * the fresh --user-data-dir is the profile folder of launchPersistentContext. */
const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/* A `tessera serve` process with its own database folder. `flags` are extra
 * command-line options (e.g. ["--bot-think-ms", "50"]). */
export async function startServer(flags = []) {
  const binary = process.env.TESSERA_BIN;
  assert.ok(binary, "TESSERA_BIN names the tessera binary");
  const folder = mkdtempSync(join(tmpdir(), "tessera-web-"));
  const dbPath = join(folder, "t.db");
  const child = spawn(binary, ["serve", "--port", "0", "--db", dbPath, "--web-dir", WEB_DIR, ...flags], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log = [];
  createInterface({ input: child.stderr }).on("line", (line) => log.push(line));
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const firstLine = await Promise.race([
    new Promise((resolve) => createInterface({ input: child.stdout }).once("line", resolve)),
    exited.then(() => null),
    timeout(START_TIMEOUT_MS, "the server did not print its listening line"),
  ]);
  const match = firstLine && firstLine.match(LISTENING);
  if (!match) {
    child.kill("SIGKILL");
    throw new Error(`no listening line (got ${JSON.stringify(firstLine)}); log:\n${log.join("\n")}`);
  }
  const port = Number(match[2]);
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    dbPath,
    log,
    /* SIGTERM, and the exit status must be 0 within 5 s. */
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const status = await Promise.race([exited, timeout(STOP_TIMEOUT_MS, "the server did not stop")]);
      rmSync(folder, { recursive: true, force: true });
      assert.equal(status.code, 0, `server exit status; log:\n${log.join("\n")}`);
    },
  };
}

function timeout(ms, what) {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms).unref());
}

/* One browser: Chromium with a fresh profile folder, so two browsers share
 * no localStorage (two players) and a reload keeps its own. Every console
 * error and uncaught page error of its pages lands in `errors`. */
export async function openBrowser(name = "browser", { viewport = { width: 1280, height: 900 }, hasTouch = false } = {}) {
  const profile = mkdtempSync(join(tmpdir(), `tessera-chromium-${name}-`));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport,
    hasTouch,
  });
  const errors = [];
  // Chromium logs a CSP violation as a console error itself; the event makes
  // sure of it whatever the browser's wording, and lets a test await one.
  await context.addInitScript(() => {
    window.cspViolations = 0;
    document.addEventListener("securitypolicyviolation", (event) => {
      window.cspViolations++;
      console.error(`Content Security Policy violation: ${event.violatedDirective} (${event.blockedURI || "inline"})`);
    });
  });
  const watch = (page) => {
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(`${name}: console: ${message.text()}`);
    });
    page.on("pageerror", (error) => errors.push(`${name}: page error: ${error.message}`));
  };
  context.pages().forEach(watch);
  context.on("page", watch);
  const page = context.pages()[0] || (await context.newPage());
  const browser = {
    name,
    context,
    page,
    errors,
    /* Closes the browser and removes its profile. */
    async discard() {
      openBrowsers.delete(browser);
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
    /* Asserts no console error happened, then closes and removes the profile. */
    async close() {
      await browser.discard();
      assert.deepEqual(errors, [], "no console errors");
    },
  };
  openBrowsers.add(browser);
  return browser;
}

/* Closes the browsers a test or hook left open: one that failed before
 * its browser.close(). Every test file has it run once its tests are done
 * (after(closeLeftBrowsers), the runner's own finally), so a failed step
 * never leaves Chromium holding the run open until ctest's timeout. The
 * failure that skipped the close is what gets reported, not the console
 * errors. */
export async function closeLeftBrowsers() {
  await Promise.all([...openBrowsers].map((browser) => browser.discard()));
}

/* Opens the client at `hash` (e.g. "#/leaderboards") and waits until the
 * socket signed in (the header names the player). */
export async function visit(page, server, hash = "#/") {
  await page.goto(`${server.url}/${hash}`);
  await page.locator("#who").filter({ hasText: "Signed in as" }).waitFor();
}

/* Saves a full-page screenshot as an artifact: ARTIFACTS/<name>.png. */
export async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
