// SPDX-License-Identifier: GPL-2.0
/*
 * The SysV segments an address space has attached, as a recording wrote
 * them: shmdt() names only the address, and the munmap it is written as
 * needs the length shmat() mapped there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/record.h"

int rec_shm_attach(struct rec_shm_set *s, unsigned long addr,
		   unsigned long len)
{
	if (s->nr == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 4;
		struct rec_shm_att *n = realloc(s->att, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->att = n;
		s->cap = ncap;
	}
	s->att[s->nr].addr = addr;
	s->att[s->nr].len = len;
	s->nr++;
	return 0;
}

unsigned long rec_shm_detach(struct rec_shm_set *s, unsigned long addr)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		unsigned long len = s->att[i].len;

		if (s->att[i].addr != addr)
			continue;
		s->att[i] = s->att[--s->nr];
		return len;
	}
	return 0;
}

int rec_shm_copy(struct rec_shm_set *dst, const struct rec_shm_set *src)
{
	size_t i;

	for (i = 0; i < src->nr; i++)
		if (rec_shm_attach(dst, src->att[i].addr, src->att[i].len))
			return -ENOMEM;
	return 0;
}

void rec_shm_free(struct rec_shm_set *s)
{
	free(s->att);
	memset(s, 0, sizeof(*s));
}
