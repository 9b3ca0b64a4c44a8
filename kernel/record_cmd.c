// SPDX-License-Identifier: GPL-2.0
/* cowctx record: the command line. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel/record.h"
#include "tools/cowctx.h"

#define DEFAULT_BUFFER_KB	32768UL

static void usage(FILE *f)
{
	fprintf(f,
		"usage: cowctx record [-o FILE] [--buffer-kb=N] -- CMD [ARGS...]\n"
		"\n"
		"Runs CMD and writes what its whole process tree does to its memory\n"
		"on this kernel as a scenario (streamed, one statement a line):\n"
		"fork, vfork and threads (written as their mm's owner), exec with the\n"
		"layout the kernel built, exit; mmap at the address the kernel chose,\n"
		"munmap, mprotect, mremap, madvise, brk, stack growth; page faults\n"
		"(user and kernel mode) as touches, and pages that appear without a\n"
		"fault (MAP_POPULATE, MADV_POPULATE_*, what exec filled in). After\n"
		"each process exit and at the end, `recorded anon_vma=N\n"
		"anon_vma_chain=M` gives the live objects the kernel had for the tree\n"
		"(kmem events), except while an address space two of whose threads\n"
		"acted on it at once lives: their order is the trace's guess (a\n"
		"comment says so). Transparent huge pages are off for the tree.\n"
		"Process p<PID> is the address space task PID made.\n"
		"\n"
		"  -o FILE          the scenario (default: standard output)\n"
		"  --buffer-kb=N    trace buffer per CPU (default %lu)\n"
		"\n"
		"With -o, the file is then replayed in the model, as `cowctx run`\n"
		"would: a recording that does not replay is not complete.\n"
		"\n"
		"A summary goes to standard error. Needs root and tracefs (x86-64).\n"
		"Exit status: 0 the recording is complete (and, with -o, replays), 1\n"
		"trace events were lost (the file says so), 2 usage or a failed run,\n"
		"3 the recording does not replay (FILE:LINE: why, on stderr), 77\n"
		"this machine cannot serve (the reason on stderr).\n", DEFAULT_BUFFER_KB);
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rec_opts o = { .buffer_kb = DEFAULT_BUFFER_KB };
	char *end;
	int c, ret;

	optind = 1;
	/* '+': CMD's own options are CMD's */
	while ((c = getopt_long(argc, argv, "+o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.out_path = optarg;
			break;
		case 'b':
			errno = 0;
			o.buffer_kb = strtoul(optarg, &end, 10);
			if (errno || *end || o.buffer_kb < 64 ||
			    o.buffer_kb > (1UL << 22)) {
				fprintf(stderr, "cowctx record: bad --buffer-kb '%s' (64 to 4194304)\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	o.argv = argv + optind;
	ret = rec_run(&o);
	if (ret || !o.out_path)
		return ret;
	ret = rec_replay_check(o.out_path);
	if (ret) {
		fprintf(stderr, "cowctx record: %s: %s\n", o.out_path,
			ret > 0 ? "the recording does not replay in the model (above); it is not complete" :
				  "out of memory while replaying it");
		return REC_EXIT_NO_REPLAY;
	}
	return 0;
}
