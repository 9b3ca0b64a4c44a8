// SPDX-License-Identifier: GPL-2.0
/*
 * The whole judgement, kernel against model: agreement on a COW tree
 * and on file mappings; a model told a wrong fact (no copy on one COW
 * fault) is caught; a statement both refuse is bad input; the fork
 * shapes' anon_vma counts agree with the model and with the figures
 * measured on the kernel; and a SIGINT in the middle leaves no
 * process, tracefs instance or file behind.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kernel/judge.h"
#include "kernel/kernel.h"
#include "kernel/tracefs.h"
#include <cowctx/rmap.h>
#include "scenario/scenario.h"
#include "tap.h"
#include "kernel_test_base.h"

/* "$OFF": at a base this process leaves free (kernel_test_base.h) */
static const char cow_tree[] =
	"proc Z\n"
	"Z mmap $0 64K rw\n"
	"Z touch $0 64K write\n"
	"Z mmap $100000 16K r\n"
	"Z touch $100000 16K read\n"
	"Z fork A\n"
	"Z fork B\n"
	"A touch $0 8K write\n"
	"B mremap $4000 16K 16K to $200000\n"
	"B mprotect $200000 4K r\n"
	"check\n"
	"A exit\n"
	"B touch $200000 4K read\n"
	"Z munmap $8000 8K\n"
	"check\n";

/*
 * Two mappings of one file with contiguous offsets merge (one open
 * file, as the model's one struct file per name); written pages are
 * COW copies; no read faults (the kernel's fault-around would map the
 * neighbouring cached pages too).
 */
static const char file_tree[] =
	"proc P\n"
	"P mmap $0 16K rw file=data:0\n"
	"P mmap $4000 16K rw file=data:16K\n"
	"P touch $0 32K write\n"
	"P fork C\n"
	"C touch $2000 8K write\n"
	"check\n";

static int judge(const char *tmpl, long skip_cow, struct kjudge_result *res,
		 char **report)
{
	struct kjudge_opts o = { .skip_cow = skip_cow, .max_report = 50 };
	char *text = at_base(tmpl);
	struct scenario sc;
	size_t len;
	int ret;

	*report = NULL;
	memset(res, 0, sizeof(*res));
	if (!text || scenario_parse_string("test.scn", text, &sc)) {
		free(text);
		return -1;
	}
	free(text);
	o.report = open_memstream(report, &len);
	if (!o.report) {
		scenario_free(&sc);
		return -1;
	}
	ret = kjudge_run(&sc, &o, res);
	fclose(o.report);
	scenario_free(&sc);
	return ret;
}

static void test_agree(void)
{
	struct kjudge_result res;
	char *report;
	int ret = judge(cow_tree, 0, &res, &report);

	is_long(ret, 0, "a COW tree: kernel and model agree");
	if (ret)
		tap_diag("%s%s", report ? report : "", res.why);
	is_long(res.cmp.checks, 3, "two checks and the end compared");
	ok(res.cmp.pages_compared >= 3 * 40, "pages compared: %ld",
	   res.cmp.pages_compared);
	ok(res.cmp.have_kernel_av && res.cmp.kernel_av > 0,
	   "the kernel's anon_vmas were counted");
	free(report);

	ret = judge(file_tree, 0, &res, &report);
	is_long(ret, 0, "file mappings: kernel and model agree");
	if (ret)
		tap_diag("%s%s", report ? report : "", res.why);
	free(report);
}

static void test_wrong_fact(void)
{
	struct kjudge_result res;
	char *report;
	int ret = judge(cow_tree, 1, &res, &report);

	is_long(ret, 1, "a model that skips one COW copy is caught");
	ok(res.cmp.sharing_mismatches > 0, "as a sharing difference (%ld)",
	   res.cmp.sharing_mismatches);
	is_long(res.cmp.vma_mismatches, 0, "the VMAs still agree");
	ok(report && strstr(report, "test.scn:11: sharing:"),
	   "told at the first check");
	free(report);
}

static void test_refused(void)
{
	static const char text[] =
		"proc P\n"
		"P mmap $0 16K rw\n"
		"check\n"
		"P mmap $2000 4K rw\n";
	struct kjudge_result res;
	char *report;
	int ret = judge(text, 0, &res, &report);

	is_long(ret, 2, "a statement both refuse is bad input");
	is_long(kcompare_total(&res.cmp), 0, "with no difference");
	ok(report && strstr(report, "test.scn:4: P mmap: kernel: File exists (EEXIST) (refused by both)"),
	   "the kernel's refusal is told with its line");
	free(report);
}

