// SPDX-License-Identifier: GPL-2.0
/*
 * Instructions per fork, counted by callgrind: this binary runs itself
 * under valgrind with collection off, and the executor toggles it on
 * around each mm_fork() (client requests), so the count is fork's work
 * alone and, the model being deterministic, the same on every run.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "bench/bench.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#define HAVE_CALLGRIND 1
#endif
#endif

static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		if (n && snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path,
				  prog) < (int)sizeof(buf) &&
		    !access(buf, X_OK))
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

static bool self_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

/*
 * valgrind must also be able to read this binary: 3.19 cannot read the
 * DWARF 5 that clang 14 writes, and gives up before main().
 */
static bool valgrind_runs_self(void)
{
	char self[PATH_MAX];
	int status, fd;
	pid_t pid;

	if (!self_path(self, sizeof(self)))
		return false;
	pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execlp("valgrind", "valgrind", "--tool=none", "-q", self,
		       "--help", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return false;
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

bool callgrind_available(void)
{
#ifdef HAVE_CALLGRIND
	static int avail = -1;

	if (avail < 0)
		avail = in_path("valgrind") && valgrind_runs_self();
	return avail;
#else
	return false;
#endif
}

/* The total of the collected events: the "summary:" or "totals:" line */
static double read_total(const char *file)
{
	FILE *f = fopen(file, "r");
	char line[512];
	double total = NAN;

	if (!f)
		return NAN;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "summary:", 8))
			total = strtod(line + 8, NULL);
		else if (!strncmp(line, "totals:", 7) && isnan(total))
			total = strtod(line + 7, NULL);
	}
	fclose(f);
	return total;
}

static pid_t spawn(const char *self, const char *backend, const char *spec,
		   const char *out_file, const char *log_file)
{
	char out_opt[PATH_MAX + 32], child_opt[64];
	pid_t pid;

	snprintf(out_opt, sizeof(out_opt), "--callgrind-out-file=%s",
		 out_file);
	snprintf(child_opt, sizeof(child_opt), "--callgrind-child=%s",
		 backend);
	pid = fork();
	if (pid == 0) {
		int fd = open(log_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execlp("valgrind", "valgrind", "--tool=callgrind", "-q",
		       "--collect-atstart=no", out_opt, self, "bench",
		       child_opt, spec, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* "zygote V=1000 N=100" -> "zygote-V1000-N100": a file name */
static void tag_of(const struct workload_inst *inst, char *buf, size_t len)
{
	const char *s;
	size_t n = 0;

	for (s = inst->label; *s && n + 1 < len; s++) {
		if (*s == '=')
			continue;
		buf[n++] = *s == ' ' ? '-' : *s;
	}
	buf[n] = '\0';
}

/*
 * Where the child stops: after the first CALLGRIND_MAX_FORKS forks, so
 * a zygote of 10000 VMAs and 500 children takes seconds under valgrind,
 * not an hour. Sets *forks to how many ran. 0: the whole program.
 */
static size_t callgrind_stop(const struct bench_prog *p, unsigned long *forks)
{
	size_t i;

	*forks = 0;
	for (i = 0; i < p->nr; i++) {
		if (p->ops[i].type != OP_FORK)
			continue;
		if (++*forks == CALLGRIND_MAX_FORKS)
			return i + 1;
	}
	return p->last_fork;
}

static unsigned long count_forks(const struct workload_inst *inst)
{
	struct bench_prog p;
	unsigned long forks = 0;

	prog_init(&p);
	if (!workload_build(inst, &p))
		callgrind_stop(&p, &forks);
	prog_free(&p);
	return forks;
}

int callgrind_measure(const struct workload_inst *inst,
		      const struct rmap_ops *const *ops, int nr,
		      const char *dir, double *out, FILE *progress)
{
	char self[PATH_MAX], spec[256], tag[128];
	char (*files)[PATH_MAX + 64];
	pid_t *pids;
	unsigned long forks = count_forks(inst);
	int i, next = 0, running = 0;

	for (i = 0; i < nr; i++)
		out[i] = NAN;
	if (!callgrind_available() || !forks)
		return 0;
	if (!self_path(self, sizeof(self)))
		return 0;
	workload_spec(inst, spec, sizeof(spec));
	tag_of(inst, tag, sizeof(tag));
	files = model_zalloc(2 * nr * sizeof(*files));
	pids = model_zalloc(nr * sizeof(*pids));
	if (!files || !pids) {
		model_free(files);
		model_free(pids);
		return -ENOMEM;
	}
	if (progress)
		fprintf(progress, "bench: %s: counting fork instructions under callgrind\n",
			inst->label);
	/* two at a time: these machines have two cores */
	while (next < nr || running) {
		int status;
		pid_t pid;

		while (next < nr && running < 2) {
			snprintf(files[2 * next], sizeof(files[0]),
				 "%s/callgrind.%s.%s.out", dir,
				 ops[next]->name, tag);
			snprintf(files[2 * next + 1], sizeof(files[0]),
				 "%s/callgrind.%s.%s.log", dir,
				 ops[next]->name, tag);
			pids[next] = spawn(self, ops[next]->name, spec,
					   files[2 * next],
					   files[2 * next + 1]);
			if (pids[next] > 0)
				running++;
			next++;
		}
		if (!running)
			break;
		pid = wait(&status);
		if (pid < 0)
			break;
		for (i = 0; i < nr; i++) {
			if (pids[i] != pid)
				continue;
			running--;
			if (WIFEXITED(status) && !WEXITSTATUS(status))
				out[i] = read_total(files[2 * i]) / forks;
			else if (progress)
				fprintf(progress, "bench: callgrind run of %s failed; see %s\n",
					ops[i]->name, files[2 * i + 1]);
		}
	}
	model_free(files);
	model_free(pids);
	return 0;
}

int callgrind_child(const char *backend, const char *spec)
{
	const struct rmap_ops *ops = rmap_backend_find(backend);
	struct workload_inst inst;
	struct bench_prog p;
	struct bench_run br;
	unsigned long forks;
	char err[128];
	int ret;

	if (!ops) {
		fprintf(stderr, "cowctx bench: unknown backend '%s'\n", backend);
		return 2;
	}
	if (workload_parse(spec, SIZE_QUICK, &inst, err, sizeof(err))) {
		fprintf(stderr, "cowctx bench: %s\n", err);
		return 2;
	}
	prog_init(&p);
	if (workload_build(&inst, &p)) {
		fprintf(stderr, "cowctx bench: out of memory\n");
		prog_free(&p);
		return 2;
	}
	bench_run_init(&br, ops);
	br.callgrind = true;
	br.skip_walk = true;
	ret = bench_exec(&p, &br, 1, callgrind_stop(&p, &forks), inst.label,
			 NULL);
	if (ret)
		fprintf(stderr, "cowctx bench: %s\n", br.error);
	bench_run_release(&br);
	prog_free(&p);
	return ret ? 1 : 0;
}
