// SPDX-License-Identifier: GPL-2.0
/* The scenario's files in a private directory; see files.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/files.h"

/*
 * Beyond the furthest byte a mapping can reach: a read fault maps the
 * cached pages around it (fault-around, 64K), and nothing past EOF.
 */
#define KFILE_SLACK	(256UL << 10)

static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

static unsigned long add_sat(unsigned long a, unsigned long b)
{
	return a + b < a ? ~0UL : a + b;
}

/*
 * file_mmap_ok(): a mapping must end within MAX_LFS_FILESIZE (LLONG_MAX
 * here), or mmap() fails with EOVERFLOW whatever the file's size, so
 * such a mapping needs no bytes of it.
 */
static bool mmap_overflows(const struct stmt *st)
{
	return st->len > LLONG_MAX ||
	       st->offset / 4096 > (LLONG_MAX - st->len) / 4096;
}

unsigned long kfile_size(const struct scenario *sc, const char *name,
			 int *stmt)
{
	unsigned long need = 0, growth = 0;
	int i;

	*stmt = -1;
	/* an mremap may grow any VMA, so any file may need all growths */
	for (i = 0; i < sc->nr; i++) {
		const struct stmt *st = &sc->stmts[i];

		if (st->kind == STMT_MREMAP && st->new_len > st->len)
			growth = add_sat(growth, st->new_len - st->len);
		if (st->kind != STMT_MMAP || !st->is_file ||
		    strcmp(st->file, name) || mmap_overflows(st))
			continue;
		if (*stmt < 0 || st->offset + st->len > need) {
			need = st->offset + st->len;
			*stmt = i;
		}
	}
	return add_sat(add_sat(need, growth), KFILE_SLACK);
}

static bool known(const struct kfiles *f, const char *name)
{
	int i;

	for (i = 0; i < f->nr; i++)
		if (!strcmp(f->names[i], name))
			return true;
	return false;
}

static int write_file(const char *path, unsigned long size, char *why,
		      size_t whylen)
{
	static char page[4096];
	unsigned long off;
	int fd, err = 0;

	memset(page, 0x5a, sizeof(page));
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		say(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* one page per write: the page cache then holds order-0 folios */
	for (off = 0; off < size && !err; off += sizeof(page))
		if (pwrite(fd, page, sizeof(page), (off_t)off) != sizeof(page))
			err = errno ? errno : EIO;
	if (!err && fsync(fd))
		err = errno;
	if (close(fd) && !err)
		err = errno;
	if (err) {
		say(why, whylen, "%s: %s", path, strerror(err));
		return -1;
	}
	return 0;
}

int kfiles_create(struct kfiles *f, const struct scenario *sc, char *why,
		  size_t whylen)
{
	const char *tmp = getenv("TMPDIR");
	int i;

	memset(f, 0, sizeof(*f));
	if (!tmp || !tmp[0])
		tmp = "/tmp";
	if (snprintf(f->dir, sizeof(f->dir), "%s/cowctx-kernel.XXXXXX",
		     tmp) >= (int)sizeof(f->dir) || !mkdtemp(f->dir)) {
		say(why, whylen, "mkdtemp in %s: %s", tmp, strerror(errno));
		return -1;
	}
	f->made = true;
	for (i = 0; i < sc->nr; i++) {
		const struct stmt *st = &sc->stmts[i];
		char path[PATH_MAX + SCN_NAME_MAX + 2];
		unsigned long size;
		int far;
		void *n;

		if (st->kind != STMT_MMAP || !st->is_file ||
		    known(f, st->file))
			continue;
		size = kfile_size(sc, st->file, &far);
		if (size > KFILE_MAX_BYTES) {
			f->stmt = far >= 0 ? far : i;
			say(why, whylen, "file %s would need %lu bytes (the furthest mapping's end, every mremap's growth and %lu more for fault-around), over the %lu this runner makes",
			    st->file, size, KFILE_SLACK, KFILE_MAX_BYTES);
			return -2;	/* the scenario's limit, not the machine's */
		}
		size = (size + 4095) & ~4095UL;
		n = realloc(f->names, (f->nr + 1) * sizeof(*f->names));
		if (!n) {
			say(why, whylen, "out of memory");
			return -1;
		}
		f->names = n;
		snprintf(f->names[f->nr++], SCN_NAME_MAX, "%s", st->file);
		snprintf(path, sizeof(path), "%s/%s", f->dir, st->file);
		if (write_file(path, size, why, whylen))
			return -1;
	}
	return 0;
}

void kfiles_remove(struct kfiles *f)
{
	int i;

	for (i = 0; i < f->nr; i++) {
		char path[PATH_MAX + SCN_NAME_MAX + 2];

		snprintf(path, sizeof(path), "%s/%s", f->dir, f->names[i]);
		unlink(path);
	}
	if (f->made)
		rmdir(f->dir);
	free(f->names);
	f->names = NULL;
	f->nr = 0;
	f->made = false;
}
