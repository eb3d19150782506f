/* http_encoding.c -- what a request's Accept-Encoding allows (http_encoding.h). */
#include "server/http_encoding.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

/* A piece of the header: [start, end). */
struct span {
    const char *start, *end;
};

static struct span trimmed(const char *start, const char *end)
{
    while (start < end && (*start == ' ' || *start == '\t'))
        start++;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    return (struct span){start, end};
}

static bool is_named(struct span piece, const char *name)
{
    size_t length = (size_t)(piece.end - piece.start);
    return length == strlen(name) && strncasecmp(piece.start, name, length) == 0;
}

/* Whether a qvalue is 0: "0", "0.", "0.0" ... with at most three zeros. */
static bool is_zero(struct span value)
{
    if (value.start == value.end || *value.start != '0')
        return false;
    const char *at = value.start + 1;
    if (at == value.end)
        return true;
    if (*at++ != '.' || value.end - at > 3)
        return false;
    for (; at < value.end; at++)
        if (*at != '0')
            return false;
    return true;
}

/* Whether an element's parameters ("; q=0.5; ...") leave it a weight above 0. */
static bool is_wanted(struct span parameters)
{
    const char *at = parameters.start;
    while (at < parameters.end) {
        const char *next = at;
        while (next < parameters.end && *next != ';')
            next++;
        struct span parameter = trimmed(at, next);
        if (parameter.end - parameter.start >= 2 &&
            tolower((unsigned char)parameter.start[0]) == 'q' && parameter.start[1] == '=')
            return !is_zero(trimmed(parameter.start + 2, parameter.end));
        at = next + (next < parameters.end);
    }
    return true;
}

bool http_accepts_gzip(const char *accept_encoding)
{
    int gzip = -1, any = -1; /* -1: not named; else whether wanted */
    const char *at = accept_encoding;
    while (*at) {
        const char *end = at;
        while (*end && *end != ',')
            end++;
        const char *semicolon = at;
        while (semicolon < end && *semicolon != ';')
            semicolon++;
        struct span coding = trimmed(at, semicolon);
        int wanted = is_wanted((struct span){semicolon + (semicolon < end), end});
        if (is_named(coding, "gzip") || is_named(coding, "x-gzip"))
            gzip = gzip == 1 ? 1 : wanted;
        else if (is_named(coding, "*"))
            any = wanted;
        at = end + (*end == ',');
    }
    return gzip == 1 || (gzip == -1 && any == 1);
}
