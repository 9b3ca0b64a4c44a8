/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Locks placed where Linux places them. The model is single-threaded
 * today, so a lock here checks its own use (abort on a double acquire
 * or a release without acquire) and counts: acquisitions, and objects
 * touched while held, which is how lock scope is measured.
 */
#ifndef COWCTX_LOCK_H
#define COWCTX_LOCK_H

#include <stdbool.h>

struct lock_stat {
	const char *name;
	unsigned long read_acquired;
	unsigned long write_acquired;
	unsigned long objects_touched;	/* while held, as reported by users */
	unsigned long max_touched;	/* most objects touched in one hold */
};

struct rw_semaphore {
	int readers;
	bool writer;
	unsigned long touched;	/* in the current hold */
	struct lock_stat *stat;
};

typedef struct rw_semaphore spinlock_t;	/* same accounting */

void init_rwsem(struct rw_semaphore *sem, struct lock_stat *stat);
void down_read(struct rw_semaphore *sem);
void up_read(struct rw_semaphore *sem);
void down_write(struct rw_semaphore *sem);
void up_write(struct rw_semaphore *sem);
bool rwsem_is_locked(const struct rw_semaphore *sem);
/* Record that @n objects were visited or changed under @sem. */
void lock_touch(struct rw_semaphore *sem, unsigned long n);

#define spin_lock_init(l, stat)	init_rwsem(l, stat)
#define spin_lock(l)		down_write(l)
#define spin_unlock(l)		up_write(l)

#endif /* COWCTX_LOCK_H */
