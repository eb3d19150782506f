// guide.js -- each game's rules and a short guide to a first game, in the
// room (issue 20): open until the player dismisses it with "Got it", which
// is remembered per game in localStorage (tessera.guide.GAME = "dismissed",
// so a Blokus player still meets Reef's guide once); after that the button
// "How to play" opens it again. The rules are the server's
// (docs/PROTOCOL.md sections 5 and 6, docs/REEF_API.md), in plain words.
import { el } from "../dom.js";

const STORAGE_PREFIX = "tessera.guide.";

const BLOKUS_MODES = {
  "4p": "Four players, one colour each, on a 20×20 board; each colour starts from its own corner.",
  "3p": "Three players, one colour each; the fourth colour, green, is shared: the seats play it in turn, and its squares count for nobody.",
  "2p": "Two players with two colours each (blue and red, yellow and green), each from its own corner; a seat's score is both colours'.",
  duo: "Two players on a 14×14 board; the first pieces go on the two dots near the middle.",
};

function blokusGuide(mode) {
  return {
    title: "How to play Blokus",
    rules: [
      "Goal: place as many squares of your 21 pieces as you can.",
      "Your first piece covers your start cell: the dot in your corner of the board.",
      "Every later piece must touch a piece of its own colour corner to corner, and never along a side. Other colours may touch it anywhere.",
      "A colour that cannot place any piece is out of moves; the game ends when no colour can move.",
      "Score: the squares you placed; with official scoring, −1 per square left, +15 for placing all 21 pieces, +5 more if the last one was the single square.",
      BLOKUS_MODES[mode],
    ],
    firstGame: [
      "Pick a piece in your tray (or Tab to it and press Space). R rotates it, F flips it.",
      "On your turn the rings on the board show where a piece may start.",
      "Hold the piece over the board: it shows in your colour where it fits, greyed with the reason where not. Click (or tap twice, or Enter) to place it.",
      "Play the big pieces early and head for the middle: small ones fit the gaps at the end.",
    ],
  };
}

function reefGuide() {
  return {
    title: "How to play Reef Builder",
    rules: [
      "Goal: the highest score on an 8×6 reef before it fills up.",
      "Each piece is two coloured halves. Place it on any two empty neighbouring cells; the next piece is shown beside it.",
      "A bloom: 4 or more cells of one colour joined side by side clear and score 50 per cell − 100 (4 cells: 100), +50 for each group beyond the first.",
      "A streak: placements that bloom one after another multiply the points by 1.5, 2, 2.5, then 3; a placement without a bloom ends the streak.",
      "A skip throws the current piece away for −50 points; you have 3.",
      "The run ends when no piece fits any more, or at the turn cap: 1,000 turns is the standard length. In a race everyone gets the same pieces; the best score wins.",
    ],
    firstGame: [
      "Move over the reef to see where the piece lands; R or the Rotate button turns it; click (or tap twice, or Enter) to place it.",
      "Build groups of 3 of a colour and finish them with the next piece of that colour.",
      "Keep space free: a full reef ends the run. Save skips for pieces that fit nowhere useful.",
    ],
  };
}

const isDismissed = (game) => localStorage.getItem(STORAGE_PREFIX + game) === "dismissed";

/* The guide of `game` (and Blokus `mode`): a panel and its reopen button,
 * one of them shown. Returns the element holding both. */
export function gameGuide(game, mode) {
  const guide = game === "blokus" ? blokusGuide(mode) : reefGuide();
  const dismiss = el("button", { type: "button", class: "primary" }, "Got it");
  const panel = el("section", { class: "panel guide", "aria-label": guide.title },
    el("div", { class: "guide-head" }, el("h2", {}, guide.title), dismiss),
    el("ul", { class: "guide-rules" }, guide.rules.filter(Boolean).map((line) => el("li", {}, line))),
    el("h3", {}, "Your first game"),
    el("ol", { class: "guide-first" }, guide.firstGame.map((line) => el("li", {}, line))));
  const reopen = el("button", { type: "button", class: "guide-open" }, "How to play");
  const show = (isOpen) => {
    panel.hidden = !isOpen;
    reopen.hidden = isOpen;
  };
  dismiss.addEventListener("click", () => {
    localStorage.setItem(STORAGE_PREFIX + game, "dismissed");
    show(false);
    reopen.focus();
  });
  reopen.addEventListener("click", () => {
    show(true);
    dismiss.focus();
  });
  show(!isDismissed(game));
  return el("div", { class: "guide-slot" }, reopen, panel);
}
