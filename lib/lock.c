// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>

#include <cowctx/bug.h>
#include <cowctx/lock.h>

static void lock_bug(const char *what, const struct rw_semaphore *sem)
{
	cowctx_bug("lock", "%s on %s", what,
		   sem->stat ? sem->stat->name : "(unnamed lock)");
}

void init_rwsem(struct rw_semaphore *sem, struct lock_stat *stat)
{
	sem->readers = 0;
	sem->writer = false;
	sem->touched = 0;
	sem->stat = stat;
	sem->line = NULL;
}

static void max_touched(struct lock_stat *s, unsigned long touched)
{
	if (s && touched > s->max_touched)
		s->max_touched = touched;
}

static void end_hold(struct rw_semaphore *sem)
{
	if (sem->stat) {
		max_touched(sem->stat, sem->touched);
		max_touched(sem->stat->family, sem->touched);
	}
	sem->touched = 0;
}

static void acquired(struct rw_semaphore *sem, bool write)
{
	struct lock_stat *s = sem->stat;

	if (!s)
		return;
	if (write)
		s->write_acquired++;
	else
		s->read_acquired++;
	if (s->family && write)
		s->family->write_acquired++;
	else if (s->family)
		s->family->read_acquired++;
	if (sem->line && s->lines)
		family_line_write(s->lines, sem->line);
}

void down_read(struct rw_semaphore *sem)
{
	if (sem->writer)
		lock_bug("down_read while write-held (deadlock)", sem);
	/* nested readers on one thread are how rmap walks recurse: allowed */
	sem->readers++;
	acquired(sem, false);
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
	acquired(sem, true);
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
	if (sem->stat) {
		sem->stat->objects_touched += n;
		if (sem->stat->family)
			sem->stat->family->objects_touched += n;
	}
}

void family_line_write(struct family_stat *fs, struct family_line *line)
{
	fs->line_writes++;
	if (line->written && line->last_writer != fs->writer)
		fs->line_transfers++;
	line->written = true;
	line->last_writer = fs->writer;
}

void family_atomic(struct family_stat *fs, struct family_line *line)
{
	fs->atomics++;
	family_line_write(fs, line);
}

void lock_stat_print_json(FILE *out, const char *name,
			  const struct lock_stat *s)
{
	fprintf(out, "\"%s\": {\"read\": %lu, \"write\": %lu, "
		"\"objects_touched\": %lu, \"max_touched\": %lu}",
		name, s->read_acquired, s->write_acquired,
		s->objects_touched, s->max_touched);
}

void family_print_json(FILE *out, const struct lock_stat *locks,
		       const struct family_stat *fs)
{
	fprintf(out, "\"family\": {\"acquisitions\": %lu, \"read\": %lu, "
		"\"write\": %lu, \"objects_touched\": %lu, "
		"\"max_touched\": %lu, \"atomics\": %lu, "
		"\"line_writes\": %lu, \"line_transfers\": %lu}",
		locks->read_acquired + locks->write_acquired,
		locks->read_acquired, locks->write_acquired,
		locks->objects_touched, locks->max_touched, fs->atomics,
		fs->line_writes, fs->line_transfers);
}
