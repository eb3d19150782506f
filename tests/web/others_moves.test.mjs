// others_moves.test.mjs -- the moves of the other seats can be followed
// (issue 20): three greedy bots answer within milliseconds, yet the page
// shows their moves one after another, each at least 300 ms after the move
// before it (the server is not slowed: the page waits), with every colour's
// last move outlined, and every other colour's pieces left shown; and the
// tab's title says "Your turn" exactly while it is.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeLeftBrowsers, openBrowser } from "./harness.mjs";
import { blokusSuite, createRoomWithBots, firstLegal, playMove, readPosition } from "./blokus_play.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const suite = blokusSuite();
const SPACING_MS = 300;

test("other seats' moves are spaced in the view, each colour's last move and pieces left are shown, the title cues the turn", async () => {
  const browser = await openBrowser("player");
  const { page } = browser;
  await createRoomWithBots(page, suite.server, "4p", 3);
  await page.getByRole("button", { name: "Start" }).click();
  await page.locator(".blokus-view[data-ply]").waitFor();
  /* Every ply the view shows, when, and whether the title and the turn line agreed. */
  await page.evaluate(() => {
    const view = document.querySelector(".blokus-view");
    window.plies = [];
    const note = () => window.plies.push({
      ply: Number(view.dataset.ply), at: performance.now(),
      mine: Boolean(document.querySelector(".turn.mine")), title: document.title,
    });
    note();
    new MutationObserver(note).observe(view, { attributes: true, attributeFilter: ["data-ply"] });
  });
  const mine = new Set();
  for (let turn = 0; turn < 3; turn++) {
    await page.locator(".turn.mine").waitFor();
    const position = await readPosition(page);
    if (turn === 1) { /* a whole round later: four colours' last moves outlined */
      const marked = await page.evaluate(() => {
        const rows = document.querySelector(".blokus-view").dataset.board.split("/");
        return [...new Set([...document.querySelectorAll("svg.board g.cell")]
          .filter((cell) => cell.querySelector("rect.last"))
          .map((cell) => rows[cell.dataset.row][cell.dataset.col]))].sort();
      });
      assert.deepEqual(marked, ["0", "1", "2", "3"]);
      assert.equal(await page.locator("svg.board rect.last:not(.earlier)").count(), await page.locator("svg.board rect.last").count() - await page.locator("svg.board rect.earlier").count());
      /* The other colours' pieces left: the squares not on the board yet. */
      const left = await page.locator(".pieces-left li").evaluateAll((items) => items.map((item) => [item.dataset.color, Number(item.dataset.squares), item.querySelectorAll("svg").length]));
      assert.deepEqual(left.map(([color]) => color), ["yellow", "red", "green"]);
      for (const [color, squares, shapes] of left) {
        const digit = String(["blue", "yellow", "red", "green"].indexOf(color));
        const placed = position.board.join("").split(digit).length - 1;
        assert.equal(squares, 89 - placed, `${color}'s squares left`);
        assert.equal(shapes, 20, `${color} placed one piece`);
      }
    }
    mine.add(position.ply + 1);
    await playMove(page, firstLegal(suite.pieces, position));
  }
  await page.locator(".turn.mine").waitFor();
  const plies = await page.evaluate(() => window.plies);
  const shown = plies.filter((entry, i) => i === 0 || entry.ply !== plies[i - 1].ply);
  let spaced = 0;
  for (let i = 1; i < shown.length; i++) {
    if (mine.has(shown[i].ply)) continue; /* our own move shows at once */
    const gap = shown[i].at - shown[i - 1].at;
    assert.ok(gap >= SPACING_MS - 1, `ply ${shown[i].ply} shown ${gap.toFixed(0)} ms after ply ${shown[i - 1].ply}`);
    spaced++;
  }
  assert.ok(spaced >= 9, `${spaced} bot moves seen`);
  for (const entry of plies) {
    assert.equal(entry.title.startsWith("Your turn · "), entry.mine, `ply ${entry.ply}: title "${entry.title}"`);
  }
  assert.match(await page.title(), /^Your turn · Blokus 4p · room [0-9a-z]{8} — tessera$/);
  await browser.close();
});
