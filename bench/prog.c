// SPDX-License-Identifier: GPL-2.0
/*
 * Building workload programs, and writing them out as scenarios so the
 * corpus runner can hold every generated workload to the oracle.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "bench/bench.h"

void prog_init(struct bench_prog *p)
{
	*p = (struct bench_prog){ 0 };
}

void prog_free(struct bench_prog *p)
{
	unsigned int i;

	for (i = 0; i < p->nr_files; i++)
		model_free(p->files[i]);
	model_free(p->files);
	model_free(p->ops);
	prog_init(p);
}

unsigned int prog_file(struct bench_prog *p, const char *name)
{
	size_t len = strlen(name) + 1;
	unsigned int i;
	char **nf;

	for (i = 0; i < p->nr_files; i++)
		if (!strcmp(p->files[i], name))
			return i;
	nf = model_realloc(p->files, (p->nr_files + 1) * sizeof(*nf));
	if (!nf) {
		p->err = -ENOMEM;
		return 0;
	}
	p->files = nf;
	nf[p->nr_files] = model_zalloc(len);
	if (!nf[p->nr_files]) {
		p->err = -ENOMEM;
		return 0;
	}
	memcpy(nf[p->nr_files], name, len);
	return p->nr_files++;
}

struct bench_op *prog_add(struct bench_prog *p, enum bench_op_type type,
			  unsigned int proc)
{
	struct bench_op *op;

	if (p->err)
		return NULL;
	if (p->nr == p->capacity) {
		size_t cap = p->capacity ? 2 * p->capacity : 256;
		struct bench_op *ops = model_realloc(p->ops, cap * sizeof(*ops));

		if (!ops) {
			p->err = -ENOMEM;
			return NULL;
		}
		p->ops = ops;
		p->capacity = cap;
	}
	op = &p->ops[p->nr++];
	*op = (struct bench_op){ .type = type, .proc = proc, .count = 1 };
	return op;
}

unsigned int prog_proc(struct bench_prog *p)
{
	unsigned int nr = p->nr_procs++;

	prog_add(p, OP_PROC, nr);
	return nr;
}

static struct bench_op *add_ranges(struct bench_prog *p,
				   enum bench_op_type type, unsigned int proc,
				   unsigned long addr, unsigned long len,
				   unsigned long count, unsigned long stride)
{
	struct bench_op *op = prog_add(p, type, proc);

	if (op) {
		op->addr = addr;
		op->len = len;
		op->count = count;
		op->stride = stride;
	}
	return op;
}

void prog_mmap(struct bench_prog *p, unsigned int proc, unsigned long addr,
	       unsigned long len, unsigned long count, unsigned long stride,
	       int prot)
{
	struct bench_op *op = add_ranges(p, OP_MMAP, proc, addr, len, count,
					 stride);

	if (op)
		op->prot = prot;
}

void prog_touch(struct bench_prog *p, unsigned int proc, unsigned long addr,
		unsigned long len, unsigned long count, unsigned long stride,
		bool write, unsigned int pct, unsigned int salt)
{
	struct bench_op *op;

	if (!pct)
		return;
	op = add_ranges(p, OP_TOUCH, proc, addr, len, count, stride);
	if (op) {
		op->write = write;
		op->pct = pct > 100 ? 100 : pct;
		op->salt = salt;
	}
}

void prog_mprotect(struct bench_prog *p, unsigned int proc,
		   unsigned long addr, unsigned long len, int prot)
{
	struct bench_op *op = add_ranges(p, OP_MPROTECT, proc, addr, len, 1,
					 0);

	if (op)
		op->prot = prot;
}

void prog_munmap(struct bench_prog *p, unsigned int proc, unsigned long addr,
		 unsigned long len)
{
	add_ranges(p, OP_MUNMAP, proc, addr, len, 1, 0);
}

void prog_mremap(struct bench_prog *p, unsigned int proc, unsigned long addr,
		 unsigned long len, unsigned long new_len,
		 unsigned long flags, unsigned long new_addr)
{
	struct bench_op *op = add_ranges(p, OP_MREMAP, proc, addr, len, 1, 0);

	if (op) {
		op->new_len = new_len;
		op->flags = flags;
		op->new_addr = new_addr;
	}
}

unsigned int prog_fork(struct bench_prog *p, unsigned int proc)
{
	struct bench_op *op = prog_add(p, OP_FORK, proc);
	unsigned int child = p->nr_procs++;

	if (op) {
		op->child = child;
		p->last_fork = p->nr;
	}
	return child;
}

void prog_exit(struct bench_prog *p, unsigned int proc)
{
	prog_add(p, OP_EXIT, proc);
}

void prog_simple(struct bench_prog *p, enum bench_op_type type)
{
	prog_add(p, type, 0);
}

/*
 * A fixed mix of the page number and the salt (splitmix64's finaliser):
 * the same pages on every run and every backend, spread evenly.
 */
