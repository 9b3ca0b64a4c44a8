/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Circular doubly linked lists with the kernel's names, so code that
 * walks anon_vma chains or context children reads like mm/ does.
 */
#ifndef COWCTX_LIST_H
#define COWCTX_LIST_H

#include <stdbool.h>
#include <stddef.h>

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name) { &(name), &(name) }

static inline void INIT_LIST_HEAD(struct list_head *head)
{
	head->next = head;
	head->prev = head;
}

static inline void list_insert_between(struct list_head *entry,
				       struct list_head *prev,
				       struct list_head *next)
{
	next->prev = entry;
	entry->next = next;
	entry->prev = prev;
	prev->next = entry;
}

/* Insert at the front. */
static inline void list_add(struct list_head *entry, struct list_head *head)
{
	list_insert_between(entry, head, head->next);
}

/* Insert at the back. */
static inline void list_add_tail(struct list_head *entry,
				 struct list_head *head)
{
	list_insert_between(entry, head->prev, head);
}

static inline void list_del(struct list_head *entry)
{
	entry->next->prev = entry->prev;
	entry->prev->next = entry->next;
	entry->next = NULL;
	entry->prev = NULL;
}

static inline void list_del_init(struct list_head *entry)
{
	entry->next->prev = entry->prev;
	entry->prev->next = entry->next;
	INIT_LIST_HEAD(entry);
}

static inline bool list_empty(const struct list_head *head)
{
	return head->next == head;
}

static inline bool list_is_singular(const struct list_head *head)
{
	return !list_empty(head) && head->next == head->prev;
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(head, type, member) \
	list_entry((head)->next, type, member)
#define list_last_entry(head, type, member) \
	list_entry((head)->prev, type, member)

#define list_for_each_entry(pos, head, member)				\
	for (pos = list_entry((head)->next, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))

#define list_for_each_entry_reverse(pos, head, member)			\
	for (pos = list_entry((head)->prev, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_entry(pos->member.prev, __typeof__(*pos), member))

/* Safe against removal of the current entry. */
#define list_for_each_entry_safe(pos, tmp, head, member)		\
	for (pos = list_entry((head)->next, __typeof__(*pos), member),	\
	     tmp = list_entry(pos->member.next, __typeof__(*pos), member); \
	     &pos->member != (head);					\
	     pos = tmp,							\
	     tmp = list_entry(tmp->member.next, __typeof__(*tmp), member))

#endif /* COWCTX_LIST_H */
