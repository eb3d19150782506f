/* store_read_scan.c -- a page read from candidate rows in growing chunks.
 *
 * A list whose index does not answer every filter (store_read.h) examines
 * at most STORE_READ_SCAN candidate rows for a page. Asking for all of them
 * at once would cost the whole cap whenever the database hands rows over
 * only once the statement has run (PostgreSQL sends the full result), even
 * when the first rows fill the page. So the candidates are asked for in
 * chunks: the page's size first (enough when every candidate matches), then
 * four times more each time the page is still not full, each chunk
 * continuing after the last row examined -- a handful of statements at
 * most, and the same rows, in the same order, as one read of the cap. */
#include "storage/store_internal.h"

int store_scan_run(store_scan *scan, int page_limit, bool *has_next)
{
    int64_t chunk = page_limit;
    bool is_full = false, is_exhausted = false;
    scan->examined = 0;
    while (!is_full && !is_exhausted && scan->examined < STORE_READ_SCAN) {
        int64_t asked =
            chunk < STORE_READ_SCAN - scan->examined ? chunk : STORE_READ_SCAN - scan->examined;
        int64_t got = 0;
        int bound = STORE_OK, rc = STORE_OK;
        scan->bind(scan, asked, &bound);
        while (!is_full && (rc = store_step_row(scan->stmt, bound)) == STORE_OK) {
            got++;
            scan->examined++;
            is_full = scan->take(scan);
        }
        store_statement_reset(scan->stmt);
        if (!is_full && rc != STORE_E_NOT_FOUND)
            return rc;
        is_exhausted = got < asked;
        chunk *= 4;
    }
    *has_next = is_full || scan->examined == STORE_READ_SCAN;
    return STORE_OK;
}
