/* http_failure.c -- filling in the HTTP APIs' error type (http_failure.h). */
#include "protocol/http_failure.h"

#include <stdarg.h>
#include <stdio.h>

int http_fail(http_failure *failure, int status, const char *code, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(failure->message, sizeof(failure->message), format, arguments);
    va_end(arguments);
    failure->status = status;
    failure->code = code;
    return HTTP_FAILED;
}
