/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An augmented interval tree: a red-black tree of closed intervals
 * [start, last] ordered by start, each node caching the largest `last`
 * in its subtree so a stabbing query skips whole subtrees. This is the
 * structure behind Linux's anon_vma->rb_root (interval_tree_generic.h),
 * written for the model.
 *
 * Nodes are embedded in their owners (container_of). The key is copied
 * into the node at insertion: a caller whose key changes must remove
 * the node first and insert it again, exactly the discipline of the
 * kernel's anon_vma_interval_tree_pre/post_update_vma().
 *
 * Equal starts go to the right, so nodes with the same start are
 * visited in insertion order, as in the kernel.
 */
#ifndef COWCTX_INTERVAL_TREE_H
#define COWCTX_INTERVAL_TREE_H

#include <stdbool.h>
#include <stddef.h>

struct interval_tree_node {
	struct interval_tree_node *parent;
	struct interval_tree_node *left;
	struct interval_tree_node *right;
	unsigned long start;
	unsigned long last;		/* inclusive */
	unsigned long subtree_last;	/* max of `last` over the subtree */
	bool red;
};

struct interval_tree_root {
	struct interval_tree_node *node;
	unsigned long nr;		/* nodes in the tree */
};

#define INTERVAL_TREE_ROOT_INIT	{ NULL, 0 }

static inline void interval_tree_init(struct interval_tree_root *root)
{
	root->node = NULL;
	root->nr = 0;
}

static inline bool interval_tree_empty(const struct interval_tree_root *root)
{
	return root->node == NULL;
}

/* @node->start and @node->last must be set, start <= last. */
void interval_tree_insert(struct interval_tree_node *node,
			  struct interval_tree_root *root);
void interval_tree_remove(struct interval_tree_node *node,
			  struct interval_tree_root *root);
/*
 * Link @node at @link, a NULL child pointer of @parent (NULL: the empty
 * root) found by the caller's own descent, and rebalance. For an order
 * finer than start alone (a tie-break among equal starts); in-order
 * starts must still never decrease.
 */
void interval_tree_insert_at(struct interval_tree_node *node,
			     struct interval_tree_node *parent,
			     struct interval_tree_node **link,
			     struct interval_tree_root *root);

/*
 * The nodes overlapping [start, last], in (start, insertion) order:
 *
 *	for (n = interval_tree_iter_first(root, s, l); n;
 *	     n = interval_tree_iter_next(n, s, l))
 *
 * The tree must not change during the iteration.
 */
struct interval_tree_node *
interval_tree_iter_first(const struct interval_tree_root *root,
			 unsigned long start, unsigned long last);
struct interval_tree_node *
interval_tree_iter_next(const struct interval_tree_node *node,
			unsigned long start, unsigned long last);

/* In-order traversal of every node (tests, validation). */
struct interval_tree_node *
interval_tree_first(const struct interval_tree_root *root);
struct interval_tree_node *
interval_tree_next(const struct interval_tree_node *node);

/*
 * Check every invariant: parent links, order, no red node with a red
 * child, equal black height on every path, subtree_last, node count.
 * Returns NULL when the tree is sound, else what is wrong.
 */
const char *interval_tree_check(const struct interval_tree_root *root);

/*
 * Nodes stepped on by this thread so far: each node a stabbing query
 * descends to or climbs through, and each node whose subtree_last an
 * insert or a remove repairs (rebalancing, O(1) amortised, is left out).
 * A count for the bench's remap tree curve (bench/remap_curve.c), which
 * shows an operation's steps growing like log n; nothing else reads it.
 */
extern __thread unsigned long interval_tree_steps;

#endif /* COWCTX_INTERVAL_TREE_H */
