// SPDX-License-Identifier: GPL-2.0
/*
 * File names in a recording: the scenario language takes at most 63
 * characters, no '/', and NAME:OFFSET leaves no room for ':' or blanks.
 * A path becomes its last component with every other character made
 * '_', and a suffix where two paths would share a name.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel/record.h"

#define NAME_MAX_LEN	63
#define NAME_BUCKETS	1024

struct name_ent {
	struct name_ent *next;
	char *path;
	char name[NAME_MAX_LEN + 1];
};

struct rec_names {
	struct name_ent *by_path[NAME_BUCKETS];
};

static unsigned int hash(const char *s)
{
	unsigned int h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h % NAME_BUCKETS;
}

struct rec_names *rec_names_create(void)
{
	return calloc(1, sizeof(struct rec_names));
}

void rec_names_destroy(struct rec_names *n)
{
	int i;

	if (!n)
		return;
	for (i = 0; i < NAME_BUCKETS; i++) {
		struct name_ent *e = n->by_path[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e->path);
			free(e);
		}
	}
	free(n);
}

static bool name_taken(const struct rec_names *n, const char *name)
{
	int i;

	for (i = 0; i < NAME_BUCKETS; i++) {
		const struct name_ent *e;

		for (e = n->by_path[i]; e; e = e->next)
			if (!strcmp(e->name, name))
				return true;
	}
	return false;
}

static void sanitise(const char *path, char *out)
{
	const char *base = strrchr(path, '/');
	size_t len, i;

	base = base ? base + 1 : path;
	len = strcspn(base, " ");	/* " (deleted)" */
	if (!len) {
		base = "file";
		len = 4;
	}
	if (len > NAME_MAX_LEN)
		len = NAME_MAX_LEN;
	for (i = 0; i < len; i++) {
		char c = base[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '-' ||
			 c == '+' || c == '_' ? c : '_';
	}
	out[len] = '\0';
	if (!strcmp(out, ".") || !strcmp(out, ".."))
		strcpy(out, "dot");
}

const char *rec_names_get(struct rec_names *n, const char *path)
{
	unsigned int h = hash(path);
	char base[NAME_MAX_LEN + 1];
	struct name_ent *e;
	int suffix;

	for (e = n->by_path[h]; e; e = e->next)
		if (!strcmp(e->path, path))
			return e->name;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->path = strdup(path);
	if (!e->path) {
		free(e);
		return NULL;
	}
	sanitise(path, base);
	strcpy(e->name, base);
	/* the files of one recording are few: a linear search will do */
	for (suffix = 2; name_taken(n, e->name); suffix++)
		snprintf(e->name, sizeof(e->name), "%.50s.%d", base,
			 suffix % 1000000);
	e->next = n->by_path[h];
	n->by_path[h] = e;
	return e->name;
}
