// SPDX-License-Identifier: GPL-2.0
/*
 * The comparison of one point of a scenario, kernel against model.
 *
 * Sharing is compared as two partitions of the same mappings: every
 * (process, address) mapped on both sides falls in one class by real
 * PFN and in one class by model folio. The two agree exactly when each
 * PFN class is one folio class: then PFNs and folios correspond one to
 * one with identical mapping sets. A mapping in a class that is not
 * matched this way is a sharing difference, and so is one whose page
 * differs in kind (zero, file, anonymous), in pagemap's exclusive bit
 * (mapped once) or in its mapcount.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cowctx/mm.h>
#include "kernel/compare.h"
#include <cowctx/rmap.h>

struct vdesc {
	unsigned long start;
	unsigned long end;
	int prot;
	const char *file;	/* NULL: anonymous */
	unsigned long offset;	/* file offset in bytes */
	bool dontcopy;
	bool wipeonfork;
	bool has_flags;
};

struct pair {
	int proc;		/* index in the kernel snapshot */
	unsigned long addr;
	const struct kpage *kp;
	const struct folio *folio;
	int kclass;
	int mclass;
};

struct cmp_ctx {
	struct kcompare *c;
	struct ksnap *ks;
	const char *where;
	long told;
	long untold;
};

__attribute__((format(printf, 2, 3)))
static void tell(struct cmp_ctx *x, const char *fmt, ...)
{
	va_list ap;

	if (!x->c->out)
		return;
	if (x->told >= x->c->max_report) {
		x->untold++;
		return;
	}
	x->told++;
	fprintf(x->c->out, "%s: ", x->where);
	va_start(ap, fmt);
	vfprintf(x->c->out, fmt, ap);
	va_end(ap);
	fputc('\n', x->c->out);
}

static const char *prot_str(int prot, char *buf)
{
	buf[0] = prot & PROT_READ ? 'r' : '-';
	buf[1] = prot & PROT_WRITE ? 'w' : '-';
	buf[2] = prot & PROT_EXEC ? 'x' : '-';
	buf[3] = '\0';
	return buf;
}

static void vdesc_str(const struct vdesc *v, char *buf, size_t len)
{
	char pb[4], fb[KVMA_PATH_MAX + 40];

	if (v->file)
		snprintf(fb, sizeof(fb), "file=%s offset %#lx", v->file,
			 v->offset);
	else
		snprintf(fb, sizeof(fb), "anon");
	snprintf(buf, len, "%#lx-%#lx %s %s%s%s", v->start, v->end,
		 prot_str(v->prot, pb), fb, v->dontcopy ? " dontfork" : "",
		 v->wipeonfork ? " wipeonfork" : "");
}

static void kernel_vdesc(const struct kcompare *c, const struct kvma *k,
			 struct vdesc *v)
{
	size_t dl = strlen(c->filedir);

	memset(v, 0, sizeof(*v));
	v->start = k->start;
	v->end = k->end;
	v->prot = k->prot;
	if (k->path[0]) {
		v->file = k->path;
		if (!strncmp(k->path, c->filedir, dl) && k->path[dl] == '/')
			v->file = k->path + dl + 1;
		v->offset = k->offset;
	}
	v->dontcopy = k->dontcopy;
	v->wipeonfork = k->wipeonfork;
	v->has_flags = k->has_vmflags;
}

static void model_vdesc(const struct vm_area_struct *vma, struct vdesc *v)
{
	memset(v, 0, sizeof(*v));
	v->start = vma->vm_start;
	v->end = vma->vm_end;
	v->prot = (vma->vm_flags & VM_READ ? PROT_READ : 0) |
		  (vma->vm_flags & VM_WRITE ? PROT_WRITE : 0) |
		  (vma->vm_flags & VM_EXEC ? PROT_EXEC : 0);
	if (vma->vm_file) {
		/* shmem_zero_setup()'s file, as /proc/PID/maps names it */
		v->file = vma->vm_file->shmem ? "/dev/zero (deleted)" :
			  vma->vm_file->f_name;
		v->offset = vma->vm_pgoff << PAGE_SHIFT;
	}
	v->dontcopy = vma->vm_flags & VM_DONTCOPY;
	v->wipeonfork = vma->vm_flags & VM_WIPEONFORK;
	v->has_flags = true;
}

static bool vdesc_equal(const struct vdesc *a, const struct vdesc *b)
{
	if (a->start != b->start || a->end != b->end || a->prot != b->prot)
		return false;
	if (!a->file != !b->file)
		return false;
	if (a->file && (strcmp(a->file, b->file) || a->offset != b->offset))
		return false;
	if (a->has_flags && b->has_flags &&
	    (a->dontcopy != b->dontcopy || a->wipeonfork != b->wipeonfork))
		return false;
	return true;
}

