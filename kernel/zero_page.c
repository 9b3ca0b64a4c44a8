// SPDX-License-Identifier: GPL-2.0
/* The zero-page probe; see zero_page.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "kernel/procfs.h"
#include "kernel/zero_page.h"

enum scn_zero_page kzero_page_decide(uint64_t pm, uint64_t kflags,
				     char *why, size_t whylen)
{
	if (!(pm & PM_PRESENT)) {
		snprintf(why, whylen, "zero-page probe: the page read is not present in pagemap");
		return SCN_ZERO_PAGE_UNSTATED;
	}
	if (!(pm & PM_PFN_MASK)) {
		/* as the judge has always said it */
		snprintf(why, whylen, "/proc/PID/pagemap hides PFNs here");
		return SCN_ZERO_PAGE_UNSTATED;
	}
	if (kflags & (1ULL << KPF_ZERO_PAGE))
		return SCN_ZERO_PAGE_ON;
	if (kflags & (1ULL << KPF_ANON))
		return SCN_ZERO_PAGE_OFF;
	snprintf(why, whylen, "zero-page probe: the page a read fault mapped (kpageflags %#llx) is neither the zero page nor anonymous",
		 (unsigned long long)kflags);
	return SCN_ZERO_PAGE_UNSTATED;
}

enum scn_zero_page kzero_page_probe(char *why, size_t whylen)
{
	enum scn_zero_page mode = SCN_ZERO_PAGE_UNSTATED;
	struct kpage_files kp = { -1, -1 };
	uint64_t pm = 0, kflags = 0, count;
	volatile char *page;
	int fd, err;

	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		snprintf(why, whylen, "zero-page probe: mmap: %s",
			 strerror(errno));
		return mode;
	}
	(void)page[0];		/* the read fault itself */
	fd = proc_pagemap_open(getpid());
	err = fd < 0 ? fd : proc_pagemap_read(fd, (unsigned long)page, 1, &pm);
	if (fd >= 0)
		close(fd);
	if (err) {
		snprintf(why, whylen, "zero-page probe: /proc/self/pagemap: %s",
			 strerror(-err));
		goto out;
	}
	if ((pm & PM_PRESENT) && (pm & PM_PFN_MASK)) {
		err = kpage_open(&kp);
		if (!err)
			err = kpage_read(&kp, pm & PM_PFN_MASK, &kflags,
					 &count);
		kpage_close(&kp);
		if (err) {
			snprintf(why, whylen, "zero-page probe: /proc/kpageflags: %s",
				 strerror(-err));
			goto out;
		}
	}
	mode = kzero_page_decide(pm, kflags, why, whylen);
out:
	munmap((void *)page, 4096);
	return mode;
}