static void test_fork_shapes(void)
{
	const int v = 3, n = 4;
	struct kjudge_result res;
	char text[4096], *report;
	int i, off, ret;

	off = snprintf(text, sizeof(text), "proc R\n");
	for (i = 0; i < v; i++)
		off += snprintf(text + off, sizeof(text) - off,
				"R mmap $%lx 4K rw\nR touch $%lx 4K write\n",
				2UL * i * 4096, 2UL * i * 4096);
	off += snprintf(text + off, sizeof(text) - off, "R fork C1\n");
	for (i = 1; i < n; i++)
		off += snprintf(text + off, sizeof(text) - off,
				"C%d fork C%d\nR fork F%d\n", i, i + 1, i);
	ret = judge(text, 0, &res, &report);
	is_long(ret, 0, "chain and fan together: kernel and model agree");
	if (ret)
		tap_diag("%s%s", report ? report : "", res.why);
	/* chain of n, fan of n - 1 beside it, per root VMA */
	is_long(res.cmp.kernel_av, v + n * v + (n - 1) * v,
		"kernel: live anon_vma as measured on these shapes");
	is_long(res.cmp.kernel_avc,
		v + v * n * (n + 3) / 2 + 2 * (n - 1) * v,
		"kernel: live anon_vma_chain as measured");
	if (rmap_backend_find("anon_vma")) {
		ok(res.cmp.have_model_av &&
		   res.cmp.model_av == res.cmp.kernel_av &&
		   res.cmp.model_avc == res.cmp.kernel_avc,
		   "the model's anon_vma backend has as many");
	} else {
		ok(1, "# SKIP no anon_vma backend built");
	}
	free(report);
}

static int count_children(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[300], buf[512], *s;
		int ppid = -1;
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		s = fgets(buf, sizeof(buf), f);
		fclose(f);
		s = s ? strrchr(buf, ')') : NULL;
		if (s && sscanf(s + 2, "%*c %d", &ppid) == 1 &&
		    ppid == getpid())
			n++;
	}
	closedir(d);
	return n;
}

static bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

static bool instance_left(pid_t pid)
{
	DIR *d = opendir("/sys/kernel/tracing/instances");
	char prefix[32];
	struct dirent *e;
	bool left = false;

	if (!d)
		return false;
	snprintf(prefix, sizeof(prefix), "cowctx-%d-", (int)pid);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)))
			left = true;
	closedir(d);
	return left;
}

static void test_sigint(void)
{
	char tmpl[] = "/tmp/kernel_judge.XXXXXX", *dir = mkdtemp(tmpl);
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	const int nr = 40000;
	size_t len = 256 + nr * 48;
	char *text = malloc(len);
	int i, off, status = 0;
	pid_t child;

	if (!dir || !text) {
		ok(0, "set up the interrupted run");
		free(text);
		return;
	}
	off = snprintf(text, len,
		       "proc P\nP mmap %#lx 64K rw file=big:0\n", test_base);
	for (i = 0; i < nr; i++)
		off += snprintf(text + off, len - off,
				"P touch %#lx 64K write\n", test_base);
	fflush(NULL);
	child = fork();
	if (child == 0) {
		struct kjudge_result res;
		struct kjudge_opts o = { .report = NULL };
		struct scenario sc;

		setenv("TMPDIR", dir, 1);
		if (scenario_parse_string("long.scn", text, &sc))
			_exit(3);
		_exit(kjudge_run(&sc, &o, &res));
	}
	/* its tracefs instance appears once its signal handlers are in */
	for (i = 0; i < 1000 && !instance_left(child); i++)
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	nanosleep(&ts, NULL);
	kill(child, SIGINT);
	waitpid(child, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == KJUDGE_INTERRUPTED,
	   "SIGINT stops the run (status %#x)", status);
	is_long(count_children(), 0,
		"no process of it is left (none came to this subreaper)");
	ok(!instance_left(child), "its tracefs instance is removed");
	ok(dir_empty(dir), "its temporary directory is removed");
	rmdir(dir);
	free(text);
}

int main(void)
{
	if (!kernel_tests_can_run())
		return 0;
	test_agree();
	test_wrong_fact();
	test_refused();
	test_fork_shapes();
	test_sigint();
	return tap_done();
}