/* A merge walk of two sorted VMA lists: each unmatched one is a difference */
static void compare_vmas(struct cmp_ctx *x, const struct kproc_snap *ps,
			 struct mm_struct *mm)
{
	unsigned long j = 0, nr_model = mm->mm_mt.nr;
	int i = 0;

	while (i < ps->nr_vmas || j < nr_model) {
		struct vdesc k, m;
		char kb[KVMA_PATH_MAX + 96], mb[KVMA_PATH_MAX + 96];

		if (i < ps->nr_vmas)
			kernel_vdesc(x->c, &ps->vmas[i], &k);
		if (j < nr_model)
			model_vdesc(mm->mm_mt.vmas[j], &m);
		if (i < ps->nr_vmas && j < nr_model && vdesc_equal(&k, &m)) {
			i++;
			j++;
			continue;
		}
		x->c->vma_mismatches++;
		if (i < ps->nr_vmas && j < nr_model && k.start == m.start) {
			vdesc_str(&k, kb, sizeof(kb));
			vdesc_str(&m, mb, sizeof(mb));
			tell(x, "vma: %s: kernel has %s, model has %s",
			     ps->name, kb, mb);
			i++;
			j++;
		} else if (j >= nr_model ||
			   (i < ps->nr_vmas && k.start < m.start)) {
			vdesc_str(&k, kb, sizeof(kb));
			tell(x, "vma: %s: kernel has %s, model has no VMA there",
			     ps->name, kb);
			i++;
		} else {
			vdesc_str(&m, mb, sizeof(mb));
			tell(x, "vma: %s: model has %s, kernel has no VMA there",
			     ps->name, mb);
			j++;
		}
	}
}

static bool folio_is_zero(const struct folio *f)
{
	return folio_test_flag(f, PG_zero);
}

/* The model has order-0 folios only: THP or a large page-cache folio */
static bool kpage_large(const struct kpage *p)
{
	return kpage_flag(p, KPF_COMPOUND_HEAD) ||
	       kpage_flag(p, KPF_COMPOUND_TAIL);
}

static void kpage_str(const struct kpage *p, char *buf, size_t len)
{
	if (p && !kpage_present(p) && (p->pm & PM_SWAP)) {
		snprintf(buf, len, "a swapped-out page");
		return;
	}
	if (!p || !kpage_present(p)) {
		snprintf(buf, len, "no page");
		return;
	}
	if (kpage_flag(p, KPF_ZERO_PAGE)) {
		snprintf(buf, len, "the zero page");
		return;
	}
	snprintf(buf, len, "pfn %#lx (%s%s%s, mapcount %" PRIu64 ")",
		 kpage_pfn(p), kpage_flag(p, KPF_ANON) ? "anon" : "file",
		 kpage_large(p) ? ", in a large folio" : "",
		 p->pm & PM_EXCLUSIVE ? ", exclusive" : "", p->kcount);
}

static void folio_str(const struct folio *f, char *buf, size_t len)
{
	if (!f) {
		snprintf(buf, len, "no page");
		return;
	}
	if (folio_is_zero(f)) {
		snprintf(buf, len, "the zero page");
		return;
	}
	if (folio_test_anon(f)) {
		snprintf(buf, len, "folio %lu (anon, mapcount %d)", f->pfn,
			 folio_mapcount(f));
		return;
	}
	snprintf(buf, len, "folio %lu (file %s page %lu, mapcount %d)", f->pfn,
		 f->mapping ? ((struct address_space *)f->mapping)->host->f_name :
		 "?", f->index, folio_mapcount(f));
}

struct pair_vec {
	struct pair *v;
	size_t nr;
	size_t cap;
};

