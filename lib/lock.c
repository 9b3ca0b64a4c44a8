// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>

#include <cowctx/lock.h>

static void lock_bug(const char *what, const struct rw_semaphore *sem)
{
	fprintf(stderr, "lock bug: %s on %s\n", what,
		sem->stat ? sem->stat->name : "(unnamed lock)");
	abort();
}

void init_rwsem(struct rw_semaphore *sem, struct lock_stat *stat)
{
	sem->readers = 0;
	sem->writer = false;
	sem->touched = 0;
	sem->stat = stat;
}

static void end_hold(struct rw_semaphore *sem)
{
	if (sem->stat && sem->touched > sem->stat->max_touched)
		sem->stat->max_touched = sem->touched;
	sem->touched = 0;
}

void down_read(struct rw_semaphore *sem)
{
	if (sem->writer)
		lock_bug("down_read while write-held (deadlock)", sem);
	/* nested readers on one thread are how rmap walks recurse: allowed */
	sem->readers++;
	if (sem->stat)
		sem->stat->read_acquired++;
}

void up_read(struct rw_semaphore *sem)
{
	if (sem->readers <= 0)
		lock_bug("up_read without down_read", sem);
	if (--sem->readers == 0)
		end_hold(sem);
}

void down_write(struct rw_semaphore *sem)
{
	if (sem->writer || sem->readers)
		lock_bug("down_write while held (deadlock)", sem);
	sem->writer = true;
	if (sem->stat)
		sem->stat->write_acquired++;
}

void up_write(struct rw_semaphore *sem)
{
	if (!sem->writer)
		lock_bug("up_write without down_write", sem);
	sem->writer = false;
	end_hold(sem);
}

bool rwsem_is_locked(const struct rw_semaphore *sem)
{
	return sem->writer || sem->readers;
}

void lock_touch(struct rw_semaphore *sem, unsigned long n)
{
	if (!rwsem_is_locked(sem))
		lock_bug("object touched without the lock", sem);
	sem->touched += n;
	if (sem->stat)
		sem->stat->objects_touched += n;
}
