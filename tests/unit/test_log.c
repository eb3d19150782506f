/* test_log.c -- log lines and the rate limit of storm-prone log sites.
 *
 * The limit's rule is checked on plain times (log_limit_admit); the lines
 * themselves are checked by pointing standard error at a temporary file
 * for the duration of a test. Time passing is simulated by the limit's
 * own state, never by sleeping. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "server/log.h"

/* Standard error redirected to a temporary file. */
struct captured_stderr {
    int saved_fd;
    FILE *file;
    char text[16384];
};

static void capture_start(struct captured_stderr *capture)
{
    capture->file = tmpfile();
    assert_non_null(capture->file);
    capture->saved_fd = dup(STDERR_FILENO);
    assert_true(capture->saved_fd >= 0);
    assert_true(dup2(fileno(capture->file), STDERR_FILENO) >= 0);
}

/* Restores standard error and reads what was written into capture->text. */
static void capture_stop(struct captured_stderr *capture)
{
    assert_true(dup2(capture->saved_fd, STDERR_FILENO) >= 0);
    close(capture->saved_fd);
    rewind(capture->file);
    size_t length = fread(capture->text, 1, sizeof(capture->text) - 1, capture->file);
    capture->text[length] = '\0';
    fclose(capture->file);
}

static int count_lines(const char *text)
{
    int lines = 0;
    for (; *text; text++)
        lines += *text == '\n';
    return lines;
}

static void test_first_line_of_a_site_is_written(void **state)
{
    (void)state;
    log_limit limit = {0};
    uint64_t suppressed = 99;
    assert_int_equal(log_limit_admit(&limit, 5, &suppressed), 1);
    assert_int_equal(suppressed, 0);
}

static void test_lines_within_the_interval_are_counted_not_written(void **state)
{
    (void)state;
    log_limit limit = {0};
    uint64_t suppressed;
    assert_int_equal(log_limit_admit(&limit, 1000, &suppressed), 1);
    for (uint64_t now = 1000; now < 1000 + LOG_LIMIT_INTERVAL_MS; now += 10)
        assert_int_equal(log_limit_admit(&limit, now, &suppressed), 0);
    assert_int_equal(limit.suppressed, LOG_LIMIT_INTERVAL_MS / 10);
}

static void test_line_after_the_interval_reports_what_was_suppressed(void **state)
{
    (void)state;
    log_limit limit = {0};
    uint64_t suppressed;
    assert_int_equal(log_limit_admit(&limit, 0, &suppressed), 1);
    for (int i = 0; i < 376; i++)
        assert_int_equal(log_limit_admit(&limit, 500, &suppressed), 0);
    assert_int_equal(log_limit_admit(&limit, LOG_LIMIT_INTERVAL_MS, &suppressed), 1);
    assert_int_equal(suppressed, 376);
    assert_int_equal(log_limit_admit(&limit, 2 * LOG_LIMIT_INTERVAL_MS, &suppressed), 1);
    assert_int_equal(suppressed, 0); /* the count starts again */
}

static void test_storm_at_one_site_writes_one_line(void **state)
{
    (void)state;
    struct captured_stderr capture;
    capture_start(&capture);
    for (int i = 0; i < 10000; i++)
        log_warn_limited("accept: %s", "Too many open files");
    capture_stop(&capture);
    assert_int_equal(count_lines(capture.text), 1);
    assert_non_null(strstr(capture.text, " warn accept: Too many open files\n"));
    assert_null(strstr(capture.text, "suppressed"));
}

static void test_two_sites_are_limited_apart(void **state)
{
    (void)state;
    struct captured_stderr capture;
    capture_start(&capture);
    for (int i = 0; i < 100; i++) {
        log_error_limited("first site");
        log_info_limited("second site %d", i);
    }
    capture_stop(&capture);
    assert_int_equal(count_lines(capture.text), 2);
    assert_non_null(strstr(capture.text, " error first site\n"));
    assert_non_null(strstr(capture.text, " info second site 0\n"));
}

static void test_written_line_ends_with_the_suppressed_count(void **state)
{
    (void)state;
    /* A site that wrote long ago and dropped 41 lines since. */
    log_limit limit = {.last_written_ms = 0, .suppressed = 41, .has_written = 1};
    struct captured_stderr capture;
    capture_start(&capture);
    log_write_limited(&limit, LOG_LEVEL_WARN, "descriptors exhausted");
    capture_stop(&capture);
    assert_non_null(
        strstr(capture.text, " warn descriptors exhausted (41 similar lines suppressed)\n"));
    assert_int_equal(limit.suppressed, 0);
}

static void test_disabled_level_is_neither_written_nor_counted(void **state)
{
    (void)state;
    log_limit limit = {0};
    struct captured_stderr capture;
    log_set_level(LOG_LEVEL_WARN);
    capture_start(&capture);
    log_write_limited(&limit, LOG_LEVEL_INFO, "not shown");
    log_info("not shown either");
    capture_stop(&capture);
    log_set_level(LOG_LEVEL_INFO);
    assert_string_equal(capture.text, "");
    assert_int_equal(limit.has_written, 0);
    assert_int_equal(limit.suppressed, 0);
}

static void test_line_keeps_one_event_per_line(void **state)
{
    (void)state;
    struct captured_stderr capture;
    capture_start(&capture);
    log_info("two\nlines\r\n");
    capture_stop(&capture);
    assert_int_equal(count_lines(capture.text), 1);
    assert_non_null(strstr(capture.text, "Z info two lines\n"));
}

