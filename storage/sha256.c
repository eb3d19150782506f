/* sha256.c -- SHA-256 as FIPS 180-4 defines it, one block at a time.
 *
 * Straightforward rather than fast: it hashes a 48-character token per
 * sign-in. The message is processed in 64-byte blocks; the last block(s)
 * carry the 0x80 marker and the message length in bits, big-endian. */
#include "storage/sha256.h"

#include <stdio.h>
#include <string.h>

static const uint32_t ROUND_CONSTANTS[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static const uint32_t INITIAL_HASH[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                         0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

static uint32_t rotate_right(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

static uint32_t big_endian_word(const uint8_t *bytes)
{
    return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 | bytes[3];
}

static void compress(uint32_t hash[8], const uint8_t block[64])
{
    uint32_t w[64], v[8];
    for (int t = 0; t < 16; t++)
        w[t] = big_endian_word(block + 4 * t);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotate_right(w[t - 15], 7) ^ rotate_right(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotate_right(w[t - 2], 17) ^ rotate_right(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    memcpy(v, hash, sizeof(v));
    for (int t = 0; t < 64; t++) {
        uint32_t s1 = rotate_right(v[4], 6) ^ rotate_right(v[4], 11) ^ rotate_right(v[4], 25);
        uint32_t choose = (v[4] & v[5]) ^ (~v[4] & v[6]);
        uint32_t t1 = v[7] + s1 + choose + ROUND_CONSTANTS[t] + w[t];
        uint32_t s0 = rotate_right(v[0], 2) ^ rotate_right(v[0], 13) ^ rotate_right(v[0], 22);
        uint32_t majority = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
        memmove(v + 1, v, sizeof(uint32_t) * 7);
        v[4] += t1;
        v[0] = t1 + s0 + majority;
    }
    for (int i = 0; i < 8; i++)
        hash[i] += v[i];
}

void sha256(const void *data, size_t length, uint8_t digest[SHA256_DIGEST_BYTES])
{
    const uint8_t *bytes = data;
    uint32_t hash[8];
    memcpy(hash, INITIAL_HASH, sizeof(hash));
    size_t whole = length - length % 64;
    for (size_t offset = 0; offset < whole; offset += 64)
        compress(hash, bytes + offset);
    /* The tail, the 0x80 marker and the bit length fill one or two blocks. */
    uint8_t tail[128] = {0};
    size_t rest = length - whole, tail_length = rest < 56 ? 64 : 128;
    memcpy(tail, bytes + whole, rest);
    tail[rest] = 0x80;
    uint64_t bits = (uint64_t)length * 8;
    for (int i = 0; i < 8; i++)
        tail[tail_length - 1 - i] = (uint8_t)(bits >> (8 * i));
    for (size_t offset = 0; offset < tail_length; offset += 64)
        compress(hash, tail + offset);
    for (int i = 0; i < 8; i++)
        for (int b = 0; b < 4; b++)
            digest[4 * i + b] = (uint8_t)(hash[i] >> (24 - 8 * b));
}

void sha256_hex(const char *text, char hex[SHA256_HEX_SIZE])
{
    uint8_t digest[SHA256_DIGEST_BYTES];
    sha256(text, strlen(text), digest);
    for (int i = 0; i < SHA256_DIGEST_BYTES; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}
