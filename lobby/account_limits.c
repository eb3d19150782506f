/* account_limits.c -- failed sign-ins and sign-ups counted
 * (account_limits.h). */
#include "lobby/account_limits.h"

/* Names, and addresses, whose counts are remembered. */
#define KEYS_MAX 65536

int account_limits_init(account_limits *limits, const account_limits_config *config)
{
    *limits = (account_limits){0};
    if (rate_limit_new(config->failures_per_name / 60.0, config->failures_per_name, KEYS_MAX,
                       &limits->name_failures) != 0 ||
        rate_limit_new(config->failures_per_address / 60.0, config->failures_per_address, KEYS_MAX,
                       &limits->address_failures) != 0 ||
        rate_limit_new(config->registrations_per_address / 3600.0,
                       config->registrations_per_address, KEYS_MAX,
                       &limits->address_registrations) != 0) {
        account_limits_free(limits);
        return -1;
    }
    return 0;
}

void account_limits_free(account_limits *limits)
{
    rate_limit_free(limits->name_failures);
    rate_limit_free(limits->address_failures);
    rate_limit_free(limits->address_registrations);
    *limits = (account_limits){0};
}

/* The longer of the name's and the address's waits for another failure. */
static int failures_wait(account_limits *limits, const account_limits_event *event)
{
    uint64_t now = (uint64_t)event->now_ms;
    int by_name = rate_limit_wait(limits->name_failures, rate_limit_text_key(event->name_key), now);
    int by_address =
        rate_limit_wait(limits->address_failures, rate_limit_address_key(event->address), now);
    return by_name > by_address ? by_name : by_address;
}

int account_limits_apply(account_limits *limits, const account_limits_event *event)
{
    uint64_t now = (uint64_t)event->now_ms, address = rate_limit_address_key(event->address);
    switch (event->kind) {
    case ACCOUNT_LIMITS_SIGN_IN:
        return failures_wait(limits, event);
    case ACCOUNT_LIMITS_FAILED:
        rate_limit_take(limits->name_failures, rate_limit_text_key(event->name_key), now);
        rate_limit_take(limits->address_failures, address, now);
        return 0;
    case ACCOUNT_LIMITS_REGISTER:
        return rate_limit_wait(limits->address_registrations, address, now);
    case ACCOUNT_LIMITS_REGISTERED:
        rate_limit_take(limits->address_registrations, address, now);
        return 0;
    }
    return 0;
}
