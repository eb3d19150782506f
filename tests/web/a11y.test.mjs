// a11y.test.mjs -- no serious or critical accessibility violation that
// axe-core finds (WCAG 2 A and AA, and its best practices) on any page or
// state of the client (tour.mjs: the lobby, Blokus and Reef rooms waiting,
// playing and finished, the replay, leaderboards, player, my games and
// tournament pages, the sign-in form), in light and dark, on a desktop
// (1280x900) and a phone (390x844). axe-core is pinned in package.json.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { after, before, test } from "node:test";
import { fetchPieces } from "./blokus_play.mjs";
import { closeLeftBrowsers, openBrowser, startServer } from "./harness.mjs";
import { TOUR_SERVER_FLAGS, tour, tourData } from "./tour.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];
const BLOCKING = ["serious", "critical"];

let server;
let data;
before(async () => {
  server = await startServer(TOUR_SERVER_FLAGS);
  const browser = await openBrowser("setup");
  data = { ...(await tourData(browser, server)), pieces: await fetchPieces(server) };
  await browser.close();
});
after(async () => { await server.stop(); });

/* The serious and critical violations axe finds in the page as it is now,
 * one line each: "stop: rule (impact) at selector: summary". */
async function violations(page, where) {
  await page.evaluate(AXE_SOURCE); /* evaluated by the driver, so the page's CSP does not apply */
  const found = await page.evaluate((tags) => window.axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] })
    .then((result) => result.violations.map(({ id, impact, nodes }) => ({ id, impact, nodes: nodes.map((node) => `${node.target.join(" ")}: ${node.failureSummary.split("\n").slice(1, 2).join("").trim()}`) }))), AXE_TAGS);
  return found.filter((violation) => BLOCKING.includes(violation.impact))
    .flatMap((violation) => violation.nodes.slice(0, 3).map((node) => `${where}: ${violation.id} (${violation.impact}) at ${node}`));
}

const SCREENS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };

for (const [screen, viewport] of Object.entries(SCREENS)) {
  for (const scheme of ["light", "dark"]) {
    test(`no serious or critical axe violation on any page, ${screen}, ${scheme}`, async () => {
      const browser = await openBrowser(`a11y-${screen}-${scheme}`, { viewport });
      const { page } = browser;
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
      const found = [];
      const stops = [];
      await tour(page, server, data, async (name) => {
        stops.push(name);
        found.push(...(await violations(page, name)));
      });
      await browser.close();
      assert.equal(stops.length, 13, "every stop of the tour was checked");
      assert.deepEqual(found, []);
    });
  }
}
