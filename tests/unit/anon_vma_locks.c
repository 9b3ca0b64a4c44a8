// SPDX-License-Identifier: GPL-2.0
/*
 * The anon_vma backend's root-lock acquisitions, operation by operation,
 * against counts read off Linux 6.12's source (the reference text; the
 * 6.18 functions named take the same locks), not off the model. Each
 * expectation names the kernel functions that take the root rwsem:
 *
 *  L1 mm/rmap.c:__anon_vma_prepare()	anon_vma_lock_write() once
 *  L2 mm/rmap.c:anon_vma_clone()	lock_anon_vma_root() relocks only
 *					when the root changes: once a family
 *  L3 mm/rmap.c:anon_vma_fork()	L2, then (no anon_vma reused)
 *					anon_vma_lock_write() for the
 *					child's own AVC
 *  L4 mm/vma.c:vma_prepare()		anon_vma_lock_write() once for vp->vma
 *					and vp->adj_next together, released
 *					in vma_complete()
 *  L5 mm/rmap.c:unlink_anon_vmas()	once per VMA with a chain (from
 *					mm/memory.c:free_pgtables() at unmap
 *					and exit, and from vma_complete()'s
 *					anon_vma_merge() for a removed VMA)
 *  L6 mm/mremap.c:take_rmap_locks()	once when copy_vma() sets
 *					need_rmap_locks
 */
#include "anon_vma_harness.h"
#include "tap.h"

struct counts {
	unsigned long site[AV_NR_LOCK_SITES];
	unsigned long family;
};

static void snap(struct av_run *r, struct counts *c)
{
	struct anon_vma_state *st = anon_vma_state(r->m);
	int i;

	for (i = 0; i < AV_NR_LOCK_SITES; i++)
		c->site[i] = st->site[i].write_acquired;
	c->family = r->m->family_lock_stat.write_acquired;
}

/*
 * Run @setup, then @op; the write acquisitions @op adds, by site and in
 * the family total, must be @want (sites not named: 0).
 */
static void expect(const char *what, const char *setup, const char *op,
		   const unsigned long want[AV_NR_LOCK_SITES])
{
	static const char *const name[AV_NR_LOCK_SITES] = {
		"prepare", "fork", "clone", "unlink", "adjust", "walk",
		"mremap",
	};
	struct counts before, after;
	unsigned long total = 0;
	char *text = NULL;
	struct av_run r;
	bool good;
	int i;

	if (asprintf(&text, "%s%s", setup, op) < 0) {
		ok(0, "%s: out of memory", what);
		return;
	}
	/* the setup alone first, to know where the operation starts */
	av_run_text(&r, what, setup, NULL);
	good = !r.ret && !r.invalid;
	snap(&r, &before);
	av_run_end(&r);
	av_run_text(&r, what, text, NULL);
	good = good && !r.ret && !r.invalid && !r.cs.mismatches;
	snap(&r, &after);
	av_run_end(&r);
	free(text);
	ok(good, "%s: ran, invariants hold", what);
	for (i = 0; i < AV_NR_LOCK_SITES; i++) {
		is_long(after.site[i] - before.site[i], want[i],
			"%s: %s writes", what, name[i]);
		total += want[i];
	}
	is_long(after.family - before.family, total,
		"%s: every one counts as a family-lock write", what);
}

#define SETUP_16K							\
	"proc P\n"							\
	"P mmap 0x100000000000 16K rw\n"				\
	"P touch 0x100000000000 16K write\n"

