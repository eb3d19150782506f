/* test_config.c -- where `tessera serve` settings come from, and what is refused.
 *
 * Every test loads a configuration the way cmd_serve does, from an argv,
 * an environment array and optionally a file written to a temporary path,
 * and checks the resulting struct or the error message, which must name
 * the source of the bad value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "server/config.h"

#define ERROR_SIZE 512

static char *no_environment[] = {NULL};

/* Loads from `argv` (NULL-terminated, command name first). */
static int load(server_config *config, char **argv, char **environment, char *error)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return server_config_load(config, argc, argv, environment, error, ERROR_SIZE);
}

/* Writes `text` to a new temporary file; its path goes to `path`. */
static void write_file(char *path, const char *text)
{
    strcpy(path, "/tmp/tessera-config-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void test_defaults_apply_without_any_source(void **state)
{
    (void)state;
    server_config config;
    char error[ERROR_SIZE];
    char *argv[] = {"serve", NULL};
    assert_int_equal(load(&config, argv, no_environment, error), SERVER_CONFIG_OK);
    assert_string_equal(config.bind_address, "127.0.0.1");
    assert_int_equal(config.port, 8080);
    assert_string_equal(config.db_path, "./data/tessera.db");
    assert_false(config.db_synchronous_full);
    assert_int_equal(config.log_level, LOG_LEVEL_INFO);
    transport_limits defaults = transport_default_limits();
    assert_int_equal(config.limits.max_message_bytes, defaults.max_message_bytes);
    assert_int_equal(config.limits.messages_per_second, defaults.messages_per_second);
    assert_int_equal(config.limits.message_burst, defaults.message_burst);
    assert_int_equal(config.limits.rate_strikes_to_close, defaults.rate_strikes_to_close);
    assert_int_equal(config.limits.connections_per_ip, defaults.connections_per_ip);
    assert_int_equal(config.limits.send_queue_bytes, defaults.send_queue_bytes);
    assert_int_equal(config.limits.send_queue_max_bytes, defaults.send_queue_max_bytes);
    assert_int_equal(config.limits.ping_interval_s, defaults.ping_interval_s);
    assert_int_equal(config.limits.idle_timeout_s, defaults.idle_timeout_s);
    assert_int_equal(config.limits.handshake_timeout_s, defaults.handshake_timeout_s);
    assert_int_equal(config.limits.http_requests_per_second, 100);
    assert_int_equal(config.limits.http_burst, 200);
    assert_int_equal(config.failures_per_name, 5);
    assert_int_equal(config.failures_per_address, 20);
    assert_int_equal(config.registrations_per_address, 10);
    assert_int_equal(config.max_bots_per_account, 10);
    assert_int_equal(config.guests_per_address, 60);
    assert_int_equal(config.guest_ttl_s, 30 * 86400);
    assert_int_equal(config.db_writers, 2);
    assert_string_equal(config.admin_key, ""); /* no admin routes unless asked */
}

static void test_flags_set_every_key(void **state)
{
    (void)state;
    server_config config;
    char error[ERROR_SIZE];
    char *argv[] = {"serve",       "--bind",
                    "::1",         "--port",
                    "0",           "--db",
                    "/tmp/x/t.db", "--db-sync",
                    "full",        "--log-level",
                    "debug",       "--max-message-bytes",
                    "64k",         "--rate",
                    "5",           "--burst",
                    "7",           "--rate-strikes",
                    "3",           "--connections-per-ip",
                    "2",           "--send-queue-bytes",
                    "2m",          "--send-queue-max-bytes",
                    "4M",          "--send-queue-budget-bytes",
                    "32m",         "--ping-interval",
                    "10",          "--idle-timeout",
                    "25",          "--handshake-timeout",
                    "3",           "--http-rate",
                    "4",           "--http-burst",
                    "6",           NULL};
    assert_int_equal(load(&config, argv, no_environment, error), SERVER_CONFIG_OK);
    assert_string_equal(config.bind_address, "::1");
    assert_int_equal(config.port, 0);
    assert_string_equal(config.db_path, "/tmp/x/t.db");
    assert_true(config.db_synchronous_full);
    assert_int_equal(config.log_level, LOG_LEVEL_DEBUG);
    assert_int_equal(config.limits.max_message_bytes, 64 * 1024);
    assert_int_equal(config.limits.messages_per_second, 5);
    assert_int_equal(config.limits.message_burst, 7);
    assert_int_equal(config.limits.rate_strikes_to_close, 3);
    assert_int_equal(config.limits.connections_per_ip, 2);
    assert_int_equal(config.limits.send_queue_bytes, 2 * 1024 * 1024);
    assert_int_equal(config.limits.send_queue_max_bytes, 4 * 1024 * 1024);
    assert_int_equal(config.limits.send_queue_budget_bytes, 32 * 1024 * 1024);
    assert_int_equal(config.limits.ping_interval_s, 10);
    assert_int_equal(config.limits.idle_timeout_s, 25);
    assert_int_equal(config.limits.handshake_timeout_s, 3);
    assert_int_equal(config.limits.http_requests_per_second, 4);
    assert_int_equal(config.limits.http_burst, 6);
}

static void test_flag_accepts_equals_form_and_last_one_wins(void **state)
{
    (void)state;
    server_config config;
    char error[ERROR_SIZE];
    char *argv[] = {"serve", "--port=9000", "--port", "9001", NULL};
    assert_int_equal(load(&config, argv, no_environment, error), SERVER_CONFIG_OK);
    assert_int_equal(config.port, 9001);
}

static void test_file_then_environment_then_flags(void **state)
{
    (void)state;
    char path[64];
    write_file(path, "# a comment\n\nport = 7000\nrate = 3  # trailing comment\n"
                     "burst=9\nmax_message_bytes = 1k\n");
    char variable[] = "TESSERA_RATE=4", other[] = "OTHER=1", port_variable[] = "TESSERA_PORT=7001";
    char *environment[] = {other, variable, port_variable, NULL};
    char *argv[] = {"serve", "--config", path, "--port", "7002", NULL};
    server_config config;
    char error[ERROR_SIZE];
    assert_int_equal(load(&config, argv, environment, error), SERVER_CONFIG_OK);
    assert_int_equal(config.port, 7002);                    /* flag over variable over file */
    assert_int_equal(config.limits.messages_per_second, 4); /* variable over file */
    assert_int_equal(config.limits.message_burst, 9);       /* file only */
    assert_int_equal(config.limits.max_message_bytes, 1024);
    unlink(path);
}

static void test_config_file_can_come_from_the_environment(void **state)
{
    (void)state;
    char path[64], variable[96];
    write_file(path, "db-sync = full\n");
    snprintf(variable, sizeof(variable), "TESSERA_CONFIG=%s", path);
    char *environment[] = {variable, NULL};
    char *argv[] = {"serve", NULL};
    server_config config;
    char error[ERROR_SIZE];
    assert_int_equal(load(&config, argv, environment, error), SERVER_CONFIG_OK);
    assert_true(config.db_synchronous_full);
    unlink(path);
}

static void test_help_is_reported_before_anything_is_checked(void **state)
{
    (void)state;
    server_config config;
    char error[ERROR_SIZE];
    char *argv[] = {"serve", "--help", "--port", "nonsense", NULL};
    assert_int_equal(load(&config, argv, no_environment, error), SERVER_CONFIG_HELP);
}

/* Loads `argv` expecting a refusal whose message contains `expected`. */
static void expect_refusal(char **argv, char **environment, const char *expected)
{
    server_config config;
    char error[ERROR_SIZE];
    assert_int_equal(load(&config, argv, environment, error), SERVER_CONFIG_E_INVALID);
    if (!strstr(error, expected))
        fail_msg("error '%s' does not contain '%s'", error, expected);
}

static void test_bad_numbers_are_refused_naming_the_flag(void **state)
{
    (void)state;
    char *port_word[] = {"serve", "--port", "http", NULL};
    expect_refusal(port_word, no_environment,
                   "--port: expected an integer from 0 to 65535, got 'http'");
    char *port_range[] = {"serve", "--port", "70000", NULL};
    expect_refusal(port_range, no_environment, "--port");
    char *negative[] = {"serve", "--rate", "-1", NULL};
    expect_refusal(negative, no_environment, "--rate");
    char *suffix_on_count[] = {"serve", "--burst", "4k", NULL};
    expect_refusal(suffix_on_count, no_environment, "--burst");
    char *bad_suffix[] = {"serve", "--max-message-bytes", "4g", NULL};
    expect_refusal(bad_suffix, no_environment, "k and m suffixes allowed");
    char *no_writer[] = {"serve", "--db-writers", "0", NULL};
    expect_refusal(no_writer, no_environment, "--db-writers: expected an integer from 1 to 32");
    char *too_many_writers[] = {"serve", "--db-writers", "33", NULL};
    expect_refusal(too_many_writers, no_environment, "--db-writers");
}

static void test_bad_words_are_refused(void **state)
{
    (void)state;
    char *sync[] = {"serve", "--db-sync", "fast", NULL};
    expect_refusal(sync, no_environment, "--db-sync: expected full or normal, got 'fast'");
    char *level[] = {"serve", "--log-level", "loud", NULL};
    expect_refusal(level, no_environment, "--log-level: expected error, warn, info or debug");
    char *address[] = {"serve", "--bind", "localhost", NULL};
    expect_refusal(address, no_environment, "--bind: expected an IPv4 or IPv6 address");
    char *empty_db[] = {"serve", "--db=", NULL};
    expect_refusal(empty_db, no_environment, "--db: expected a file path");
    char *format[] = {"serve", "--log-format", "xml", NULL};
    expect_refusal(format, no_environment, "--log-format: expected text or json, got 'xml'");
    char *origins[] = {"serve", "--allowed-origins", "https://a.example,evil", NULL};
    expect_refusal(origins, no_environment, "--allowed-origins: 'evil' is not an origin");
}

static void test_bad_variable_is_refused_naming_the_variable(void **state)
{
    (void)state;
    char variable[] = "TESSERA_MAX_MESSAGE_BYTES=lots";
    char *environment[] = {variable, NULL};
    char *argv[] = {"serve", NULL};
    expect_refusal(argv, environment, "TESSERA_MAX_MESSAGE_BYTES: expected a size in bytes");
}

static void test_bad_file_line_is_refused_with_its_line_number(void **state)
{
    (void)state;
    char path[64], expected[128];
    write_file(path, "port = 1\nnot a setting\n");
    char *argv[] = {"serve", "--config", path, NULL};
    snprintf(expected, sizeof(expected), "%s:2: expected 'key = value'", path);
    expect_refusal(argv, no_environment, expected);
    unlink(path);

    write_file(path, "port = 1\n\ncolour = blue\n");
    char *again[] = {"serve", "--config", path, NULL};
    snprintf(expected, sizeof(expected), "%s:3: unknown key 'colour'", path);
    expect_refusal(again, no_environment, expected);
    unlink(path);
}

static void test_missing_config_file_is_refused(void **state)
{
    (void)state;
    char *argv[] = {"serve", "--config", "/nonexistent/tessera.conf", NULL};
    expect_refusal(argv, no_environment, "cannot read '/nonexistent/tessera.conf'");
}

static void test_unknown_flags_and_missing_values_are_refused(void **state)
{
    (void)state;
    char *unknown[] = {"serve", "--colour", "blue", NULL};
    expect_refusal(unknown, no_environment, "unknown option '--colour'");
    char *missing[] = {"serve", "--port", NULL};
    expect_refusal(missing, no_environment, "--port: missing value");
    char *positional[] = {"serve", "8080", NULL};
    expect_refusal(positional, no_environment, "unexpected argument '8080'");
}

static void test_idle_timeout_must_exceed_ping_interval(void **state)
{
    (void)state;
    char *argv[] = {"serve", "--ping-interval", "30", "--idle-timeout", "30", NULL};
    expect_refusal(argv, no_environment, "idle-timeout (30 s) must be longer than ping-interval");
    char *no_pings[] = {"serve", "--ping-interval", "0", "--idle-timeout", "5", NULL};
    server_config config;
    char error[ERROR_SIZE];
    assert_int_equal(load(&config, no_pings, no_environment, error), SERVER_CONFIG_OK);
}

static void test_send_queue_limit_must_not_be_below_its_threshold(void **state)
{
    (void)state;
    char *argv[] = {"serve", "--send-queue-bytes", "2m", "--send-queue-max-bytes", "1m", NULL};
    expect_refusal(argv, no_environment, "send-queue-max-bytes (1048576) must not be below");
}

static void test_send_budget_must_not_be_below_one_queues_limit(void **state)
{
    (void)state;
    char *argv[] = {"serve", "--send-queue-max-bytes", "16m", "--send-queue-budget-bytes", "8m",
                    NULL};
    expect_refusal(argv, no_environment, "send-queue-budget-bytes (8388608) must not be below");
}

static void test_admin_key_comes_from_any_source_and_is_long_or_empty(void **state)
{
    (void)state;
    server_config config;
    char error[ERROR_SIZE];
    char *variable[] = {"TESSERA_ADMIN_KEY=0123456789abcdef", NULL};
    char *argv[] = {"serve",
                    "--sign-in-failures-per-name=3",
                    "--sign-in-failures-per-address=9",
                    "--registrations-per-address=4",
                    "--max-bots-per-account=0",
                    "--guests-per-address=7",
                    "--guest-ttl=0",
                    NULL};
    assert_int_equal(load(&config, argv, variable, error), SERVER_CONFIG_OK);
    assert_string_equal(config.admin_key, "0123456789abcdef");
    assert_int_equal(config.failures_per_name, 3);
    assert_int_equal(config.failures_per_address, 9);
    assert_int_equal(config.registrations_per_address, 4);
    assert_int_equal(config.max_bots_per_account, 0); /* accounts make no bots; the admin may */
    assert_int_equal(config.guests_per_address, 7);
    assert_int_equal(config.guest_ttl_s, 0); /* guests are kept for good */
    char path[64];
    write_file(path, "admin_key =\n");
    char *empty[] = {"serve", "--config", path, NULL};
    assert_int_equal(load(&config, empty, no_environment, error), SERVER_CONFIG_OK);
    assert_string_equal(config.admin_key, "");
    unlink(path);
    char *short_key[] = {"serve", "--admin-key", "secret", NULL};
    expect_refusal(short_key, no_environment,
                   "--admin-key: expected nothing or 16 to 127 bytes, got 6");
}

static void test_quoted_file_values_lose_their_quotes(void **state)
{
    (void)state;
    char path[64];
    write_file(path, "db = \"/tmp/with space/t.db\"\n"
                     "allowed-origins = 'https://play.example.org'  # a comment\n"
                     "admin-key = \"0123456789abcdef #not a comment\"\n"
                     "log-format = \"json\"\n"
                     "web-dir = \"it's\"\n"
                     "trusted-proxies = \"\"\n");
    char *argv[] = {"serve", "--config", path, NULL};
    server_config config;
    char error[ERROR_SIZE];
    assert_int_equal(load(&config, argv, no_environment, error), SERVER_CONFIG_OK);
    assert_string_equal(config.db_path, "/tmp/with space/t.db");
    assert_string_equal(config.limits.allowed_origins, "https://play.example.org");
    assert_string_equal(config.admin_key, "0123456789abcdef #not a comment");
    assert_int_equal(config.log_format, LOG_FORMAT_JSON);
    assert_string_equal(config.web_dir, "it's");
    assert_string_equal(config.limits.trusted_proxies, "");
    unlink(path);
}

/* Loads a config file of one line and expects it refused with `message`. */
static void expect_file_refusal(const char *text, mode_t mode, const char *message)
{
    char path[64], argument[80];
    write_file(path, text);
    assert_int_equal(chmod(path, mode), 0);
    snprintf(argument, sizeof(argument), "--config=%s", path);
    char *argv[] = {"serve", argument, NULL};
    server_config config;
    char error[ERROR_SIZE];
    assert_int_equal(load(&config, argv, no_environment, error), SERVER_CONFIG_E_INVALID);
    if (!strstr(error, message))
        fail_msg("error '%s' lacks '%s'", error, message);
    if (!strstr(error, path))
        fail_msg("error '%s' does not name the file", error);
    unlink(path);
}

static void test_a_value_that_opens_a_quote_must_end_with_it(void **state)
{
    (void)state;
    expect_file_refusal("db = \"/tmp/t.db\n", 0600, ":1: a value that opens a quote must end");
    expect_file_refusal("db = '/tmp/t.db\"\n", 0600, ":1: a value that opens a quote must end");
    expect_file_refusal("db = \"/tmp/t.db\" extra\n", 0600, "must end with it");
    expect_file_refusal("port = \"\n", 0600, "must end with it");
}

static void test_admin_key_in_a_file_others_may_read_is_refused(void **state)
{
    (void)state;
    const char *text = "port = 1\nadmin-key = 0123456789abcdef\n";
    expect_file_refusal(text, 0644, ":2: admin-key in a file group or others may read");
    expect_file_refusal(text, 0640, ":2: admin-key in a file group or others may read");
    char path[64];
    write_file(path, text);
    assert_int_equal(chmod(path, 0400), 0);
    char *argv[] = {"serve", "--config", path, NULL};
    server_config config;
    char error[ERROR_SIZE];
    assert_int_equal(load(&config, argv, no_environment, error), SERVER_CONFIG_OK);
    assert_string_equal(config.admin_key, "0123456789abcdef");
    unlink(path);
}

static void test_admin_key_file_holds_the_key_readable_by_its_owner_only(void **state)
{
    (void)state;
    char key_path[64], variable[96];
    write_file(key_path, "0123456789abcdef0123\n");
    snprintf(variable, sizeof(variable), "TESSERA_ADMIN_KEY_FILE=%s", key_path);
    char *environment[] = {variable, NULL};
    char *argv[] = {"serve", NULL};
    server_config config;
    char error[ERROR_SIZE];
    assert_int_equal(load(&config, argv, environment, error), SERVER_CONFIG_OK);
    assert_string_equal(config.admin_key, "0123456789abcdef0123");
    char *flag_wins[] = {"serve", "--admin-key", "fedcba9876543210", NULL};
    assert_int_equal(load(&config, flag_wins, environment, error), SERVER_CONFIG_OK);
    assert_string_equal(config.admin_key, "fedcba9876543210");

    assert_int_equal(chmod(key_path, 0644), 0);
    char *by_flag[] = {"serve", "--admin-key-file", key_path, NULL};
    expect_refusal(by_flag, no_environment, "--admin-key-file: group or others may read");
    unlink(key_path);
    expect_refusal(by_flag, no_environment, "--admin-key-file: cannot read");
    write_file(key_path, "0123456789abcdef\nsecond line\n");
    expect_refusal(by_flag, no_environment, "must hold the key on one line");
    unlink(key_path);
    write_file(key_path, "short\n");
    expect_refusal(by_flag, no_environment, "expected nothing or 16 to 127 bytes, got 5");
    unlink(key_path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_apply_without_any_source),
        cmocka_unit_test(test_flags_set_every_key),
        cmocka_unit_test(test_flag_accepts_equals_form_and_last_one_wins),
        cmocka_unit_test(test_file_then_environment_then_flags),
        cmocka_unit_test(test_config_file_can_come_from_the_environment),
        cmocka_unit_test(test_help_is_reported_before_anything_is_checked),
        cmocka_unit_test(test_bad_numbers_are_refused_naming_the_flag),
        cmocka_unit_test(test_bad_words_are_refused),
        cmocka_unit_test(test_bad_variable_is_refused_naming_the_variable),
        cmocka_unit_test(test_bad_file_line_is_refused_with_its_line_number),
        cmocka_unit_test(test_missing_config_file_is_refused),
        cmocka_unit_test(test_unknown_flags_and_missing_values_are_refused),
        cmocka_unit_test(test_idle_timeout_must_exceed_ping_interval),
        cmocka_unit_test(test_send_queue_limit_must_not_be_below_its_threshold),
        cmocka_unit_test(test_send_budget_must_not_be_below_one_queues_limit),
        cmocka_unit_test(test_admin_key_comes_from_any_source_and_is_long_or_empty),
        cmocka_unit_test(test_quoted_file_values_lose_their_quotes),
        cmocka_unit_test(test_a_value_that_opens_a_quote_must_end_with_it),
        cmocka_unit_test(test_admin_key_in_a_file_others_may_read_is_refused),
        cmocka_unit_test(test_admin_key_file_holds_the_key_readable_by_its_owner_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
