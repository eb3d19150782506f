// screenshots.mjs -- photographs every stop of the tour (tour.mjs) at
// 1280x900, 1366x768 and 390x844, light and dark, into a folder, to look
// at before calling a change of the client done. Not a test: it asserts
// nothing but that the tour can be walked.
//
//   TESSERA_BIN=build/tessera node tests/web/screenshots.mjs /tmp/shots [WIDTHxHEIGHT]
// writes /tmp/shots/<stop>-<width>x<height>-<light|dark>.png (the viewport,
// what a person sees without scrolling, and -full.png for the whole page);
// with WIDTHxHEIGHT (e.g. 390x844), that size only.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fetchPieces } from "./blokus_play.mjs";
import { openBrowser, startServer } from "./harness.mjs";
import { TOUR_SERVER_FLAGS, tour, tourData } from "./tour.mjs";

const folder = process.argv[2];
if (!folder) {
  console.error("usage: node tests/web/screenshots.mjs FOLDER");
  process.exit(2);
}
mkdirSync(folder, { recursive: true });
const SIZES = [[1280, 900], [1366, 768], [390, 844]].filter(([width, height]) => !process.argv[3] || process.argv[3] === `${width}x${height}`);

const server = await startServer(TOUR_SERVER_FLAGS);
try {
  const setup = await openBrowser("setup");
  const data = { ...(await tourData(setup, server)), pieces: await fetchPieces(server) };
  await setup.close();
  for (const [width, height] of SIZES) {
    for (const scheme of ["light", "dark"]) {
      const browser = await openBrowser(`shots-${width}-${scheme}`, { viewport: { width, height } });
      const { page } = browser;
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
      try {
        await tour(page, server, data, async (name) => {
          const base = join(folder, `${name}-${width}x${height}-${scheme}`);
          await page.screenshot({ path: `${base}.png` });
          await page.screenshot({ path: `${base}-full.png`, fullPage: true });
        });
      } finally {
        await browser.close();
      }
      console.log(`${width}x${height} ${scheme}: done`);
    }
  }
} finally {
  await server.stop();
}
