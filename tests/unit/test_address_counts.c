/* test_address_counts.c -- counting open connections per address.
 *
 * Counts go up and down per address and an address is forgotten at zero;
 * a constant hash puts every address in one chain, so the collision path
 * (first, middle and last of a chain released) is exercised on purpose. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "server/address_counts.h"

static uint64_t same_hash_for_all(const char *address)
{
    (void)address;
    return 42;
}

static uint64_t zero_hash(const char *address)
{
    (void)address;
    return 0; /* id_table's empty mark: must still work */
}

static address_counts *new_counts(address_hash hash)
{
    address_counts *counts;
    assert_int_equal(address_counts_new(hash, &counts), 0);
    return counts;
}

static address_count *acquire(address_counts *counts, const char *address)
{
    address_count *entry;
    assert_int_equal(address_counts_acquire(counts, address, &entry), 0);
    return entry;
}

static void test_connections_from_one_address_add_up(void **state)
{
    (void)state;
    address_counts *counts = new_counts(NULL);
    address_count *first = acquire(counts, "192.0.2.1");
    address_count *second = acquire(counts, "192.0.2.1");
    assert_ptr_equal(first, second);
    assert_int_equal(address_count_value(first), 2);
    assert_string_equal(address_count_address(first), "192.0.2.1");
    acquire(counts, "2001:db8::1");
    assert_int_equal(address_counts_of(counts, "192.0.2.1"), 2);
    assert_int_equal(address_counts_of(counts, "2001:db8::1"), 1);
    assert_int_equal(address_counts_of(counts, "192.0.2.2"), 0);
    assert_int_equal(address_counts_size(counts), 2);
    address_counts_free(counts);
}

static void test_address_is_forgotten_when_its_last_connection_goes(void **state)
{
    (void)state;
    address_counts *counts = new_counts(NULL);
    address_count *entry = acquire(counts, "192.0.2.1");
    acquire(counts, "192.0.2.1");
    address_counts_release(counts, entry);
    assert_int_equal(address_counts_of(counts, "192.0.2.1"), 1);
    address_counts_release(counts, entry);
    assert_int_equal(address_counts_of(counts, "192.0.2.1"), 0);
    assert_int_equal(address_counts_size(counts), 0);
    entry = acquire(counts, "192.0.2.1"); /* counted afresh */
    assert_int_equal(address_count_value(entry), 1);
    address_counts_free(counts);
}

/* Releases the chain member `released` among four colliding addresses
 * and checks the other three keep their counts. */
static void release_one_of_a_chain(int released)
{
    const char *addresses[4] = {"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"};
    address_counts *counts = new_counts(same_hash_for_all);
    address_count *entries[4];
    for (int i = 0; i < 4; i++)
        for (int n = 0; n <= i; n++)
            entries[i] = acquire(counts, addresses[i]);
    for (int n = 0; n <= released; n++)
        address_counts_release(counts, entries[released]);
    for (int i = 0; i < 4; i++)
        assert_int_equal(address_counts_of(counts, addresses[i]), i == released ? 0 : i + 1);
    assert_int_equal(address_counts_size(counts), 3);
    address_counts_free(counts);
}

static void test_colliding_addresses_keep_separate_counts(void **state)
{
    (void)state;
    for (int released = 0; released < 4; released++)
        release_one_of_a_chain(released);
}

static void test_hash_zero_is_usable(void **state)
{
    (void)state;
    address_counts *counts = new_counts(zero_hash);
    address_count *entry = acquire(counts, "::1");
    acquire(counts, "127.0.0.1");
    assert_int_equal(address_counts_of(counts, "::1"), 1);
    address_counts_release(counts, entry);
    assert_int_equal(address_counts_of(counts, "::1"), 0);
    assert_int_equal(address_counts_of(counts, "127.0.0.1"), 1);
    address_counts_free(counts);
}

static void test_over_long_address_is_cut_and_still_released(void **state)
{
    (void)state;
    char long_address[200];
    memset(long_address, 'a', sizeof(long_address) - 1);
    long_address[sizeof(long_address) - 1] = '\0';
    address_counts *counts = new_counts(NULL);
    address_count *entry = acquire(counts, long_address);
    assert_int_equal(strlen(address_count_address(entry)), 63);
    assert_int_equal(address_counts_of(counts, long_address), 1);
    address_counts_release(counts, entry);
    assert_int_equal(address_counts_size(counts), 0);
    address_counts_free(counts);
}

static void test_many_addresses_through_growth(void **state)
{
    (void)state;
    enum { COUNT = 3000 };
    address_counts *counts = new_counts(NULL);
    static address_count *entries[COUNT];
    char address[32];
    for (int i = 0; i < COUNT; i++) {
        snprintf(address, sizeof(address), "10.%d.%d.%d", i >> 16, (i >> 8) & 255, i & 255);
        entries[i] = acquire(counts, address);
    }
    for (int i = 0; i < COUNT; i += 2)
        address_counts_release(counts, entries[i]);
    assert_int_equal(address_counts_size(counts), COUNT / 2);
    for (int i = 0; i < COUNT; i++) {
        snprintf(address, sizeof(address), "10.%d.%d.%d", i >> 16, (i >> 8) & 255, i & 255);
        assert_int_equal(address_counts_of(counts, address), i % 2);
    }
    address_counts_free(counts); /* frees the entries still counted */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_connections_from_one_address_add_up),
        cmocka_unit_test(test_address_is_forgotten_when_its_last_connection_goes),
        cmocka_unit_test(test_colliding_addresses_keep_separate_counts),
        cmocka_unit_test(test_hash_zero_is_usable),
        cmocka_unit_test(test_over_long_address_is_cut_and_still_released),
        cmocka_unit_test(test_many_addresses_through_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
