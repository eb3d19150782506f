/* test_listener.c -- our accept loop, on a real loop and real sockets.
 *
 * Each test listens on 127.0.0.1 port 0, connects plain TCP clients to
 * it, and runs the loop until the listener has reported what it should.
 * Exhaustion is made real by filling this process's descriptor table
 * (dup until EMFILE): the listener must pause, not spin, and accept the
 * waiting client once told a descriptor was freed. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "server/listener.h"

#define MAX_FILLERS 4096

struct accepted {
    int count;
    int last_fd;
    char last_address[64];
};

static void record(void *context, int fd, const char *peer_address)
{
    struct accepted *accepted = context;
    if (accepted->last_fd >= 0)
        close(accepted->last_fd);
    accepted->count++;
    accepted->last_fd = fd;
    snprintf(accepted->last_address, sizeof(accepted->last_address), "%s", peer_address);
}

static int connect_to(int port)
{
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    assert_int_equal(connect(fd, (struct sockaddr *)&address, sizeof(address)), 0);
    return fd;
}

/* Runs the loop until `accepted` reaches `count` (bounded turns). */
static void run_until_accepted(uv_loop_t *loop, struct accepted *accepted, int count)
{
    for (int turn = 0; turn < 1000 && accepted->count < count; turn++)
        uv_run(loop, UV_RUN_ONCE);
    assert_int_equal(accepted->count, count);
}

static void free_and_close_loop(uv_loop_t *loop, struct listener *l, struct accepted *accepted)
{
    listener_free(l);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(loop), 0);
    if (accepted->last_fd >= 0)
        close(accepted->last_fd);
}

static void test_accepted_connection_is_handed_over_with_its_address(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct accepted accepted = {.last_fd = -1};
    struct listener *l;
    assert_int_equal(listener_new(&loop, "127.0.0.1", 0, record, &accepted, &l), 0);
    assert_true(listener_port(l) > 0);
    int client = connect_to(listener_port(l));
    run_until_accepted(&loop, &accepted, 1);
    assert_string_equal(accepted.last_address, "127.0.0.1");
    close(client);
    free_and_close_loop(&loop, l, &accepted);
}

static void test_address_that_is_not_an_ip_literal_is_refused(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct listener *l;
    assert_int_equal(listener_new(&loop, "localhost", 0, record, NULL, &l), -EINVAL);
    assert_int_equal(uv_loop_close(&loop), 0);
}

static void test_port_in_use_is_reported(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct accepted accepted = {.last_fd = -1};
    struct listener *first, *second;
    assert_int_equal(listener_new(&loop, "127.0.0.1", 0, record, &accepted, &first), 0);
    assert_int_equal(
        listener_new(&loop, "127.0.0.1", listener_port(first), record, &accepted, &second),
        -EADDRINUSE);
    free_and_close_loop(&loop, first, &accepted);
}

/* Duplicates descriptors until the process has none left; returns how
 * many were taken (into `fillers`). */
static int fill_descriptor_table(int *fillers)
{
    int count = 0;
    while (count < MAX_FILLERS) {
        int fd = dup(STDIN_FILENO);
        if (fd < 0) {
            assert_int_equal(errno, EMFILE);
            break;
        }
        fillers[count++] = fd;
    }
    assert_true(count < MAX_FILLERS); /* the test lowers the limit: this is reached */
    return count;
}

static void test_out_of_descriptors_pauses_until_one_is_freed(void **state)
{
    (void)state;
    static int fillers[MAX_FILLERS];
    struct rlimit saved;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct accepted accepted = {.last_fd = -1};
    struct listener *l;
    assert_int_equal(listener_new(&loop, "127.0.0.1", 0, record, &accepted, &l), 0);
    int client = connect_to(listener_port(l));

    struct rlimit low = {.rlim_cur = 256, .rlim_max = saved.rlim_max};
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    int filled = fill_descriptor_table(fillers);
    for (int turn = 0; turn < 100 && !listener_is_paused(l); turn++)
        uv_run(&loop, UV_RUN_NOWAIT);
    assert_true(listener_is_paused(l));
    assert_int_equal(accepted.count, 0);
    uv_run(&loop, UV_RUN_NOWAIT); /* paused: a turn of the loop accepts nothing */
    assert_int_equal(accepted.count, 0);

    close(fillers[--filled]);
    listener_descriptor_freed(l);
    assert_false(listener_is_paused(l));
    run_until_accepted(&loop, &accepted, 1);

    while (filled > 0)
        close(fillers[--filled]);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);
    close(client);
    free_and_close_loop(&loop, l, &accepted);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepted_connection_is_handed_over_with_its_address),
        cmocka_unit_test(test_address_that_is_not_an_ip_literal_is_refused),
        cmocka_unit_test(test_port_in_use_is_reported),
        cmocka_unit_test(test_out_of_descriptors_pauses_until_one_is_freed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
