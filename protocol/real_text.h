/* real_text.h -- a double as printf's "%.17g" writes it, several times
 * faster: the history API writes thousands of ratings per answer (a busy
 * player's profile: 1,500), and glibc's exact float printing was a third
 * of that answer's server time. Byte for byte the same text as snprintf,
 * which it falls back on outside 1e-15 to 1e17 (and for zero, infinities
 * and NaN). */
#ifndef TESSERA_REAL_TEXT_H
#define TESSERA_REAL_TEXT_H

#define REAL_TEXT_SIZE 32 /* "-1.2345678901234567e-308" and its NUL fit */

/* Writes `value` into out[] (NUL-terminated): its length, or -1. */
int real_text(double value, char out[REAL_TEXT_SIZE]);

#endif
