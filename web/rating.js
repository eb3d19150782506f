// rating.js -- the one rating number people read (docs/RATINGS.md, "The
// number shown"): the conservative rating mu - 3 sigma that the server
// ranks by, scaled to a familiar range, 1000 + 20 x (mu - 3 sigma),
// rounded. A newcomer (mu 25, sigma 25/3) shows 1000; the scale changes
// no order, so every list ranks as the server does. Every place that
// shows a rating uses these, with the same words on hover.

const BASE = 1000;
const SCALE = 20;

/* The number shown for a conservative rating (the API's `rating`). */
export function displayRating(conservative) {
  return Math.round(BASE + SCALE * conservative);
}

/* The number shown with its change, "1000 → 1062 (+62)". */
export function ratingChange(before, after) {
  const from = displayRating(before);
  const to = displayRating(after);
  return `${from} → ${to} (${to >= from ? "+" : "−"}${Math.abs(to - from)})`;
}

/* What the number means, for a title (hover) and the leaderboards' note. */
export const RATING_HELP = `Rating = ${BASE} + ${SCALE} × (skill − 3 × uncertainty): a player is very probably at least this good. `
  + `A newcomer starts at ${BASE}; the uncertainty shrinks with every rated game.`;

/* The estimate behind a rating, in words: "skill 27.1 ± 3.2". */
export function ratingEstimate(mu, sigma) {
  return `skill ${mu.toFixed(1)} ± ${sigma.toFixed(1)}`;
}
