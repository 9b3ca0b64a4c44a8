// SPDX-License-Identifier: GPL-2.0
/*
 * Augmented red-black interval tree (see include/cowctx/interval_tree.h).
 *
 * The augmentation rule that keeps subtree_last right: a rotation does
 * not change the set of nodes under the rotated position, so the node
 * moving up inherits the old top's value and only the node moving down
 * is recomputed; everything else is repaired along the one path whose
 * membership changed (the insertion path on the way down, the removal
 * path on the way up) before any rotation reads it.
 */
#include <cowctx/interval_tree.h>

__thread unsigned long interval_tree_steps;

static unsigned long compute_subtree_last(const struct interval_tree_node *n)
{
	unsigned long max = n->last;

	if (n->left && n->left->subtree_last > max)
		max = n->left->subtree_last;
	if (n->right && n->right->subtree_last > max)
		max = n->right->subtree_last;
	return max;
}

static void change_child(struct interval_tree_root *root,
			 struct interval_tree_node *parent,
			 struct interval_tree_node *old,
			 struct interval_tree_node *new)
{
	if (!parent)
		root->node = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
}

/* @x's right child takes @x's place; @x becomes its left child. */
static void rotate_left(struct interval_tree_root *root,
			struct interval_tree_node *x)
{
	struct interval_tree_node *y = x->right;
	struct interval_tree_node *p = x->parent;

	x->right = y->left;
	if (y->left)
		y->left->parent = x;
	y->parent = p;
	change_child(root, p, x, y);
	y->left = x;
	x->parent = y;
	y->subtree_last = x->subtree_last;
	x->subtree_last = compute_subtree_last(x);
}

/* @x's left child takes @x's place; @x becomes its right child. */
static void rotate_right(struct interval_tree_root *root,
			 struct interval_tree_node *x)
{
	struct interval_tree_node *y = x->left;
	struct interval_tree_node *p = x->parent;

	x->left = y->right;
	if (y->right)
		y->right->parent = x;
	y->parent = p;
	change_child(root, p, x, y);
	y->right = x;
	x->parent = y;
	y->subtree_last = x->subtree_last;
	x->subtree_last = compute_subtree_last(x);
}

static bool is_red(const struct interval_tree_node *n)
{
	return n && n->red;
}

static void insert_fixup(struct interval_tree_root *root,
			 struct interval_tree_node *z)
{
	struct interval_tree_node *p, *g, *uncle;

	while ((p = z->parent) && p->red) {
		/* a red parent is never the root, so g exists */
		g = p->parent;
		if (p == g->left) {
			uncle = g->right;
			if (is_red(uncle)) {
				p->red = false;
				uncle->red = false;
				g->red = true;
				z = g;
				continue;
			}
			if (z == p->right) {
				rotate_left(root, p);
				z = p;
				p = z->parent;
			}
			p->red = false;
			g->red = true;
			rotate_right(root, g);
		} else {
			uncle = g->left;
			if (is_red(uncle)) {
				p->red = false;
				uncle->red = false;
				g->red = true;
				z = g;
				continue;
			}
			if (z == p->left) {
				rotate_right(root, p);
				z = p;
				p = z->parent;
			}
			p->red = false;
			g->red = true;
			rotate_left(root, g);
		}
	}
	root->node->red = false;
}

void interval_tree_insert_at(struct interval_tree_node *node,
			     struct interval_tree_node *parent,
			     struct interval_tree_node **link,
			     struct interval_tree_root *root)
{
	struct interval_tree_node *n;

	/* subtree_last only grows towards the root: stop where it holds */
	for (n = parent; n && n->subtree_last < node->last; n = n->parent) {
		interval_tree_steps++;
		n->subtree_last = node->last;
	}
	node->parent = parent;
	node->left = NULL;
	node->right = NULL;
	node->red = true;
	node->subtree_last = node->last;
	*link = node;
	insert_fixup(root, node);
	root->nr++;
}

void interval_tree_insert(struct interval_tree_node *node,
			  struct interval_tree_root *root)
{
	struct interval_tree_node **link = &root->node, *parent = NULL;

	while (*link) {
		parent = *link;
		if (node->start < parent->start)
			link = &parent->left;
		else
			link = &parent->right;
	}
	interval_tree_insert_at(node, parent, link, root);
}

/*
 * @x (possibly NULL) under @parent carries an extra black: push it up
 * or resolve it with rotations and recolouring.
 */
static void remove_fixup(struct interval_tree_root *root,
			 struct interval_tree_node *x,
			 struct interval_tree_node *parent)
{
	struct interval_tree_node *w;

	while (x != root->node && !is_red(x)) {
		if (x == parent->left) {
			w = parent->right;
			if (w->red) {
				w->red = false;
				parent->red = true;
				rotate_left(root, parent);
				w = parent->right;
			}
			if (!is_red(w->left) && !is_red(w->right)) {
				w->red = true;
				x = parent;
				parent = x->parent;
				continue;
			}
			if (!is_red(w->right)) {
				w->left->red = false;
				w->red = true;
				rotate_right(root, w);
				w = parent->right;
			}
			w->red = parent->red;
			parent->red = false;
			w->right->red = false;
			rotate_left(root, parent);
		} else {
			w = parent->left;
			if (w->red) {
				w->red = false;
				parent->red = true;
				rotate_right(root, parent);
				w = parent->left;
			}
			if (!is_red(w->left) && !is_red(w->right)) {
				w->red = true;
				x = parent;
				parent = x->parent;
				continue;
			}
			if (!is_red(w->left)) {
				w->right->red = false;
				w->red = true;
				rotate_left(root, w);
				w = parent->left;
			}
			w->red = parent->red;
			parent->red = false;
			w->left->red = false;
			rotate_right(root, parent);
		}
		x = root->node;
		break;
	}
	if (x)
		x->red = false;
}

