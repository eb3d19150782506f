/* replay.c -- runs a fuzz target over files, without a fuzzer.
 *
 * `replay FILE...` feeds each file to LLVMFuzzerTestOneInput once, so the
 * corpus (seeds and every crash ever found) is a regression test that any
 * compiler and the sanitizer build can run.
 *
 * `replay --mutate SECONDS FILE...` then keeps feeding it inputs made from
 * those files by a few random edits (a bit flipped, a byte set, inserted
 * or removed, a piece of another file spliced in) until SECONDS have
 * passed: a bounded pass that ctest can run where there is no libFuzzer
 * (the gcc builds). It is blind where libFuzzer is guided by coverage, so
 * it is a smoke test, not a replacement for run.sh. Each input is written
 * to `replay-input` in the working folder before it runs, so one that
 * crashes stays behind; FUZZ_REPLAY_SEED repeats a pass. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MUTATE_MAX_BYTES 4096 /* as run.sh's -max_len */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
    uint8_t *data;
    size_t size;
};

static int read_file(const char *path, struct input *out)
{
    FILE *file = fopen(path, "rb");
    if (!file) {
        perror(path);
        return 1;
    }
    uint8_t *data = NULL;
    size_t size = 0, capacity = 0, got;
    do {
        if (size == capacity) {
            capacity = capacity ? capacity * 2 : 4096;
            uint8_t *grown = realloc(data, capacity);
            if (!grown) {
                free(data);
                fclose(file);
                return 1;
            }
            data = grown;
        }
        got = fread(data + size, 1, capacity - size, file);
        size += got;
    } while (got > 0);
    fclose(file);
    out->data = data;
    out->size = size;
    return 0;
}

static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* One edit of `buffer` (`*size` bytes, room for MUTATE_MAX_BYTES). */
static void mutate(uint8_t *buffer, size_t *size, const struct input *inputs, int count,
                   uint64_t *state)
{
    size_t at = *size ? next_random(state) % *size : 0;
    switch (next_random(state) % 5) {
    case 0:
        if (*size)
            buffer[at] ^= (uint8_t)(1u << next_random(state) % 8);
        break;
    case 1:
        if (*size)
            buffer[at] = (uint8_t)next_random(state);
        break;
    case 2:
        if (*size < MUTATE_MAX_BYTES) {
            memmove(buffer + at + 1, buffer + at, *size - at);
            buffer[at] = (uint8_t)next_random(state);
            (*size)++;
        }
        break;
    case 3:
        if (*size) {
            memmove(buffer + at, buffer + at + 1, *size - at - 1);
            (*size)--;
        }
        break;
    default: { /* a piece of another input, in place of the tail */
        const struct input *other = &inputs[next_random(state) % (uint64_t)count];
        if (other->size == 0)
            break;
        size_t from = next_random(state) % other->size;
        size_t length = other->size - from;
        if (at + length > MUTATE_MAX_BYTES)
            length = MUTATE_MAX_BYTES - at;
        memcpy(buffer + at, other->data + from, length);
        *size = at + length;
        break;
    }
    }
}

static void save_input(const uint8_t *data, size_t size)
{
    FILE *file = fopen("replay-input", "wb");
    if (file) {
        fwrite(data, 1, size, file);
        fclose(file);
    }
}

static int run_mutated(double seconds, const struct input *inputs, int count)
{
    const char *seed_text = getenv("FUZZ_REPLAY_SEED");
    uint64_t seed = seed_text ? strtoull(seed_text, NULL, 10) : (uint64_t)time(NULL);
    uint64_t state = seed | 1;
    /* named before the first input too: a failing pass aborts, and its log
     * must say how to repeat it */
    fprintf(stderr, "mutating with FUZZ_REPLAY_SEED=%llu\n", (unsigned long long)seed);
    static uint8_t buffer[MUTATE_MAX_BYTES];
    unsigned long runs = 0;
    clock_t started = clock();
    time_t wall_started = time(NULL);
    while (count > 0 && difftime(time(NULL), wall_started) < seconds) {
        const struct input *base = &inputs[next_random(&state) % (uint64_t)count];
        size_t size = base->size < MUTATE_MAX_BYTES ? base->size : MUTATE_MAX_BYTES;
        memcpy(buffer, base->data, size);
        for (uint64_t edits = 1 + next_random(&state) % 4; edits > 0; edits--)
            mutate(buffer, &size, inputs, count, &state);
        save_input(buffer, size);
        LLVMFuzzerTestOneInput(buffer, size);
        runs++;
    }
    remove("replay-input");
    printf("mutated %lu inputs in %.0f s (%.1f s of CPU), FUZZ_REPLAY_SEED=%llu\n", runs,
           difftime(time(NULL), wall_started), (double)(clock() - started) / CLOCKS_PER_SEC,
           (unsigned long long)seed);
    return 0;
}

int main(int argc, char **argv)
{
    double mutate_seconds = 0;
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "--mutate") == 0) {
        mutate_seconds = atof(argv[2]);
        first = 3;
    }
    int count = argc - first, failures = 0;
    struct input *inputs = calloc(count > 0 ? (size_t)count : 1, sizeof(*inputs));
    if (!inputs)
        return 1;
    for (int i = 0; i < count; i++) {
        if (read_file(argv[first + i], &inputs[i]) != 0) {
            failures++;
            continue;
        }
        LLVMFuzzerTestOneInput(inputs[i].data, inputs[i].size);
    }
    printf("replayed %d input%s\n", count - failures, count - failures == 1 ? "" : "s");
    if (failures == 0 && mutate_seconds > 0)
        run_mutated(mutate_seconds, inputs, count);
    for (int i = 0; i < count; i++)
        free(inputs[i].data);
    free(inputs);
    return failures ? 1 : 0;
}
