/* http_static.h -- the browser client's files, served at / and /web/.
 *
 * Every file of the client folder (web/, setting `web-dir`) is read into
 * memory at start-up: a request is a table lookup, never a path handed to
 * the file system (so no "../" can reach outside the folder) and never a
 * disk read on the loop. `GET /` is web/index.html; `GET /web/PATH` is the
 * file PATH. Answers carry the file's content type and
 * `Cache-Control: no-cache` (a browser revalidates, so a new server
 * version is picked up at once). Text files (HTML, JavaScript, CSS, SVG,
 * JSON) are also kept gzipped, made once at start-up, and sent so
 * (`Content-Encoding: gzip`, `Vary: Accept-Encoding`) to a client whose
 * Accept-Encoding allows it. Each file has an ETag (http_etag.h): a
 * request whose If-None-Match names it is answered 304 Not Modified with
 * no body. A folder that is missing leaves the API
 * running: / then answers 404 and the log says why. */
#ifndef TESSERA_HTTP_STATIC_H
#define TESSERA_HTTP_STATIC_H

#include "server/http_routes.h"

struct http_static;

/* Loads the files under `folder` (at most HTTP_STATIC_MAX_FILES, 8 MiB in
 * all): 0 and *out (possibly with no files, see above), or a negative
 * errno (logged): -ENOMEM, -E2BIG past the limits, -EIO for a file that
 * cannot be read. */
int http_static_new(const char *folder, struct http_static **out);

/* Files loaded. */
int http_static_count(const struct http_static *files);

void http_static_free(struct http_static *files);

/* Registers GET / and GET /web/... on `routes`. 0, or http_routes_add's
 * negative errno. */
int http_static_add_routes(http_routes *routes, struct http_static *files);

#endif
