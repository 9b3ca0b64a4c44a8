// SPDX-License-Identifier: GPL-2.0
/*
 * The scenario generator. Each statement is drawn at random, biased
 * towards the address ranges processes already use (so COW, remaps and
 * splits collide), checked against a shadow model for validity, then
 * applied to it and printed. The mix leans on what breaks reverse maps:
 * mremap chains across fork trees, moves back to where memory came
 * from, partial overlaps, and exits of interior processes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cowctx/mm.h>
#include <cowctx/rmap.h>
#include "scenario/gen.h"

#define GEN_BASE	0x100000000000UL
#define GEN_PAGES	768UL		/* the window everything lands in */
#define GEN_MAX_PROCS	10
#define GEN_FILES	3

struct gen_proc {
	char name[16];
	struct mm_struct *mm;
	unsigned long last_from, last_to, last_len;	/* for moves back */
	int id;		/* the number in its name */
	int parent;	/* its parent's id, or -1 */
};

struct gen {
	uint64_t rng;
	struct model *m;
	struct gen_proc procs[GEN_MAX_PROCS];
	int nr;
	int next_name;
	FILE *out;
};

/* xorshift64*: small, fast, and the same everywhere */
static uint64_t rnd(struct gen *g)
{
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 0x2545F4914F6CDD1DULL;
}

static unsigned long below(struct gen *g, unsigned long n)
{
	return n ? rnd(g) % n : 0;
}

static bool chance(struct gen *g, int percent)
{
	return below(g, 100) < (unsigned long)percent;
}

static const char *const prots[] = {
	"none", "r", "rw", "rx", "rwx", "w", "wx", "x",
};
static const int prot_bits[] = {
	PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE, PROT_READ | PROT_EXEC,
	PROT_READ | PROT_WRITE | PROT_EXEC, PROT_WRITE,
	PROT_WRITE | PROT_EXEC, PROT_EXEC,
};

/* A protection, mostly rw so that writes and COW happen */
static int pick_prot(struct gen *g)
{
	if (chance(g, 60))
		return 2;
	return (int)below(g, 8);
}

static struct gen_proc *pick_proc(struct gen *g)
{
	return &g->procs[below(g, g->nr)];
}

static struct vm_area_struct *pick_vma(struct gen *g, struct mm_struct *mm)
{
	if (!mm->mm_mt.nr)
		return NULL;
	return mm->mm_mt.vmas[below(g, mm->mm_mt.nr)];
}

/* A random page-aligned sub-range of @vma: [*addr, *addr + *len) */
static void sub_range(struct gen *g, struct vm_area_struct *vma,
		      unsigned long *addr, unsigned long *len)
{
	unsigned long pages = vma_pages(vma);
	unsigned long first = chance(g, 40) ? 0 : below(g, pages);
	unsigned long n = 1 + below(g, pages - first);

	if (chance(g, 30))
		n = pages - first;
	*addr = vma->vm_start + first * PAGE_SIZE;
	*len = n * PAGE_SIZE;
}

/* Is every page of [addr, addr + len) inside some VMA? */
static bool covered(struct mm_struct *mm, unsigned long addr,
		    unsigned long len, bool no_file)
{
	unsigned long end = addr + len;

	while (addr < end) {
		struct vm_area_struct *vma = vma_lookup(mm, addr);

		if (!vma || (no_file && vma->vm_file))
			return false;
		addr = vma->vm_end;
	}
	return true;
}

static bool range_free(struct mm_struct *mm, unsigned long addr,
		       unsigned long len)
{
	struct vm_area_struct *vma = find_vma(mm, addr);

	return !vma || vma->vm_start >= addr + len;
}

static unsigned long window_addr(struct gen *g, unsigned long max_pages)
{
	return GEN_BASE + below(g, GEN_PAGES - max_pages) * PAGE_SIZE;
}

