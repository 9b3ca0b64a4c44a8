// SPDX-License-Identifier: GPL-2.0
/*
 * Workload 5 of docs/kernel-results.md: a real fork server. Debian's
 * redis-server (copied with its libraries into the initramfs by
 * guest/copy-elf.sh) is started with no persistence of its own, loaded
 * with KEYS keys of VALUE bytes over a Unix socket, then told to BGSAVE
 * REPS times; during each save (a fork: the child writes the snapshot)
 * this client keeps overwriting keys, so that the server copies pages on
 * write while its child reads them. Figures: redis.fork_us, the median of
 * redis's own latest_fork_usec over the saves; redis.cow_sets, the keys
 * overwritten during saves; and, as the zygote's, slab.redis.CACHE, what
 * each cache of reverse-map state grew by from before the last BGSAVE to
 * just after it (the server and its saving child), and
 * slab.redis_server.CACHE, what the loaded server itself holds.
 *
 * Usage: cowctx-bench-redis [-k KEYS] [-v VALUE] [-r REPS] DIR
 * (defaults 100000, 512, 5; DIR holds redis-server and lib/).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define REDIS_SOCK	"/tmp/cowctx-redis.sock"
/* SETs sent before their replies are read */
#define REDIS_BATCH	500

static int sock;
static char rbuf[1 << 16];
static size_t rlen, rpos;

static int rgetc(void)
{
	if (rpos == rlen) {
		ssize_t n = read(sock, rbuf, sizeof(rbuf));

		if (n <= 0)
			bench_die("read from redis");
		rlen = n;
		rpos = 0;
	}
	return (unsigned char)rbuf[rpos++];
}

/* One line of a reply, without its CRLF, into @line (truncated) */
static void rline(char *line, size_t max)
{
	size_t n = 0;
	int c;

	while ((c = rgetc()) != '\n')
		if (c != '\r' && n + 1 < max)
			line[n++] = c;
	line[n] = '\0';
}

/*
 * One reply: a status, an error (fatal), an integer or a bulk string,
 * whose first @max - 1 bytes go to @out
 */
static void reply(char *out, size_t max)
{
	char line[256];
	long len, i;

	rline(line, sizeof(line));
	if (line[0] == '-') {
		fprintf(stderr, "redis: %s\n", line + 1);
		bench_die("redis replied with an error");
	}
	if (line[0] != '$') {
		snprintf(out, max, "%s", line + 1);
		return;
	}
	len = atol(line + 1);
	for (i = 0; i < len + 2; i++) {	/* the string and its CRLF */
		int c = rgetc();

		if ((size_t)i + 1 < max && i < len)
			out[i] = c;
	}
	out[len < (long)max ? len : (long)max - 1] = '\0';
}

static void send_all(const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(sock, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			bench_die("write to redis");
		p += w;
		n -= w;
	}
}

/* A command of @argc words, in RESP */
static void command(int argc, ...)
{
	char head[64];
	va_list ap;
	int i;

	snprintf(head, sizeof(head), "*%d\r\n", argc);
	send_all(head, strlen(head));
	va_start(ap, argc);
	for (i = 0; i < argc; i++) {
		const char *w = va_arg(ap, const char *);

		snprintf(head, sizeof(head), "$%zu\r\n", strlen(w));
		send_all(head, strlen(head));
		send_all(w, strlen(w));
		send_all("\r\n", 2);
	}
	va_end(ap);
}

/* SET key:I VALUE for @n keys from @first (mod @keys), pipelined */
static void set_keys(long first, long n, long keys, const char *value)
{
	char key[32], out[64];
	long i, j;

	for (i = 0; i < n; i += REDIS_BATCH) {
		long batch = n - i < REDIS_BATCH ? n - i : REDIS_BATCH;

		for (j = 0; j < batch; j++) {
			snprintf(key, sizeof(key), "key:%ld",
				 (first + i + j) % keys);
			command(3, "SET", key, value);
		}
		for (j = 0; j < batch; j++)
			reply(out, sizeof(out));
	}
}

/* The number after "@field:" in INFO @section's reply; -1 if absent */
static long info(const char *section, const char *field)
{
	static char out[1 << 15];
	char *p;

	command(2, "INFO", section);
	reply(out, sizeof(out));
	p = strstr(out, field);
	if (!p || p[strlen(field)] != ':')
		return -1;
	return atol(p + strlen(field) + 1);
}

