/* fifo.h -- an intrusive first-in, first-out list.
 *
 * An item embeds a fifo_link and is in at most one list through it; a
 * list owns nothing and allocates nothing. FIFO_ITEM gets the item back
 * from its link. Pushing at either end and popping are O(1); taking an
 * item out of the middle walks the list, which the lists that do it keep
 * short or rare (a room going away). Whether an item is in a list is the
 * item's own business (a flag of its own), so a list costs two pointers. */
#ifndef TESSERA_FIFO_H
#define TESSERA_FIFO_H

#include <stdbool.h>
#include <stddef.h>

typedef struct fifo_link {
    struct fifo_link *next;
} fifo_link;

typedef struct fifo {
    fifo_link *head, *tail;
} fifo;

/* The item `offset` bytes before `link`, or NULL for NULL (FIFO_ITEM). */
static inline void *fifo_item_at(fifo_link *link, size_t offset)
{
    return link ? (void *)((char *)link - offset) : NULL;
}

/* The item of `type` whose fifo_link `member` is `link` (NULL stays NULL);
 * `link` is evaluated once, so FIFO_ITEM(fifo_pop(...), ...) pops once. */
#define FIFO_ITEM(link, type, member) ((type *)fifo_item_at((link), offsetof(type, member)))

static inline bool fifo_is_empty(const fifo *list)
{
    return list->head == NULL;
}

/* Appends `link` at the end. */
static inline void fifo_push(fifo *list, fifo_link *link)
{
    link->next = NULL;
    if (list->tail)
        list->tail->next = link;
    else
        list->head = link;
    list->tail = link;
}

/* Puts `link` first: it is the next to be popped. */
static inline void fifo_push_front(fifo *list, fifo_link *link)
{
    link->next = list->head;
    list->head = link;
    if (!list->tail)
        list->tail = link;
}

/* Takes the first link off the list, or NULL when it is empty. */
static inline fifo_link *fifo_pop(fifo *list)
{
    fifo_link *link = list->head;
    if (link) {
        list->head = link->next;
        if (!list->head)
            list->tail = NULL;
        link->next = NULL;
    }
    return link;
}

/* Takes `link` out of the list wherever it is: whether it was there. */
bool fifo_remove(fifo *list, fifo_link *link);

#endif