void interval_tree_remove(struct interval_tree_node *z,
			  struct interval_tree_root *root)
{
	struct interval_tree_node *x, *xparent, *n;
	bool removed_red;

	if (!z->left || !z->right) {
		x = z->left ? z->left : z->right;
		xparent = z->parent;
		removed_red = z->red;
		change_child(root, xparent, z, x);
		if (x)
			x->parent = xparent;
	} else {
		/* z's successor y, which has no left child, takes z's place */
		struct interval_tree_node *y = z->right;

		while (y->left)
			y = y->left;
		removed_red = y->red;
		x = y->right;
		if (y->parent == z) {
			xparent = y;
		} else {
			xparent = y->parent;
			xparent->left = x;
			if (x)
				x->parent = xparent;
			y->right = z->right;
			z->right->parent = y;
		}
		change_child(root, z->parent, z, y);
		y->parent = z->parent;
		y->left = z->left;
		z->left->parent = y;
		y->red = z->red;
	}
	/*
	 * Every node whose subtree lost z lies on the path from xparent
	 * to the root (y, if it moved, is on it too); no early stop,
	 * since y's cached value describes its old, smaller subtree.
	 */
	for (n = xparent; n; n = n->parent) {
		interval_tree_steps++;
		n->subtree_last = compute_subtree_last(n);
	}
	if (!removed_red)
		remove_fixup(root, x, xparent);
	root->nr--;
	z->parent = z->left = z->right = NULL;
}

/*
 * The leftmost node of @n's subtree whose interval ends at or after
 * @start; @n->subtree_last >= start guarantees there is one.
 */
static struct interval_tree_node *
leftmost_ending_after(struct interval_tree_node *n, unsigned long start)
{
	for (;;) {
		interval_tree_steps++;
		if (n->left && n->left->subtree_last >= start)
			n = n->left;
		else if (n->last >= start)
			return n;
		else
			n = n->right;
	}
}

/*
 * In start order, the first node ending at or after @start is the only
 * candidate: every later one not overlapping starts after @last, and
 * so does everything after it.
 */
struct interval_tree_node *
interval_tree_iter_first(const struct interval_tree_root *root,
			 unsigned long start, unsigned long last)
{
	struct interval_tree_node *n = root->node;

	if (!n || n->subtree_last < start)
		return NULL;
	n = leftmost_ending_after(n, start);
	return n->start <= last ? n : NULL;
}

struct interval_tree_node *
interval_tree_iter_next(const struct interval_tree_node *node,
			unsigned long start, unsigned long last)
{
	struct interval_tree_node *n = (struct interval_tree_node *)node;
	struct interval_tree_node *prev;

	for (;;) {
		if (n->right && n->right->subtree_last >= start) {
			n = leftmost_ending_after(n->right, start);
			return n->start <= last ? n : NULL;
		}
		/* climb to the first ancestor reached from its left */
		do {
			interval_tree_steps++;
			prev = n;
			n = n->parent;
			if (!n)
				return NULL;
		} while (prev == n->right);
		if (n->start > last)
			return NULL;
		if (n->last >= start)
			return n;
	}
}

struct interval_tree_node *
interval_tree_first(const struct interval_tree_root *root)
{
	struct interval_tree_node *n = root->node;

	while (n && n->left)
		n = n->left;
	return n;
}

struct interval_tree_node *
interval_tree_next(const struct interval_tree_node *node)
{
	struct interval_tree_node *n = (struct interval_tree_node *)node;
	struct interval_tree_node *prev;

	if (n->right) {
		n = n->right;
		while (n->left)
			n = n->left;
		return n;
	}
	do {
		prev = n;
		n = n->parent;
	} while (n && prev == n->right);
	return n;
}

/* Black height of @n's subtree, or -1 with *@err set. */
static int check_subtree(const struct interval_tree_node *n,
			 const struct interval_tree_node *parent,
			 unsigned long *count, const char **err)
{
	int lh, rh;

	if (!n)
		return 0;
	(*count)++;
	if (n->parent != parent)
		*err = "wrong parent pointer";
	else if (n->start > n->last)
		*err = "interval with start > last";
	else if (n->red && (is_red(n->left) || is_red(n->right)))
		*err = "red node with a red child";
	else if (n->subtree_last != compute_subtree_last(n))
		*err = "stale subtree_last";
	if (*err)
		return -1;
	lh = check_subtree(n->left, n, count, err);
	if (lh < 0)
		return -1;
	rh = check_subtree(n->right, n, count, err);
	if (rh < 0)
		return -1;
	if (lh != rh) {
		*err = "unequal black heights";
		return -1;
	}
	return lh + !n->red;
}

const char *interval_tree_check(const struct interval_tree_root *root)
{
	const struct interval_tree_node *n, *prev = NULL;
	const char *err = NULL;
	unsigned long count = 0;

	if (is_red(root->node))
		return "red root";
	if (check_subtree(root->node, NULL, &count, &err) < 0)
		return err;
	if (count != root->nr)
		return "node count differs from nr";
	for (n = interval_tree_first(root); n; n = interval_tree_next(n)) {
		if (prev && prev->start > n->start)
			return "in-order starts decrease";
		prev = n;
	}
	return NULL;
}
