/* open_database.c -- how the commands that read an existing database open
 * it (open_database.h). */
#include "cli/open_database.h"

#include <stdio.h>
#include <unistd.h>

#include "server/config.h"
#include "storage/store_read.h"

int cli_open_existing(const char *command, const char *path, bool is_reader, store **out)
{
    char shown[SERVER_CONFIG_PATH_SIZE];
    store_path_for_log(path, shown, sizeof(shown));
    if (!store_path_is_postgres(path) && access(path, R_OK) != 0) {
        fprintf(stderr, "%s: no database at %s\n", command, shown);
        return 2;
    }
    char why[STORE_WHY_SIZE];
    int rc =
        is_reader ? store_open_reader_why(path, out, why) : store_open_why(path, false, out, why);
    if (rc != STORE_OK) {
        fprintf(stderr, "%s: cannot open %s: %s%s%s\n", command, shown, store_strerror(rc),
                why[0] ? ": " : "", why);
        return 1;
    }
    return 0;
}