int main(void)
{
	/* L1 */
	expect("first fault", "proc P\nP mmap 0x100000000000 16K rw\n",
	       "P touch 0x100000000000 16K write\n",
	       (unsigned long[AV_NR_LOCK_SITES]){ [AV_LOCK_PREPARE] = 1 });
	/*
	 * kernel/fork.c:dup_mmap() -> L3 per faulted VMA: two VMAs (not
	 * adjacent), no anon_vma to reuse: 2 x 2.
	 */
	expect("fork", SETUP_16K
	       "P mmap 0x100000010000 4K rw\n"
	       "P touch 0x100000010000 4K write\n",
	       "P fork C\n",
	       (unsigned long[AV_NR_LOCK_SITES]){ [AV_LOCK_FORK] = 4 });
	/*
	 * mprotect of the head: mm/vma.c:__split_vma(): L2 for the new
	 * VMA, then L4 for the shrinking one.
	 */
	expect("split", SETUP_16K, "P mprotect 0x100000000000 8K r\n",
	       (unsigned long[AV_NR_LOCK_SITES]){ [AV_LOCK_CLONE] = 1,
						  [AV_LOCK_ADJUST] = 1 });
	/*
	 * The case: split, then give part of the split-off head
	 * back to its neighbour. mm/vma.c:vma_merge_existing_range(),
	 * merge_right without deleting the middle: dup_anon_vma() clones
	 * nothing (both have the anon_vma), commit_merge() runs one L4 for
	 * vma and adjust (adj_next) together. Split 1 + 1, merge 1.
	 */
	expect("split then partial merge", SETUP_16K,
	       "P mprotect 0x100000000000 8K r\n"
	       "P mprotect 0x100000001000 4K rw\n",
	       (unsigned long[AV_NR_LOCK_SITES]){ [AV_LOCK_CLONE] = 1,
						  [AV_LOCK_ADJUST] = 2 });
	/*
	 * Giving the whole head back: merge_right deleting the middle:
	 * commit_merge()'s L4 for next, then vma_complete()'s
	 * anon_vma_merge() -> L5 for the removed VMA.
	 */
	expect("split then whole merge", SETUP_16K,
	       "P mprotect 0x100000000000 8K r\n"
	       "P mprotect 0x100000000000 8K rw\n",
	       (unsigned long[AV_NR_LOCK_SITES]){ [AV_LOCK_CLONE] = 1,
						  [AV_LOCK_ADJUST] = 2,
						  [AV_LOCK_UNLINK] = 1 });
	/*
	 * mprotect of a middle page and back: two __split_vma() (2 x (L2 +
	 * L4)), then merge_both: one L4 for prev and L5 for each of the
	 * middle and next, removed.
	 */
	expect("middle split and merge back", SETUP_16K,
	       "P mprotect 0x100000001000 4K r\n"
	       "P mprotect 0x100000001000 4K rw\n",
	       (unsigned long[AV_NR_LOCK_SITES]){ [AV_LOCK_CLONE] = 2,
						  [AV_LOCK_ADJUST] = 3,
						  [AV_LOCK_UNLINK] = 2 });
	/*
	 * mm/mremap.c:move_vma() of a middle page to an empty place:
	 * mm/vma.c:copy_vma() finds no merge, so L2 (need_rmap_locks
	 * false, no L6); then do_vmi_munmap() of the source:
	 * vms_gather_munmap_vmas() splits twice (2 x (L2 + L4)) and
	 * free_pgtables() unlinks the page's VMA (L5).
	 */
	expect("mremap out of the middle", SETUP_16K,
	       "P mremap 0x100000001000 4K 4K to 0x100000100000\n",
	       (unsigned long[AV_NR_LOCK_SITES]){ [AV_LOCK_CLONE] = 3,
						  [AV_LOCK_ADJUST] = 2,
						  [AV_LOCK_UNLINK] = 1 });
	/*
	 * And back: copy_vma() merges it between prev and next
	 * (vma_merge_new_range() -> vma_expand(): one L4 for prev, L5 for
	 * next, removed), sets need_rmap_locks since prev's pgoff is not
	 * above the source's (L6), and the source VMA is unmapped whole
	 * (L5).
	 */
	expect("mremap back into the hole", SETUP_16K
	       "P mremap 0x100000001000 4K 4K to 0x100000100000\n",
	       "P mremap 0x100000100000 4K 4K to 0x100000001000\n",
	       (unsigned long[AV_NR_LOCK_SITES]){ [AV_LOCK_ADJUST] = 1,
						  [AV_LOCK_UNLINK] = 2,
						  [AV_LOCK_MREMAP] = 1 });
	/* exit_mmap() -> free_pgtables(): L5 per faulted VMA */
	expect("exit", SETUP_16K
	       "P mmap 0x100000010000 4K rw\n"
	       "P touch 0x100000010000 4K write\n",
	       "P exit\n",
	       (unsigned long[AV_NR_LOCK_SITES]){ [AV_LOCK_UNLINK] = 2 });
	return tap_done();
}
