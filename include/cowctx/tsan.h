/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hand-offs that ThreadSanitizer cannot see for itself. liburcu is not
 * built with TSan, and its call_rcu queue is lock-free with a futex
 * wake-up, so nothing orders what the caller wrote before call_rcu()
 * with the callback on liburcu's worker thread: without a word from us,
 * every free there looks like a race. tsan_release() before the
 * hand-off and tsan_acquire() in the callback, on the same address, say
 * that the one happens before the other. Both compile to nothing in
 * other builds.
 */
#ifndef COWCTX_TSAN_H
#define COWCTX_TSAN_H

#if defined(__SANITIZE_THREAD__)
#define COWCTX_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define COWCTX_TSAN 1
#endif
#endif

#ifdef COWCTX_TSAN
#include <sanitizer/tsan_interface.h>
#define tsan_release(addr)	__tsan_release(addr)
#define tsan_acquire(addr)	__tsan_acquire(addr)
#else
#define tsan_release(addr)	((void)(addr))
#define tsan_acquire(addr)	((void)(addr))
#endif

#endif /* COWCTX_TSAN_H */
