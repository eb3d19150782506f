/* http_failure.c -- filling in the HTTP APIs' error type (http_failure.h). */
#include "protocol/http_failure.h"

#include <stdio.h>

int http_failv(http_failure *failure, int status, const char *code, const char *format,
               va_list arguments)
{
    vsnprintf(failure->message, sizeof(failure->message), format, arguments);
    failure->status = status;
    failure->code = code;
    return HTTP_FAILED;
}

int http_fail(http_failure *failure, int status, const char *code, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    http_failv(failure, status, code, format, arguments);
    va_end(arguments);
    return HTTP_FAILED;
}
