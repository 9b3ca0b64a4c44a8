// SPDX-License-Identifier: GPL-2.0
/*
 * The tree's live anon_vma and anon_vma_chain objects, by the pointer
 * the kmem events carry. Counting pointers, not events, lets a free of
 * an object the tree did not allocate (the pre-exec copy of the
 * recorder's own memory, torn down at the first exec) count for nothing.
 * Open addressing with linear probing, deletion by backward shift.
 */
#include <stdlib.h>

#include "kernel/record.h"

static size_t slot(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return key & (cap - 1);
}

static int grow(struct rec_ptrset *s)
{
	size_t ncap = s->cap ? s->cap * 2 : 1024, i;
	uint64_t *nk = calloc(ncap, sizeof(*nk));

	if (!nk)
		return -1;
	for (i = 0; i < s->cap; i++) {
		size_t j;

		if (!s->keys[i])
			continue;
		for (j = slot(s->keys[i], ncap); nk[j]; j = (j + 1) & (ncap - 1))
			;
		nk[j] = s->keys[i];
	}
	free(s->keys);
	s->keys = nk;
	s->cap = ncap;
	return 0;
}

/* 0 marks an empty slot, so the key 0 lives beside the table */
int rec_ptrset_add(struct rec_ptrset *s, uint64_t key)
{
	size_t i;

	if (!key) {
		s->nr += !s->has_zero;
		s->has_zero = true;
		return 0;
	}
	if ((s->nr + 1) * 2 > s->cap && grow(s))
		return -1;
	for (i = slot(key, s->cap); s->keys[i]; i = (i + 1) & (s->cap - 1))
		if (s->keys[i] == key)
			return 0;
	s->keys[i] = key;
	s->nr++;
	return 0;
}

bool rec_ptrset_del(struct rec_ptrset *s, uint64_t key)
{
	size_t i, j;

	if (!key) {
		if (!s->has_zero)
			return false;
		s->has_zero = false;
		s->nr--;
		return true;
	}
	if (!s->cap)
		return false;
	for (i = slot(key, s->cap); s->keys[i] != key;
	     i = (i + 1) & (s->cap - 1))
		if (!s->keys[i])
			return false;
	s->keys[i] = 0;
	s->nr--;
	/* pull back every later key of the run that may no longer be found */
	for (j = (i + 1) & (s->cap - 1); s->keys[j]; j = (j + 1) & (s->cap - 1)) {
		size_t home = slot(s->keys[j], s->cap);

		if ((j > i && (home <= i || home > j)) ||
		    (j < i && home <= i && home > j)) {
			s->keys[i] = s->keys[j];
			s->keys[j] = 0;
			i = j;
		}
	}
	return true;
}

void rec_ptrset_free(struct rec_ptrset *s)
{
	free(s->keys);
	s->keys = NULL;
	s->cap = s->nr = 0;
	s->has_zero = false;
}