static void emit(struct gen *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void emit(struct gen *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(g->out, fmt, ap);
	va_end(ap);
	fputc('\n', g->out);
}

static void must(int err, const char *what)
{

	if (err) {
		fprintf(stderr, "cowctx gen: generated an invalid %s (%d): generator bug\n",
			what, err);
		abort();
	}
}

static int gen_proc(struct gen *g)
{
	struct gen_proc *p = &g->procs[g->nr];

	p->id = g->next_name++;
	p->parent = -1;
	p->last_from = p->last_to = p->last_len = 0;
	snprintf(p->name, sizeof(p->name), "P%d", p->id);
	p->mm = mm_create(g->m, p->name);
	if (!p->mm)
		return -ENOMEM;
	g->nr++;
	emit(g, "proc %s", p->name);
	return 0;
}

static int gen_mmap(struct gen *g, struct gen_proc *p)
{
	unsigned long pages = 1 + below(g, 16), addr, len, off = 0;
	int prot = pick_prot(g), tries;
	bool file = chance(g, 15);
	struct file *f = NULL;
	char fname[8];

	len = pages * PAGE_SIZE;
	for (tries = 0; tries < 8; tries++) {
		addr = window_addr(g, pages);
		if (range_free(p->mm, addr, len))
			break;
	}
	if (tries == 8)
		return 0;
	if (file) {
		snprintf(fname, sizeof(fname), "f%lu", below(g, GEN_FILES));
		off = below(g, 64) * PAGE_SIZE;
		f = model_file(g->m, fname);
		if (!f)
			return -ENOMEM;
	}
	must(do_mmap(p->mm, addr, len, prot_bits[prot], f, off), "mmap");
	if (file)
		emit(g, "%s mmap %#lx %#lx %s file=%s:%#lx", p->name, addr,
		     len, prots[prot], fname, off);
	else
		emit(g, "%s mmap %#lx %#lx %s", p->name, addr, len,
		     prots[prot]);
	return 0;
}

static int gen_touch(struct gen *g, struct gen_proc *p)
{
	struct vm_area_struct *vma = pick_vma(g, p->mm);
	bool write = chance(g, 65);
	unsigned long addr, len, a;

	if (!vma)
		return 0;
	sub_range(g, vma, &addr, &len);
	/* every page of the range must allow the access */
	for (a = addr; a < addr + len; a += PAGE_SIZE) {
		struct vm_area_struct *v = vma_lookup(p->mm, a);

		if (!v || !(v->vm_flags & (write ? VM_WRITE : VM_ACCESS_FLAGS)))
			return 0;
	}
	for (a = addr; a < addr + len; a += PAGE_SIZE)
		must(handle_access(p->mm, a, write), "touch");
	emit(g, "%s touch %#lx %#lx %s", p->name, addr, len,
	     write ? "write" : "read");
	return 0;
}

static int gen_munmap(struct gen *g, struct gen_proc *p)
{
	struct vm_area_struct *vma = pick_vma(g, p->mm);
	unsigned long addr, len;

	if (!vma)
		return 0;
	sub_range(g, vma, &addr, &len);
	if (chance(g, 20))
		len += below(g, 8) * PAGE_SIZE;	/* spill over the end */
	must(do_munmap(p->mm, addr, len), "munmap");
	emit(g, "%s munmap %#lx %#lx", p->name, addr, len);
	return 0;
}

static int gen_mprotect(struct gen *g, struct gen_proc *p)
{
	struct vm_area_struct *vma = pick_vma(g, p->mm);
	unsigned long addr, len;
	int prot = pick_prot(g);

	if (!vma)
		return 0;
	sub_range(g, vma, &addr, &len);
	if (chance(g, 20) && covered(p->mm, addr, len + PAGE_SIZE, false))
		len += PAGE_SIZE;	/* into the next VMA: merges */
	must(do_mprotect(p->mm, addr, len, prot_bits[prot]), "mprotect");
	emit(g, "%s mprotect %#lx %#lx %s", p->name, addr, len, prots[prot]);
	return 0;
}

static int gen_madvise(struct gen *g, struct gen_proc *p)
{
	static const char *const names[] = {
		"dontneed", "dontfork", "dofork", "wipeonfork", "keeponfork",
	};
	static const int advice[] = {
		MADV_DONTNEED, MADV_DONTFORK, MADV_DOFORK, MADV_WIPEONFORK,
		MADV_KEEPONFORK,
	};
	struct vm_area_struct *vma = pick_vma(g, p->mm);
	unsigned long addr, len, i = below(g, 5);

	if (!vma)
		return 0;
	sub_range(g, vma, &addr, &len);
	if (!covered(p->mm, addr, len, advice[i] == MADV_WIPEONFORK))
		return 0;
	must(do_madvise(p->mm, addr, len, advice[i]), "madvise");
	emit(g, "%s madvise %#lx %#lx %s", p->name, addr, len, names[i]);
	return 0;
}

/*
 * A VMA whose anonymous pages sit away from their linear address (moved
 * after its first fault: anonymous or private file), if any
 */
static struct vm_area_struct *pick_moved_vma(struct gen *g,
					     struct mm_struct *mm)
{
	unsigned long i, n = mm->mm_mt.nr, start = below(g, n ? n : 1);

	for (i = 0; i < n; i++) {
		struct vm_area_struct *vma = mm->mm_mt.vmas[(start + i) % n];

		if (vma->anon_vma &&
		    anon_page_index(vma->vm_start) != vma_anon_pgoff(vma))
			return vma;
	}
	return NULL;
}

static struct gen_proc *find_parent(struct gen *g, struct gen_proc *p)
{
	int i;

	for (i = 0; i < g->nr; i++)
		if (g->procs[i].id == p->parent)
			return &g->procs[i];
	return NULL;
}

/* Moved pages are then written by the mover, and its parent writes too */
static void after_move(struct gen *g, struct gen_proc *p, unsigned long to,
		       unsigned long len)
{
	struct vm_area_struct *vma = vma_lookup(p->mm, to);
	struct gen_proc *parent;
	unsigned long a;

	if (vma && (vma->vm_flags & VM_WRITE) && vma->vm_end >= to + len &&
	    chance(g, 50)) {
		for (a = to; a < to + len; a += PAGE_SIZE)
			must(handle_access(p->mm, a, true), "touch");
		emit(g, "%s touch %#lx %#lx write", p->name, to, len);
	}
	parent = find_parent(g, p);
	if (parent && chance(g, 40))
		gen_touch(g, parent);
}

/*
 * Chains of moves across the fork tree: move again what was moved
 * (often inherited), and often straight back to where its offset is 0.
 */
static int gen_move_moved(struct gen *g, struct gen_proc *p)
{
	struct vm_area_struct *vma = pick_moved_vma(g, p->mm);
	unsigned long addr, len, to;

	if (!vma)
		return 1;
	sub_range(g, vma, &addr, &len);
	if (chance(g, 40))
		to = linear_anon_page_index(vma, addr) << PAGE_SHIFT;
	else
		to = window_addr(g, len / PAGE_SIZE);
	if (to < GEN_BASE || to + len > GEN_BASE + GEN_PAGES * PAGE_SIZE ||
	    (addr + len > to && to + len > addr))
		return 1;
	must(do_mremap(p->mm, addr, len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
		       to), "mremap");
	emit(g, "%s mremap %#lx %#lx %#lx to %#lx", p->name, addr, len, len,
	     to);
	after_move(g, p, to, len);
	return 0;
}

static int gen_mremap(struct gen *g, struct gen_proc *p)
{
	struct vm_area_struct *vma = pick_vma(g, p->mm);
	unsigned long addr, len, new_len, to;
	bool dontunmap = false;
	int kind = (int)below(g, 10);

	if (!vma)
		return 0;
	if (chance(g, 30) && !gen_move_moved(g, p))
		return 0;
	sub_range(g, vma, &addr, &len);
	if (kind < 2) {
		/* shrink in place */
		if (len == PAGE_SIZE)
			return 0;
		new_len = PAGE_SIZE * (1 + below(g, len / PAGE_SIZE - 1));
		must(do_mremap(p->mm, addr, len, new_len, 0, 0), "mremap");
		emit(g, "%s mremap %#lx %#lx %#lx", p->name, addr, len,
		     new_len);
		return 0;
	}
	if (kind < 4) {
		/* grow in place: only when the range ends the VMA */
		unsigned long extra = PAGE_SIZE * (1 + below(g, 8));

		len = vma->vm_end - addr;
		if (!range_free(p->mm, vma->vm_end, extra) ||
		    vma->vm_end + extra > GEN_BASE + GEN_PAGES * PAGE_SIZE)
			return 0;
		must(do_mremap(p->mm, addr, len, len + extra, 0, 0), "mremap");
		emit(g, "%s mremap %#lx %#lx %#lx", p->name, addr, len,
		     len + extra);
		return 0;
	}
	/* move; sometimes straight back to where it came from */
	new_len = len;
	if (kind == 9 && p->last_len && vma_lookup(p->mm, p->last_to) &&
	    p->last_to + p->last_len <= vma_lookup(p->mm, p->last_to)->vm_end) {
		addr = p->last_to;
		len = new_len = p->last_len;
		to = p->last_from;
	} else {
		if (chance(g, 25))
			new_len = PAGE_SIZE * (1 + below(g, 16));
		else if (chance(g, 25))
			/* a move without resize may span VMAs and gaps */
			len = new_len = len + PAGE_SIZE * below(g, 16);
		to = window_addr(g, new_len / PAGE_SIZE);
	}
	if (addr + len > to && to + new_len > addr)
		return 0;	/* overlapping ranges are EINVAL */
	if (new_len == len && chance(g, 15))
		dontunmap = true;
	must(do_mremap(p->mm, addr, len, new_len,
		       MREMAP_MAYMOVE | MREMAP_FIXED |
		       (dontunmap ? MREMAP_DONTUNMAP : 0), to), "mremap");
	p->last_from = addr;
	p->last_to = to;
	p->last_len = new_len < len ? new_len : len;
	emit(g, "%s mremap %#lx %#lx %#lx to %#lx%s", p->name, addr, len,
	     new_len, to, dontunmap ? " dontunmap" : "");
	return 0;
}

static int gen_fork(struct gen *g, struct gen_proc *p)
{
	struct gen_proc *c = &g->procs[g->nr];
	int err;

	if (g->nr == GEN_MAX_PROCS)
		return 0;
	c->id = g->next_name++;
	c->parent = p->id;
	snprintf(c->name, sizeof(c->name), "P%d", c->id);
	c->last_from = c->last_to = c->last_len = 0;
	err = mm_fork(p->mm, c->name, &c->mm);
	if (err)
		return err;
	g->nr++;
	emit(g, "%s fork %s", p->name, c->name);
	return 0;
}

/* Interior processes (with live children) exit more often than leaves */
static struct gen_proc *pick_exiting(struct gen *g, struct gen_proc *p)
{
	int i, j;

	if (!chance(g, 60))
		return p;
	for (i = 0; i < g->nr; i++) {
		struct gen_proc *q = &g->procs[(i + (int)below(g, g->nr)) % g->nr];

		for (j = 0; j < g->nr; j++)
			if (g->procs[j].parent == q->id)
				return q;
	}
	return p;
}

static void gen_exit(struct gen *g, struct gen_proc *p)
{
	emit(g, "%s exit", p->name);
	mm_exit(p->mm);
	*p = g->procs[--g->nr];
}

int scenario_gen(unsigned long seed, int ops, FILE *out)
{
	return scenario_gen_mode(seed, ops, false, out);
}

int scenario_gen_mode(unsigned long seed, int ops, bool forbids_zero_page,
		      FILE *out)
{
	struct gen g = { .rng = seed * 0x9E3779B97F4A7C15ULL + 1, .out = out };
	const struct rmap_ops *shadow;
	int i, err = 0;

	/*
	 * Validity is decided by Linux's own VMA layout, which anon_vma
	 * merges decide: backends that merge more accept all it accepts.
	 */
	shadow = rmap_backend_find("anon_vma");
	g.m = model_create(shadow ? shadow : &scan_rmap_ops);
	if (!g.m)
		return -ENOMEM;
	g.m->forbids_zero_page = forbids_zero_page;
	fprintf(out, "# cowctx gen --seed %lu --ops %d%s\n", seed, ops,
		forbids_zero_page ? " --zero-page=off" : "");
	if (forbids_zero_page)
		fprintf(out, "kernel zero_page=off\n");
	for (i = 0; i < ops && !err; i++) {
		struct gen_proc *p;
		unsigned long r;

		if (!g.nr) {
			err = gen_proc(&g);
			continue;
		}
		p = pick_proc(&g);
		r = below(&g, 100);
		if (r < 14)
			err = gen_mmap(&g, p);
		else if (r < 40)
			err = gen_touch(&g, p);
		else if (r < 48)
			err = gen_fork(&g, p);
		else if (r < 53)
			err = gen_munmap(&g, p);
		else if (r < 62)
			err = gen_mprotect(&g, p);
		else if (r < 67)
			err = gen_madvise(&g, p);
		else if (r < 82)
			err = gen_mremap(&g, p);
		else if (r < 86)
			gen_exit(&g, pick_exiting(&g, p));
		else if (r < 89 && g.nr < GEN_MAX_PROCS)
			err = gen_proc(&g);
		else if (r < 93)
			emit(&g, "check");
		else
			err = gen_touch(&g, p);
	}
	/* end with a check of the survivors, then everyone gone */
	emit(&g, "check");
	while (g.nr && !err && chance(&g, 50))
		gen_exit(&g, &g.procs[g.nr - 1]);
	model_destroy(g.m);
	return err;
}
