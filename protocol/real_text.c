/* real_text.c -- a double as printf's "%.17g" writes it, without printf
 * (see real_text.h).
 *
 * A finite double is m * 2^e exactly (m below 2^53). Its 17 significant
 * digits are the integer N = m * 2^e * 10^k rounded, for the k that puts
 * N in [10^16, 10^17). With 10^k = 5^k * 2^k that is m * 5^k shifted by
 * e + k bits: m * 5^k fits 128 bits for k up to 31, so every value from
 * 1e-15 to below 1e17 -- ratings, scores, averages -- is exact in integer
 * arithmetic, rounded half to even as glibc rounds; the rest goes to
 * snprintf. The digits are then laid out as %g does: fixed notation for
 * exponents from -4 to 16, else d.ddde-XX, trailing zeros dropped. */
#include "protocol/real_text.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define DIGITS     17
#define LOWEST_TEN 16 /* 10^16: the smallest 17-digit N */

typedef unsigned __int128 u128;

static const uint64_t TEN_16 = UINT64_C(10000000000000000);
static const uint64_t TEN_17 = UINT64_C(100000000000000000);

/* m * 2^shift * 5^k truncated to an integer, and whether the bits cut off
 * are below, at or above one half (-1, 0, 1; -2 when none were cut).
 * The caller keeps the result within 128 bits (shift at most 10). */
static u128 scaled(uint64_t m, int shift, int k, int *cut)
{
    u128 x = m;
    for (int i = 0; i < k; i++)
        x *= 5;
    *cut = -2;
    if (shift >= 0)
        return x << shift;
    int drop = -shift;
    u128 kept = x >> drop, rest = x - (kept << drop), half = (u128)1 << (drop - 1);
    if (rest != 0)
        *cut = rest < half ? -1 : rest == half ? 0 : 1;
    return kept;
}

/* The 17 digits of |value| (a normal double in range) and its decimal
 * exponent: 0, or -1 when the value is out of the exact range. */
static int seventeen_digits(double value, char digits[DIGITS], int *exponent)
{
    uint64_t bits;
    memcpy(&bits, &value, sizeof(bits));
    int biased = (int)((bits >> 52) & 0x7ff);
    if (biased == 0 || biased == 0x7ff)
        return -1; /* zero, subnormal, infinite or NaN */
    uint64_t m = (bits & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
    int e = biased - 1075;
    int d = (int)floor(log10(fabs(value)));
    u128 wide = 0;
    int cut = -2;
    for (int tries = 0; tries < 3; tries++) { /* log10 may be one off */
        int k = LOWEST_TEN - d;
        if (k < 0 || k > 31 || k + e < -120 || k + e > 10)
            return -1;
        wide = scaled(m, k + e, k, &cut);
        if (wide < TEN_16)
            d--;
        else if (wide >= TEN_17)
            d++;
        else
            break;
    }
    if (wide < TEN_16 || wide >= TEN_17)
        return -1;
    uint64_t n = (uint64_t)wide;
    if (cut == 1 || (cut == 0 && (n & 1)))
        n++;
    if (n == TEN_17) {
        n = TEN_16;
        d++;
    }
    for (int i = DIGITS - 1; i >= 0; i--) {
        digits[i] = (char)('0' + n % 10);
        n /= 10;
    }
    *exponent = d;
    return 0;
}

/* The digits without trailing zeros: how many are left (at least 1). */
static int significant(const char digits[DIGITS])
{
    int count = DIGITS;
    while (count > 1 && digits[count - 1] == '0')
        count--;
    return count;
}

int real_text(double value, char out[REAL_TEXT_SIZE])
{
    char digits[DIGITS];
    int exponent = 0;
    if (value == 0 || seventeen_digits(value, digits, &exponent) != 0) {
        int length = snprintf(out, REAL_TEXT_SIZE, "%.17g", value);
        return length > 0 && length < REAL_TEXT_SIZE ? length : -1;
    }
    char *at = out;
    if (value < 0)
        *at++ = '-';
    int count = significant(digits);
    if (exponent < -4 || exponent >= DIGITS) {
        *at++ = digits[0];
        if (count > 1) {
            *at++ = '.';
            memcpy(at, digits + 1, (size_t)count - 1);
            at += count - 1;
        }
        int magnitude = exponent < 0 ? -exponent : exponent; /* below 100 in range */
        *at++ = 'e';
        *at++ = exponent < 0 ? '-' : '+';
        *at++ = (char)('0' + magnitude / 10);
        *at++ = (char)('0' + magnitude % 10);
    } else if (exponent >= 0) {
        memcpy(at, digits, (size_t)exponent + 1);
        at += exponent + 1;
        if (count > exponent + 1) {
            *at++ = '.';
            memcpy(at, digits + exponent + 1, (size_t)(count - exponent - 1));
            at += count - exponent - 1;
        }
    } else {
        *at++ = '0';
        *at++ = '.';
        for (int i = 0; i < -exponent - 1; i++)
            *at++ = '0';
        memcpy(at, digits, (size_t)count);
        at += count;
    }
    *at = '\0';
    return (int)(at - out);
}