static int push_pair(struct pair_vec *pv, const struct pair *p)
{
	if (pv->nr == pv->cap) {
		size_t cap = pv->cap ? pv->cap * 2 : 256;
		struct pair *v = realloc(pv->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		pv->v = v;
		pv->cap = cap;
	}
	pv->v[pv->nr++] = *p;
	return 0;
}

/*
 * Every page of @ps's VMAs that the model's mm has a VMA for too.
 * Presence differences are told here; pairs mapped on both sides are
 * collected for the class comparison.
 */
static int collect(struct cmp_ctx *x, int proc, struct mm_struct *mm,
		   struct pair_vec *pv)
{
	struct kproc_snap *ps = &x->ks->procs[proc];
	unsigned long j;

	for (j = 0; j < ps->nr_pages; j++) {
		const struct kpage *kp = &ps->pages[j];
		const struct folio *f = NULL;
		bool kpresent = kpage_present(kp);
		pte_t *ptep;

		if (!vma_lookup(mm, kp->addr))
			continue;
		x->c->pages_compared++;
		ptep = pte_lookup(mm, kp->addr);
		if (ptep)
			f = ptep->folio;
		if (kpresent && f) {
			struct pair p = {
				.proc = proc, .addr = kp->addr,
				.kp = kp, .folio = f,
			};

			if (push_pair(pv, &p))
				return -ENOMEM;
		} else if (kpresent || f) {
			char kb[96], mb[96];

			kpage_str(kp, kb, sizeof(kb));
			folio_str(f, mb, sizeof(mb));
			x->c->sharing_mismatches++;
			tell(x, "sharing: %s %#lx: kernel has %s, model has %s",
			     ps->name, kp->addr, kb, mb);
		}
	}
	return 0;
}

static int by_pfn(const void *a, const void *b)
{
	const struct pair *x = *(const struct pair *const *)a;
	const struct pair *y = *(const struct pair *const *)b;
	unsigned long px = kpage_pfn(x->kp), py = kpage_pfn(y->kp);

	if (px != py)
		return px < py ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_folio(const void *a, const void *b)
{
	const struct pair *x = *(const struct pair *const *)a;
	const struct pair *y = *(const struct pair *const *)b;

	if (x->folio != y->folio)
		return (uintptr_t)x->folio < (uintptr_t)y->folio ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Number the classes of @sorted (same PFN, or same folio) into
 * ->kclass or ->mclass, and mark in @clean those whose members all
 * agree on the other side's key.
 */
static int classify(struct pair **sorted, size_t nr, bool by_kernel,
		    bool **cleanp)
{
	bool *clean = calloc(nr ? nr : 1, sizeof(*clean));
	size_t i, start;
	int cls = -1;

	if (!clean)
		return -ENOMEM;
	for (i = 0; i < nr; i = start) {
		bool same = true;

		cls++;
		for (start = i; start < nr; start++) {
			struct pair *p = sorted[start];

			if (by_kernel ? kpage_pfn(p->kp) != kpage_pfn(sorted[i]->kp)
				      : p->folio != sorted[i]->folio)
				break;
			if (by_kernel)
				p->kclass = cls;
			else
				p->mclass = cls;
			if (by_kernel ? p->folio != sorted[i]->folio
				      : kpage_pfn(p->kp) != kpage_pfn(sorted[i]->kp))
				same = false;
		}
		clean[cls] = same;
	}
	*cleanp = clean;
	return 0;
}

/* "A 0x100000000000 -> folio 3 (anon, mapcount 1), B ..." */
static void tell_class(struct cmp_ctx *x, struct pair **sorted, size_t nr,
		       size_t i, bool by_kernel)
{
	char line[1024], what[96];
	size_t off = 0, j;

	if (by_kernel)
		kpage_str(sorted[i]->kp, what, sizeof(what));
	else
		folio_str(sorted[i]->folio, what, sizeof(what));
	line[0] = '\0';
	for (j = i; j < nr && off < sizeof(line) - 1; j++) {
		const struct pair *p = sorted[j];
		char other[96];

		if (by_kernel ? p->kclass != sorted[i]->kclass :
		    p->mclass != sorted[i]->mclass)
			break;
		if (by_kernel)
			folio_str(p->folio, other, sizeof(other));
		else
			kpage_str(p->kp, other, sizeof(other));
		off += snprintf(line + off, sizeof(line) - off, "%s%s %#lx -> %s",
				j == i ? "" : ", ", x->ks->procs[p->proc].name,
				p->addr, other);
	}
	tell(x, "sharing: %s %s is mapped by %zu: the %s has %s", by_kernel ?
	     "kernel" : "model", what, j - i, by_kernel ? "model" : "kernel",
	     line);
}

/* Kind, exclusive bit and mapcount of one mapping: true if they agree */
static bool pair_attrs_agree(struct cmp_ctx *x, const struct pair *p)
{
	const struct kpage *kp = p->kp;
	const struct folio *f = p->folio;
	const char *name = x->ks->procs[p->proc].name;
	bool kzero = kpage_flag(kp, KPF_ZERO_PAGE), mzero = folio_is_zero(f);
	char kb[96], mb[96];
	const char *what = NULL;

	if (kzero != mzero)
		what = "zero page";
	else if (!kzero && kpage_large(kp))
		what = "folio size";
	else if (!kzero && kpage_flag(kp, KPF_ANON) != folio_test_anon(f))
		what = "kind";
	else if (!kzero && !!(kp->pm & PM_EXCLUSIVE) != (folio_mapcount(f) == 1))
		what = "exclusive bit";
	else if (!kzero && (long)kp->kcount != folio_mapcount(f))
		what = "mapcount";
	if (!what)
		return true;
	kpage_str(kp, kb, sizeof(kb));
	folio_str(f, mb, sizeof(mb));
	tell(x, "sharing: %s %#lx: %s differs: kernel has %s, model has %s",
	     name, p->addr, what, kb, mb);
	return false;
}

static int compare_sharing(struct cmp_ctx *x, struct pair_vec *pv)
{
	struct pair **kord, **mord;
	bool *kclean = NULL, *mclean = NULL, *told_m = NULL;
	size_t i, nr = pv->nr;
	int ret = -ENOMEM;

	kord = malloc((nr ? nr : 1) * sizeof(*kord));
	mord = malloc((nr ? nr : 1) * sizeof(*mord));
	told_m = calloc(nr ? nr : 1, sizeof(*told_m));
	if (!kord || !mord || !told_m)
		goto out;
	for (i = 0; i < nr; i++)
		kord[i] = mord[i] = &pv->v[i];
	qsort(kord, nr, sizeof(*kord), by_pfn);
	qsort(mord, nr, sizeof(*mord), by_folio);
	if (classify(kord, nr, true, &kclean) ||
	    classify(mord, nr, false, &mclean))
		goto out;
	/* kernel classes that are not one folio's */
	for (i = 0; i < nr; i++) {
		if (kclean[kord[i]->kclass] ||
		    (i && kord[i - 1]->kclass == kord[i]->kclass))
			continue;
		tell_class(x, kord, nr, i, true);
	}
	/* folio classes spread over PFNs, unless told from the kernel side */
	for (i = 0; i < nr; i++)
		if (!kclean[mord[i]->kclass])
			told_m[mord[i]->mclass] = true;
	for (i = 0; i < nr; i++) {
		if (mclean[mord[i]->mclass] || told_m[mord[i]->mclass] ||
		    (i && mord[i - 1]->mclass == mord[i]->mclass))
			continue;
		tell_class(x, mord, nr, i, false);
	}
	for (i = 0; i < nr; i++) {
		const struct pair *p = &pv->v[i];
		bool bad = !kclean[p->kclass] || !mclean[p->mclass];

		if (!pair_attrs_agree(x, p))
			bad = true;
		if (bad)
			x->c->sharing_mismatches++;
	}
	ret = 0;
out:
	free(kord);
	free(mord);
	free(kclean);
	free(mclean);
	free(told_m);
	return ret;
}

int kcompare_memory(struct kcompare *c, struct ksnap *ks,
		    struct exec_state *es, const char *where)
{
	struct cmp_ctx x = { .c = c, .ks = ks, .where = where };
	struct pair_vec pv = { 0 };
	int i, ret = 0;

	c->checks++;
	for (i = 0; i < es->nr_procs; i++) {
		if (!ksnap_find(ks, es->procs[i].name)) {
			c->vma_mismatches++;
			tell(&x, "process %s: live in the model, not on the kernel",
			     es->procs[i].name);
		}
	}
	for (i = 0; i < ks->nr && !ret; i++) {
		struct exec_proc *ep = exec_find_proc(es, ks->procs[i].name);

		if (!ep) {
			c->vma_mismatches++;
			tell(&x, "process %s: live on the kernel, not in the model",
			     ks->procs[i].name);
			continue;
		}
		compare_vmas(&x, &ks->procs[i], ep->mm);
		ret = collect(&x, i, ep->mm, &pv);
	}
	if (!ret)
		ret = compare_sharing(&x, &pv);
	free(pv.v);
	if (x.untold && c->out)
		fprintf(c->out, "%s: ... and %ld more differences\n", where,
			x.untold);
	return ret;
}

static long model_live(const struct model *m, const char *type)
{
	int i;

	for (i = 0; i < m->acct.nr_types; i++)
		if (!strcmp(m->acct.type[i].name, type))
			return m->acct.type[i].live;
	return -1;
}

void kcompare_anon_vma(struct kcompare *c, struct model *m, long kernel_av,
		       long kernel_avc, const char *where)
{
	long mav = model_live(m, "anon_vma");
	long mavc = model_live(m, "anon_vma_chain");

	c->have_kernel_av = true;
	c->kernel_av = kernel_av;
	c->kernel_avc = kernel_avc;
	if (mav < 0 || mavc < 0 || strcmp(m->rmap->name, "anon_vma")) {
		c->have_model_av = false;
		return;
	}
	c->have_model_av = true;
	c->model_av = mav;
	c->model_avc = mavc;
	if (mav == kernel_av && mavc == kernel_avc)
		return;
	c->anon_vma_mismatches++;
	if (c->out)
		fprintf(c->out,
			"%s: anon_vma: kernel has %ld anon_vma and %ld anon_vma_chain live, model has %ld and %ld\n",
			where, kernel_av, kernel_avc, mav, mavc);
}
