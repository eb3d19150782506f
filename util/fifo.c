/* fifo.c -- taking a link out of the middle of a fifo (fifo.h). */
#include "util/fifo.h"

bool fifo_remove(fifo *list, fifo_link *link)
{
    fifo_link **at = &list->head, *previous = NULL;
    while (*at && *at != link) {
        previous = *at;
        at = &(*at)->next;
    }
    if (!*at)
        return false;
    *at = link->next;
    if (list->tail == link)
        list->tail = previous;
    link->next = NULL;
    return true;
}
