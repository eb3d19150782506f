#!/usr/bin/env python3
"""reef_gen_reference.py -- an independent reference for the reef-gen-1 piece generator.

Written from the text of docs/ARCHITECTURE.md, "Reef Builder piece generator"
alone (not from engine/reef.c), with Python's unbounded integers masked to 64
bits, so that the golden vectors embedded in tests/unit/test_reef.c check the C
generator against a second implementation.

reef-gen-1: splitmix64 seeded with the seed; u(n) = next() % n. For the k-th
piece drawn (k = 0 is the first current piece, k = 1 the first next piece):
palette = R,B,G for k < 12, R,B,G,Y for k < 30, R,B,G,Y,P after;
p = min(60, 20 + k); if u(100) < p both halves get palette[u(n)], else A gets
palette[u(n)] then B gets palette[u(n)].

Usage: reef_gen_reference.py [COUNT] [SEED...]   (defaults: 40 pieces, seeds 0 1 7 2^63)
Prints one line per seed: the seed, then COUNT pieces as two letters (A then B).
"""
import sys

MASK64 = (1 << 64) - 1
COLORS = "RBGYP"


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n


def pieces(seed, count):
    rng = SplitMix64(seed)
    out = []
    for k in range(count):
        n = 3 if k < 12 else 4 if k < 30 else 5
        palette = COLORS[:n]
        p = min(60, 20 + k)
        if rng.below(100) < p:
            a = b = palette[rng.below(n)]
        else:
            a = palette[rng.below(n)]
            b = palette[rng.below(n)]
        out.append(a + b)
    return out


def main(argv):
    count = int(argv[1]) if len(argv) > 1 else 40
    seeds = [int(s, 0) for s in argv[2:]] or [0, 1, 7, 1 << 63]
    for seed in seeds:
        print(seed, " ".join(pieces(seed, count)))


if __name__ == "__main__":
    main(sys.argv)
