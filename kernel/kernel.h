/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cowctx kernel: the real kernel as the model's judge. A scenario runs
 * as real processes and in the model side by side; at every check the
 * two must agree on VMAs, page sharing and live anon_vma objects.
 */
#ifndef COWCTX_KERNEL_H
#define COWCTX_KERNEL_H

/*
 * Under ThreadSanitizer every agent runs the runtime's own thread,
 * which maps memory and makes anon_vmas of its own: no exact count can
 * come out of such a build, so it does not try.
 */
#if defined(__SANITIZE_THREAD__)
#define KERNEL_UNDER_TSAN	1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KERNEL_UNDER_TSAN	1
#endif
#endif
#ifndef KERNEL_UNDER_TSAN
#define KERNEL_UNDER_TSAN	0
#endif

/* AddressSanitizer's shadow covers much of the address space */
#if defined(__SANITIZE_ADDRESS__)
#define KERNEL_UNDER_ASAN	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KERNEL_UNDER_ASAN	1
#endif
#endif
#ifndef KERNEL_UNDER_ASAN
#define KERNEL_UNDER_ASAN	0
#endif

/* Exit status when this machine cannot serve (not root, no tracefs) */
#define KERNEL_EXIT_SKIP	77

/* cowctx kernel [--json] [--verbose] [--help] FILE.scn */
int cmd_kernel(int argc, char **argv);

#endif /* COWCTX_KERNEL_H */
