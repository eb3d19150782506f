/* text_list.h -- walking a comma-separated setting ("a, b,,c"), as the
 * allowed-origins and trusted-proxies settings are written. */
#ifndef TESSERA_TEXT_LIST_H
#define TESSERA_TEXT_LIST_H

#include <stddef.h>

/* Copies the next entry of *list, blanks around it trimmed (empty entries
 * are skipped), into `entry` (`size` bytes, NUL-terminated; a longer entry
 * is cut) and moves *list past it. Returns the entry's whole length, which
 * is size or more when it was cut, or -1 at the end of the list. */
int text_list_next(const char **list, char *entry, size_t size);

#endif
