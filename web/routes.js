// routes.js -- the client's routes (app.js mounts the page of the one that
// matches), and, as soon as index.html has it run (beside app.js, before
// any page module is asked for), the start of every download the opened
// page needs for its first picture. It imports nothing, so that it runs as
// soon as it arrives.
//
// Left to the imports, a page's modules arrive one import level at a time
// (each is seen only once its importer is parsed): about ten round trips
// in a row before a room could draw its board on a phone. PRELOADS lists,
// per page, its static imports all the way down with the modules it
// imports later on purpose (a room's game view), asked for at once as
// <link rel="modulepreload">, and the data it fetches first (the Blokus
// pieces) as <link rel="preload" as="fetch"> (the fetch() of the same path
// takes that answer). tests/web/preload.test.mjs fails when a list misses a
// module its page imports, or names one it does not. Pages without a list
// load their modules the plain way.
//
// A room's view depends on its game, unknown until the server answers:
// the Blokus view is preloaded (most rooms), a Reef room loads its own.
// What only a finished game shows (room/summary.js) is not preloaded: the
// room imports it when the game ends.
export const ROOM_ROUTE = /^#\/room\/([0-9a-z]+)$/;

/* [hash pattern, page module in web/pages/] */
export const ROUTES = [
  [/^#?\/?$/, "lobby"],
  [ROOM_ROUTE, "room"],
  [/^#\/replay\/(\d+)$/, "replay"],
  [/^#\/leaderboards$/, "leaderboards"],
  [/^#\/player\/(.+)$/, "player"],
  [/^#\/me$/, "my_games"],
  [/^#\/tournaments$/, "tournament"],
  [/^#\/tournament\/(\d+)$/, "tournament"],
];

/* Per page: the modules (paths under /web/) and the fetches (paths from
 * /) it needs, in the order it needs them. */
export const PRELOADS = {
  lobby: {
    modules: ["pages/lobby.js", "lobby/create_form.js", "lobby/quick_play.js", "lobby/room_list.js",
      "lobby/tournaments.js", "dom.js", "games/catalog.js", "room/membership.js", "games/boards.js"],
    fetches: [],
  },
  room: {
    modules: ["pages/room.js", "games/blokus_view.js", "dom.js", "games/boards.js", "games/catalog.js",
      "room/clocks.js", "room/again.js", "room/guide.js", "room/membership.js", "room/seats.js",
      "room/pacer.js", "room/turn_sound.js", "room/turn.js", "games/blokus_pieces.js",
      "games/blokus_tray.js", "games/blokus_rules.js", "net.js"],
    fetches: ["/api/games/blokus/pieces"],
  },
};

/* The page a location hash opens: {name, params}, or null. */
export function routeOf(hash) {
  for (const [pattern, name] of ROUTES) {
    const match = hash.match(pattern);
    if (match) return { name, params: match.slice(1).map(decodeURIComponent) };
  }
  return null;
}

function preloadLink(attributes) {
  const link = document.createElement("link");
  Object.assign(link, attributes);
  return link;
}

const opened = routeOf(location.hash);
const wanted = opened && PRELOADS[opened.name];
if (wanted) {
  document.head.append(
    ...wanted.modules.map((path) => preloadLink({ rel: "modulepreload", href: `/web/${path}` })),
    ...wanted.fetches.map((path) => preloadLink({ rel: "preload", as: "fetch", crossOrigin: "anonymous", href: path })));
}
