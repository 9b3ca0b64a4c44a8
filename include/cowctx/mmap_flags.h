/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mmap() flags the scenario language can ask for beyond
 * MAP_PRIVATE | MAP_FIXED_NOREPLACE, as one word that the model
 * (do_mmap_flags()) and the real-kernel agents (kernel/agent.c) both
 * read; standalone, so the agents need not include the model's uapi
 * copies beside <sys/mman.h>.
 */
#ifndef COWCTX_MMAP_FLAGS_H
#define COWCTX_MMAP_FLAGS_H

#define MM_MAP_SHARED		0x1	/* MAP_SHARED instead of MAP_PRIVATE */
#define MM_MAP_FIXED		0x2	/* MAP_FIXED: replace what is there */
#define MM_MAP_GROWSDOWN	0x4	/* MAP_GROWSDOWN: a stack */
#define MM_MAP_ANY		0x8	/* no MAP_FIXED*: the kernel chooses */
/*
 * VM_NOHUGEPAGE from the start: what MAP_STACK means since Linux 6.7
 * with transparent huge pages configured (calc_vm_flag_bits()); glibc
 * maps every thread stack so, and the flag keeps it from merging and
 * from sharing a neighbour's anon_vma.
 */
#define MM_MAP_NOHUGEPAGE	0x10

#endif /* COWCTX_MMAP_FLAGS_H */