static pid_t start_server(const char *dir)
{
	char loader[512], libs[512], server[512];
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	pid_t pid;
	int i;

	snprintf(loader, sizeof(loader), "%s/lib/ld-linux-x86-64.so.2", dir);
	snprintf(libs, sizeof(libs), "%s/lib", dir);
	snprintf(server, sizeof(server), "%s/redis-server", dir);
	unlink(REDIS_SOCK);
	pid = fork();
	if (pid < 0)
		bench_die("fork");
	if (!pid) {
		execl(loader, loader, "--library-path", libs, server,
		      "--port", "0", "--unixsocket", REDIS_SOCK,
		      "--save", "", "--appendonly", "no", "--dir", "/tmp",
		      "--logfile", "/tmp/cowctx-redis.log", (char *)NULL);
		_exit(127);
	}
	strcpy(sun.sun_path, REDIS_SOCK);
	for (i = 0; i < 600; i++) {	/* up to 60 s under TCG */
		sock = socket(AF_UNIX, SOCK_STREAM, 0);
		if (sock < 0)
			bench_die("socket");
		if (!connect(sock, (struct sockaddr *)&sun, sizeof(sun)))
			return pid;
		close(sock);
		if (waitpid(pid, NULL, WNOHANG) == pid)
			bench_die("redis-server exited (see /tmp/cowctx-redis.log)");
		usleep(100000);
	}
	kill(pid, SIGKILL);
	bench_die("redis-server did not listen");
}

int main(int argc, char **argv)
{
	long keys = 100000, vlen = 512, reps = 5, r, cow = 0, next = 0;
	double start[BENCH_NR_CACHES + 1], loaded[BENCH_NR_CACHES + 1];
	double before[BENCH_NR_CACHES + 1], during[BENCH_NR_CACHES + 1];
	double *fork_us;
	char out[256], *value;
	pid_t server;
	int opt;

	while ((opt = getopt(argc, argv, "k:v:r:")) != -1) {
		if (opt == 'k') {
			keys = bench_number("-k", optarg, 1, 10000000);
		} else if (opt == 'v') {
			vlen = bench_number("-v", optarg, 1, 1 << 20);
		} else if (opt == 'r') {
			reps = bench_number("-r", optarg, 1, 100);
		} else {
			optind = argc + 1;
			break;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: %s [-k KEYS] [-v VALUE] [-r REPS] DIR\n",
			argv[0]);
		return 2;
	}
	fork_us = calloc(reps, sizeof(*fork_us));
	value = malloc(vlen + 1);
	if (!fork_us || !value)
		bench_die("malloc");
	memset(value, 'v', vlen);
	value[vlen] = '\0';
	if (bench_slab_read(start))
		bench_die("read /proc/slabinfo");
	server = start_server(argv[optind]);
	set_keys(0, keys, keys, value);
	if (bench_slab_read(loaded))
		bench_die("read /proc/slabinfo");
	for (r = 0; r < reps; r++) {
		if (bench_slab_read(before))
			bench_die("read /proc/slabinfo");
		command(1, "BGSAVE");
		reply(out, sizeof(out));	/* after the fork */
		if (!strstr(out, "started"))
			bench_die("BGSAVE did not start");
		if (bench_slab_read(during))
			bench_die("read /proc/slabinfo");
		/* overwrite keys while the child saves: the server COWs */
		while (info("persistence", "rdb_bgsave_in_progress") == 1) {
			set_keys(next, REDIS_BATCH, keys, value);
			next += REDIS_BATCH;
			cow += REDIS_BATCH;
		}
		fork_us[r] = info("stats", "latest_fork_usec");
		if (fork_us[r] < 0)
			bench_die("no latest_fork_usec in INFO stats");
	}
	command(2, "SHUTDOWN", "NOSAVE");
	close(sock);
	if (waitpid(server, NULL, 0) != server)
		bench_die("wait for redis-server");
	bench_print(keys, "keys", "redis.keys");
	bench_print(bench_median(fork_us, reps), "us", "redis.fork_us");
	bench_print(cow, "keys", "redis.cow_sets");
	bench_slab_print("redis_server", loaded, start);
	bench_slab_print("redis", during, before);
	return 0;
}