static void test_control_bytes_from_clients_do_not_reach_the_log(void **state)
{
    (void)state;
    struct captured_stderr capture;
    capture_start(&capture);
    log_info("http GET /a%sb -> 404", "\x1b[2J\t\x7f");
    capture_stop(&capture);
    assert_int_equal(count_lines(capture.text), 1);
    assert_non_null(strstr(capture.text, "Z info http GET /a [2J  b -> 404\n"));
}

static void test_over_long_line_is_cut_and_marked(void **state)
{
    (void)state;
    static char long_text[4000];
    memset(long_text, 'x', sizeof(long_text) - 1);
    log_limit limit = {.last_written_ms = 0, .suppressed = 7, .has_written = 1};
    struct captured_stderr capture;
    capture_start(&capture);
    log_write_limited(&limit, LOG_LEVEL_ERROR, "%s", long_text);
    capture_stop(&capture);
    assert_int_equal(count_lines(capture.text), 1);
    assert_non_null(strstr(capture.text, "x... (7 similar lines suppressed)\n"));
}

static void test_level_names_parse_back(void **state)
{
    (void)state;
    for (int level = LOG_LEVEL_ERROR; level <= LOG_LEVEL_DEBUG; level++) {
        log_level parsed;
        assert_int_equal(log_level_parse(log_level_name((log_level)level), &parsed), 0);
        assert_int_equal(parsed, level);
    }
    log_level unused;
    assert_int_equal(log_level_parse("verbose", &unused), -EINVAL);
}

/* The one JSON line of `capture`, parsed (the caller frees it). */
static json_t *json_line(const struct captured_stderr *capture)
{
    assert_int_equal(count_lines(capture->text), 1);
    json_error_t error;
    json_t *line = json_loads(capture->text, 0, &error);
    if (!line)
        fail_msg("not JSON (%s): %s", error.text, capture->text);
    assert_non_null(json_string_value(json_object_get(line, "ts")));
    return line;
}

static void test_json_lines_escape_what_json_needs(void **state)
{
    (void)state;
    struct captured_stderr capture;
    log_set_format(LOG_FORMAT_JSON);
    capture_start(&capture);
    log_warn("name \"%s\" says \\ and\n%s", "é", "\xff\xc3");
    capture_stop(&capture);
    log_set_format(LOG_FORMAT_TEXT);
    json_t *line = json_line(&capture);
    assert_string_equal(json_string_value(json_object_get(line, "level")), "warn");
    /* the newline became a space, bytes that are not UTF-8 became '?' */
    assert_string_equal(json_string_value(json_object_get(line, "msg")),
                        "name \"é\" says \\ and ??");
    json_decref(line);
}

static void test_an_over_long_json_line_is_still_one_object(void **state)
{
    (void)state;
    static char long_text[4000];
    memset(long_text, '"', sizeof(long_text) - 1);
    struct captured_stderr capture;
    log_set_format(LOG_FORMAT_JSON);
    capture_start(&capture);
    log_error("%s", long_text);
    capture_stop(&capture);
    log_set_format(LOG_FORMAT_TEXT);
    json_t *line = json_line(&capture);
    assert_true(strlen(json_string_value(json_object_get(line, "msg"))) > 100);
    json_decref(line);
}

static void test_an_http_line_carries_its_request_id(void **state)
{
    (void)state;
    log_http_fields fields = {"0000abcd-7", "GET", "/api/games", 404, 1.25, "127.0.0.1"};
    struct captured_stderr capture;
    capture_start(&capture);
    log_http(&fields);
    capture_stop(&capture);
    assert_non_null(strstr(
        capture.text, "Z info http 0000abcd-7 GET /api/games -> 404 in 1.2 ms from 127.0.0.1\n"));

    log_set_format(LOG_FORMAT_JSON);
    capture_start(&capture);
    log_http(&fields);
    capture_stop(&capture);
    log_set_format(LOG_FORMAT_TEXT);
    json_t *line = json_line(&capture);
    assert_string_equal(json_string_value(json_object_get(line, "msg")), "http");
    assert_string_equal(json_string_value(json_object_get(line, "request_id")), "0000abcd-7");
    assert_string_equal(json_string_value(json_object_get(line, "path")), "/api/games");
    assert_int_equal(json_integer_value(json_object_get(line, "status")), 404);
    assert_true(json_real_value(json_object_get(line, "duration_ms")) == 1.25);
    assert_string_equal(json_string_value(json_object_get(line, "peer")), "127.0.0.1");
    json_decref(line);
}

static void test_format_names_parse_back(void **state)
{
    (void)state;
    log_format parsed;
    assert_int_equal(log_format_parse(log_format_name(LOG_FORMAT_JSON), &parsed), 0);
    assert_int_equal(parsed, LOG_FORMAT_JSON);
    assert_int_equal(log_format_parse("xml", &parsed), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_line_of_a_site_is_written),
        cmocka_unit_test(test_lines_within_the_interval_are_counted_not_written),
        cmocka_unit_test(test_line_after_the_interval_reports_what_was_suppressed),
        cmocka_unit_test(test_storm_at_one_site_writes_one_line),
        cmocka_unit_test(test_two_sites_are_limited_apart),
        cmocka_unit_test(test_written_line_ends_with_the_suppressed_count),
        cmocka_unit_test(test_disabled_level_is_neither_written_nor_counted),
        cmocka_unit_test(test_line_keeps_one_event_per_line),
        cmocka_unit_test(test_control_bytes_from_clients_do_not_reach_the_log),
        cmocka_unit_test(test_over_long_line_is_cut_and_marked),
        cmocka_unit_test(test_level_names_parse_back),
        cmocka_unit_test(test_json_lines_escape_what_json_needs),
        cmocka_unit_test(test_an_over_long_json_line_is_still_one_object),
        cmocka_unit_test(test_an_http_line_carries_its_request_id),
        cmocka_unit_test(test_format_names_parse_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
