/* store_read_scan.c -- a page read from candidate rows in chunks.
 *
 * A list whose index does not answer every filter (store_read.h) examines
 * at most STORE_READ_SCAN candidate rows for a page. Asking for all of them
 * at once would cost the whole cap whenever the database hands rows over
 * only once the statement has run (PostgreSQL sends the full result), even
 * when the first rows fill the page. So the candidates are asked for in
 * chunks, each continuing after the last row examined: the page's size
 * first (enough when every candidate matches; four times that when the
 * caller knows some will not, store_read_games); then, once some matched,
 * what the rows still wanted need at the rate seen so far, with a quarter
 * more for luck; while none has, four times more each time. A handful of
 * statements at most, each reading little past the page's end, and the same
 * rows, in the same order, as one read of the cap. */
#include "storage/store_internal.h"

/* The next chunk's size after `examined` candidates of which `kept`
 * matched, `wanted` more being needed: four times the last one while none
 * has matched. */
static int64_t next_chunk(int64_t last, int examined, int kept, int wanted)
{
    if (kept == 0)
        return last * 4;
    int64_t estimate = (int64_t)wanted * examined / kept;
    return estimate + estimate / 4 + 1;
}

int store_scan_run(store_scan *scan, int page_limit, bool *has_next)
{
    int64_t chunk = scan->first_chunk > 0 ? scan->first_chunk : page_limit;
    int kept = 0;
    bool is_exhausted = false;
    scan->examined = 0;
    while (kept < page_limit && !is_exhausted && scan->examined < STORE_READ_SCAN) {
        int64_t asked =
            chunk < STORE_READ_SCAN - scan->examined ? chunk : STORE_READ_SCAN - scan->examined;
        int64_t got = 0;
        int bound = STORE_OK, rc = STORE_OK;
        scan->bind(scan, asked, &bound);
        while (kept < page_limit && (rc = store_step_row(scan->stmt, bound)) == STORE_OK) {
            got++;
            scan->examined++;
            kept += scan->take(scan);
        }
        store_statement_reset(scan->stmt);
        if (kept < page_limit && rc != STORE_E_NOT_FOUND)
            return rc;
        is_exhausted = got < asked;
        chunk = next_chunk(chunk, scan->examined, kept, page_limit - kept);
    }
    *has_next = kept == page_limit || scan->examined == STORE_READ_SCAN;
    return STORE_OK;
}
