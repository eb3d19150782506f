/* open_database.h -- how the commands that read an existing database
 * (`replay`, `query`) open it. */
#ifndef TESSERA_CLI_OPEN_DATABASE_H
#define TESSERA_CLI_OPEN_DATABASE_H

#include <stdbool.h>

#include "storage/store.h"

/* Opens the existing database `path` -- a file that must be there, or a
 * postgresql:// URL -- for `command`, as a reader (no writes) or not: 0
 * and *out, or the command's exit status after saying why on stderr (2:
 * no such file; 1: it cannot be opened), a URL's password hidden. */
int cli_open_existing(const char *command, const char *path, bool is_reader, store **out);

#endif
