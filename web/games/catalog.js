// catalog.js -- what the client knows about each game before the server
// says more: its modes, built-in bot kinds, quick-play modes, and which
// Blokus colors each seat plays (docs/PROTOCOL.md sections 3 and 5).
// Shared by the lobby (the create form), the room page and the game views.
import { BLOKUS_COLORS } from "./boards.js";

export const GAMES = {
  blokus: {
    label: "Blokus",
    modes: [["4p", "4 players"], ["3p", "3 players (shared green)"], ["2p", "2 players, two colors each"], ["duo", "Duo (2 players, 14×14)"]],
    /* Named by strength, weakest first, each with its Elo on the ladder of
     * the room's mode at the server's 300 ms a move (docs/BOTS.md section
     * 13). Only Duo and 4p were measured, and "Strong" in 4p only at
     * 100 ms: where there is no figure the label shows none. */
    bots: [
      { kind: "random", name: "Beginner", how: "random", elo: { duo: 0, "4p": 0 } },
      { kind: "greedy", name: "Intermediate", how: "greedy", elo: { duo: 920, "4p": 920 } },
      { kind: "mcts", name: "Strong", how: "search", elo: { duo: 1820 } },
      { kind: "mcts-v2", name: "Strongest", how: "search v2", elo: { duo: 2220, "4p": 1400 } },
    ],
    quickModes: ["4p", "3p", "2p", "duo"],
  },
  "reef-builder": {
    label: "Reef Builder",
    modes: [["solo", "Solo"], ["race", "Race (up to 4)"]],
    /* Named by strength, weakest first, each with its mean final score at
     * turn 1,000 over seeds 1..100 (docs/BOTS.md, "The Reef bots"). */
    bots: [
      { kind: "greedy", name: "Intermediate", how: "greedy", mean: 67400 },
      { kind: "lookahead", name: "Strong", how: "lookahead", mean: 132700 },
      { kind: "planner", name: "Very strong", how: "planner", mean: 136400 },
      { kind: "chainer", name: "Strongest", how: "chainer", mean: 138300 },
    ],
    quickModes: ["race"],
  },
};

/* The built-in bots a room of `game` in `mode` may add, as [kind, label]
 * pairs for options(): "Strongest (search v2, Elo 2220)", "Strongest
 * (chainer, mean 138,300)". */
export function botChoices(game, mode) {
  return GAMES[game].bots.map((bot) => {
    const notes = [
      bot.how,
      bot.elo?.[mode] !== undefined && `Elo ${bot.elo[mode]}`,
      bot.mean !== undefined && `mean ${bot.mean.toLocaleString("en-US")}`,
    ].filter(Boolean);
    return [bot.kind, notes.length ? `${bot.name} (${notes.join(", ")})` : bot.name];
  });
}

export function gameLabel(game) {
  return GAMES[game]?.label || game;
}

/* The Blokus colors (indices) that `seat` plays in `mode`; in 3p the
 * shared color 3 is not listed (its turns rotate, see sharedColorOf). */
export function seatColors(mode, seat) {
  if (mode === "2p") return [seat, seat + 2];
  return [seat];
}

/* 3p's shared color, or null in the other modes. */
export function sharedColor(mode) {
  return mode === "3p" ? 3 : null;
}

export function colorName(color) {
  return BLOKUS_COLORS[color];
}

/* A seat in words: the player's name, or the bot's kind. */
export function seatName(seat) {
  if (seat.kind === "empty") return "empty";
  if (seat.kind === "bot") return `${seat.bot} (bot)`;
  return seat.name;
}
