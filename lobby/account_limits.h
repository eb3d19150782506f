/* account_limits.h -- how often sign-ins may fail and accounts be made:
 * the throttling rules of lobby/account.c as a pure machine.
 *
 *     account_limits_apply(limits, event) -> seconds to wait (0: go on)
 *
 * Failed sign-ins are counted per name and per address in token buckets
 * (util/rate_limit.h): past `failures_per_name` or `failures_per_address`
 * a minute, a sign-in is refused for as long as the longer of the two
 * waits. Sign-ups are counted per address: past
 * `registrations_per_address` an hour, one is refused. A sign-in or a
 * sign-up is only asked about (ACCOUNT_LIMITS_SIGN_IN, _REGISTER), which
 * takes nothing; what counts is told afterwards (ACCOUNT_LIMITS_FAILED
 * once a password proved wrong, ACCOUNT_LIMITS_REGISTERED once a sign-up
 * is on its way to be hashed), so a refused request or a taken name costs
 * nothing. Addresses count per /64 for IPv6 (rate_limit_address_key).
 *
 * The time is part of the event: nothing here reads a clock. The state
 * (the buckets) is changed in place, as it stores no records. */
#ifndef TESSERA_ACCOUNT_LIMITS_H
#define TESSERA_ACCOUNT_LIMITS_H

#include <stdint.h>

#include "util/rate_limit.h"

typedef struct account_limits_config {
    int failures_per_name;         /* failed sign-ins a name may have a minute */
    int failures_per_address;      /* failed sign-ins an address may make a minute */
    int registrations_per_address; /* accounts an address may register an hour */
} account_limits_config;

/* The buckets; owned by account_limits_init and _free. */
typedef struct account_limits {
    rate_limit *name_failures, *address_failures, *address_registrations;
} account_limits;

typedef enum account_limits_event_kind {
    ACCOUNT_LIMITS_SIGN_IN,   /* may `address` try a password for `name_key` now? */
    ACCOUNT_LIMITS_FAILED,    /* a password for `name_key` from `address` was wrong */
    ACCOUNT_LIMITS_REGISTER,  /* may `address` sign up now? */
    ACCOUNT_LIMITS_REGISTERED /* `address` signed up (its password is being hashed) */
} account_limits_event_kind;

typedef struct account_limits_event {
    account_limits_event_kind kind;
    int64_t now_ms;
    const char *name_key; /* SIGN_IN, FAILED: the name's key (player_name.h); borrowed */
    const char *address;  /* the client's address, an IP literal; borrowed */
} account_limits_event;

/* Empty buckets for `config` (every limit >= 1): 0, or -1 out of memory
 * (nothing is left to free). */
int account_limits_init(account_limits *limits, const account_limits_config *config);

void account_limits_free(account_limits *limits);

/* Runs `event`: for SIGN_IN and REGISTER the seconds to wait before the
 * request may go on (0: now), for FAILED and REGISTERED 0. */
int account_limits_apply(account_limits *limits, const account_limits_event *event);

#endif
