/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Locks placed where Linux places them. The model is single-threaded
 * today, so a lock here checks its own use (abort on a double acquire
 * or a release without acquire) and counts: acquisitions, and objects
 * touched while held, which is how lock scope is measured.
 *
 * What processes of one fork family share costs more than what each
 * keeps to itself: a shared lock serialises them, and every write to a
 * cacheline another CPU wrote last must fetch the line first. So the
 * locks and atomics that a family shares (anon_vma's root rwsem and
 * refcount, a COW context's refcount, children lock and remap lock)
 * also count in their model's family figures, the same terms for every
 * backend: the family lock_stat (acquisitions, objects touched while
 * held), and a struct family_stat for the writes to their cachelines.
 */
#ifndef COWCTX_LOCK_H
#define COWCTX_LOCK_H

#include <stdbool.h>
#include <stdio.h>

struct family_stat;

struct lock_stat {
	const char *name;
	unsigned long read_acquired;
	unsigned long write_acquired;
	unsigned long objects_touched;	/* while held, as reported by users */
	unsigned long max_touched;	/* most objects touched in one hold */
	/*
	 * A family-shared lock's kind: its acquisitions and objects count
	 * in @family too (unless this is that stat), and, for a lock with
	 * a ->line, each acquisition is a write to that line in @lines.
	 */
	struct lock_stat *family;
	struct family_stat *lines;
};

/*
 * One cacheline holding a family-shared lock word or atomic counter:
 * who wrote it last. Each process runs on its own CPU (the case that
 * scales), and rmap walks on another (reclaim's), so a write by anyone
 * but the last writer is a transfer of the line between CPUs.
 */
struct family_line {
	const void *last_writer;
	bool written;
};

struct family_stat {
	unsigned long atomics;		/* read-modify-writes of shared counters */
	unsigned long line_writes;	/* those, and shared lock acquisitions */
	unsigned long line_transfers;	/* writes after another writer's */
	/* the writer now: the mm in a system call or fault, NULL in a walk */
	const void *writer;
};

struct rw_semaphore {
	int readers;
	bool writer;
	unsigned long touched;	/* in the current hold */
	struct lock_stat *stat;
	struct family_line *line;	/* family-shared: its cacheline */
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

/* A new object's @line: in its creator's cache, no transfer yet */
static inline void family_line_init(struct family_stat *fs,
				    struct family_line *line)
{
	line->written = true;
	line->last_writer = fs->writer;
}

/* A write to a family-shared @line by @fs->writer */
void family_line_write(struct family_stat *fs, struct family_line *line);
/* An atomic read-modify-write (a refcount) on a family-shared @line */
void family_atomic(struct family_stat *fs, struct family_line *line);

/* --json: "NAME": {"read": N, "write": N, "objects_touched": N, ...} */
void lock_stat_print_json(FILE *out, const char *name,
			  const struct lock_stat *s);
/*
 * --json: "family": the family-shared locks' acquisitions and objects
 * (@locks) with the writes to family-shared lines (@fs); see README.
 */
void family_print_json(FILE *out, const struct lock_stat *locks,
		       const struct family_stat *fs);

#define spin_lock_init(l, stat)	init_rwsem(l, stat)
#define spin_lock(l)		down_write(l)
#define spin_unlock(l)		up_write(l)

#endif /* COWCTX_LOCK_H */
