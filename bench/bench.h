/* bench.h -- benchmark entry points linked into the tessera binary. */
#ifndef TESSERA_BENCH_H
#define TESSERA_BENCH_H

int cmd_bench(int argc, char **argv);

#endif
