// run.mjs -- the Lighthouse benchmark of the web client (issue 20): a fresh
// `tessera serve`, a room started with three bots (its owner, in a
// Playwright tab, keeps it open), then Lighthouse 12.2.3 (pinned in this
// folder's package.json; the last that npm installs on Debian 12's Node
// 18) on the lobby and on that room as a visitor sees it, each as a phone
// (Lighthouse's default mobile emulation and throttling) and as a desktop.
// It prints the four category scores of each, and the audits that cost
// points. A benchmark, not a test: it always exits 0 once it has measured.
//
//   cd tests/web && npm ci && cd lighthouse && npm ci
//   TESSERA_BIN=build/tessera node tests/web/lighthouse/run.mjs [--runs N] [REPORT_DIR]
// With --runs N each page is measured N times (each form factor's runs one
// after the other) and each score printed is the median, with every run's
// performance beside it: the performance score moves with the machine's
// load (Lighthouse simulates a slow phone from the timings it observes),
// so the load average is printed before and after. With REPORT_DIR, each
// page's median run's whole report is saved there as JSON
// (lobby-mobile.json, ...), to look into what a score lost.
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";
import { openBrowser, startServer } from "../harness.mjs";
import { createRoomWithBots } from "../blokus_play.mjs";

const CHROMIUM = process.env.TESSERA_CHROMIUM || "/usr/bin/chromium";
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"];
const args = process.argv.slice(2);
const runsAt = args.indexOf("--runs");
const RUNS = runsAt < 0 ? 1 : Number(args.splice(runsAt, 2)[1]);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error("--runs takes a whole number of runs, 1 or more");
const REPORT_DIR = args[0];

/* One Lighthouse run: {scores: {category: 0..100}, lost: [audit titles], report}. */
async function measure(url, port, formFactor) {
  const flags = { port, output: "json", logLevel: "error", onlyCategories: CATEGORIES };
  const result = await lighthouse(url, flags, formFactor === "desktop" ? desktopConfig : undefined);
  const { categories, audits } = result.lhr;
  const scores = Object.fromEntries(CATEGORIES.map((name) => [name, Math.round(categories[name].score * 100)]));
  const lost = CATEGORIES.flatMap((name) => categories[name].auditRefs
    .filter((ref) => ref.weight > 0 && audits[ref.id].score !== null && audits[ref.id].score < 1)
    .map((ref) => `${name}: ${audits[ref.id].title}${audits[ref.id].displayValue ? ` (${audits[ref.id].displayValue})` : ""}`));
  return { scores, lost, report: result.report };
}

/* The median of numbers (the lower middle one of an even count). */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

const load = () => loadavg().map((value) => value.toFixed(2)).join(" ");
const server = await startServer();
const owner = await openBrowser("lighthouse-owner");
const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
try {
  const code = await createRoomWithBots(owner.page, server, "4p", 3);
  await owner.page.getByRole("button", { name: "Start" }).click();
  await owner.page.locator(".turn.mine").waitFor();
  console.log(`load average before: ${load()}; ${RUNS} run${RUNS === 1 ? "" : "s"} each`);
  const pages = { lobby: `${server.url}/#/`, room: `${server.url}/#/room/${code}` };
  for (const [name, url] of Object.entries(pages)) {
    for (const formFactor of ["mobile", "desktop"]) {
      const runs = [];
      for (let run = 0; run < RUNS; run++) runs.push(await measure(url, chrome.port, formFactor));
      const performances = runs.map((run) => run.scores.performance);
      const middle = runs.find((run) => run.scores.performance === median(performances));
      const scores = CATEGORIES.map((category) => `${category} ${median(runs.map((run) => run.scores[category]))}`);
      console.log(`${name} ${formFactor}: ${scores.join(", ")}${RUNS > 1 ? ` (performance of each run: ${performances.join(" ")})` : ""}`);
      for (const line of middle.lost) console.log(`  - ${line}`);
      if (REPORT_DIR) {
        mkdirSync(REPORT_DIR, { recursive: true });
        writeFileSync(join(REPORT_DIR, `${name}-${formFactor}.json`), middle.report);
      }
    }
  }
  console.log(`load average after: ${load()}`);
} finally {
  await chrome.kill();
  await owner.close();
  await server.stop();
}