bool touch_selects(const struct bench_op *op, unsigned long i)
{
	uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ULL + op->salt;

	if (op->pct >= 100)
		return true;
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 29;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 32;
	return x % 100 < op->pct;
}

static const char *prot_text(int prot)
{
	static const char *const text[8] = {
		"none", "r", "w", "rw", "x", "rx", "wx", "rwx",
	};

	return text[prot & 7];
}

/* the scenario language's words for the advice it has */
static const char *advice_text(int advice)
{
	switch (advice) {
	case MADV_DONTNEED:
		return "dontneed";
	case MADV_DONTFORK:
		return "dontfork";
	case MADV_DOFORK:
		return "dofork";
	case MADV_WIPEONFORK:
		return "wipeonfork";
	case MADV_KEEPONFORK:
		return "keeponfork";
	default:
		return "?";
	}
}

/* the selected pages of one touch range, coalesced into runs */
static void write_touch_range(const struct bench_op *op, unsigned long k,
			      FILE *out)
{
	unsigned long pages = op->len >> PAGE_SHIFT, i, run = 0;
	unsigned long start = op->addr + k * op->stride;

	for (i = 0; i <= pages; i++) {
		if (i < pages && touch_selects(op, k * pages + i)) {
			run++;
			continue;
		}
		if (run)
			fprintf(out, "p%u touch %#lx %#lx %s\n", op->proc,
				start + ((i - run) << PAGE_SHIFT),
				run << PAGE_SHIFT,
				op->write ? "write" : "read");
		run = 0;
	}
}

int prog_write_scenario(const struct bench_prog *p, FILE *out)
{
	size_t n;

	fprintf(out, "# generated by cowctx bench --scenario\n");
	for (n = 0; n < p->nr; n++) {
		const struct bench_op *op = &p->ops[n];
		unsigned long k;

		for (k = 0; k < op->count; k++) {
			unsigned long a = op->addr + k * op->stride;

			switch (op->type) {
			case OP_PROC:
				fprintf(out, "proc p%u\n", op->proc);
				break;
			case OP_MMAP:
				fprintf(out, "p%u mmap %#lx %#lx %s", op->proc,
					a, op->len, prot_text(op->prot));
				if (op->file)
					fprintf(out, " file=%s:%#lx",
						p->files[op->file_nr],
						op->offset + k * op->len);
				fputc('\n', out);
				break;
			case OP_TOUCH:
				write_touch_range(op, k, out);
				break;
			case OP_MPROTECT:
				fprintf(out, "p%u mprotect %#lx %#lx %s\n",
					op->proc, a, op->len,
					prot_text(op->prot));
				break;
			case OP_MUNMAP:
				fprintf(out, "p%u munmap %#lx %#lx\n", op->proc,
					a, op->len);
				break;
			case OP_MREMAP:
				fprintf(out, "p%u mremap %#lx %#lx %#lx",
					op->proc, a, op->len, op->new_len);
				if (op->flags & MREMAP_FIXED)
					fprintf(out, " to %#lx", op->new_addr);
				if (op->flags & MREMAP_DONTUNMAP)
					fprintf(out, " dontunmap");
				fputc('\n', out);
				break;
			case OP_FORK:
				fprintf(out, "p%u fork p%u\n", op->proc,
					op->child);
				break;
			case OP_EXIT:
				fprintf(out, "p%u exit\n", op->proc);
				break;
			case OP_WALK:
				fprintf(out, "check\n");
				break;
			case OP_SNAPSHOT:
				fprintf(out, "# steady state\n");
				break;
			case OP_MARK:
				fprintf(out, "# mark\n");
				break;
			case OP_MADVISE:
				fprintf(out, "p%u madvise %#lx %#lx %s\n",
					op->proc, a, op->len,
					advice_text((int)op->flags));
				break;
			}
		}
	}
	return ferror(out) ? -EIO : 0;
}
