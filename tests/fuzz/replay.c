/* replay.c -- runs a fuzz target over files, without a fuzzer.
 *
 * `replay FILE...` feeds each file to LLVMFuzzerTestOneInput once, so the
 * corpus (seeds and every crash ever found) is a regression test that any
 * compiler and the sanitizer build can run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
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
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    int failures = 0;
    for (int i = 1; i < argc; i++)
        failures += replay_file(argv[i]);
    printf("replayed %d input%s\n", argc - 1 - failures, argc - 1 - failures == 1 ? "" : "s");
    return failures ? 1 : 0;
}
