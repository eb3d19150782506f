// bot_levels.test.mjs -- the room's "Add bot" control names the Blokus bots
// by strength, weakest first, with the Elo of the room's own mode (issue
// 20; docs/BOTS.md section 13): a Duo room shows the Duo ladder's figures,
// a 4p room the 4p ladder's, and a level or mode without a measured figure
// shows none rather than another mode's.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeLeftBrowsers, openBrowser } from "./harness.mjs";
import { blokusSuite, createRoomWithBots } from "./blokus_play.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const suite = blokusSuite();

const SHOWN = {
  duo: [
    ["random", "Beginner (random, Elo 0)"],
    ["greedy", "Intermediate (greedy, Elo 920)"],
    ["mcts", "Strong (search, Elo 1820)"],
    ["mcts-v2", "Strongest (search v2, Elo 2220)"],
  ],
  "4p": [
    ["random", "Beginner (random, Elo 0)"],
    ["greedy", "Intermediate (greedy, Elo 920)"],
    ["mcts", "Strong (search)"], /* measured in 4p only at 100 ms */
    ["mcts-v2", "Strongest (search v2, Elo 1400)"],
  ],
  "2p": [
    ["random", "Beginner (random)"],
    ["greedy", "Intermediate (greedy)"],
    ["mcts", "Strong (search)"],
    ["mcts-v2", "Strongest (search v2)"],
  ],
};

test("Add bot offers the levels by strength with the Elo of the room's mode", async () => {
  const browser = await openBrowser("owner");
  const { page } = browser;
  for (const [mode, shown] of Object.entries(SHOWN)) {
    await createRoomWithBots(page, suite.server, mode, 0);
    const choices = await page.locator("select[name=bot] option").evaluateAll((options) =>
      options.map((option) => [option.value, option.textContent]));
    assert.deepEqual(choices, shown, `the bot levels of a ${mode} room`);
  }
  await browser.close();
});
