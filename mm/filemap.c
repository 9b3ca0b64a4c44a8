// SPDX-License-Identifier: GPL-2.0
/*
 * The page cache of the model's files: enough for MAP_PRIVATE file
 * mappings to read-map a file folio and COW it. Files are never
 * written, so a cached folio stays until the model is destroyed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cowctx/mm.h>
#include "mm/internal.h"

struct file *model_file(struct model *m, const char *name)
{
	struct file *file;

	list_for_each_entry(file, &m->files, node)
		if (!file->shmem && !strcmp(file->f_name, name))
			return file;
	file = model_zalloc(sizeof(*file));
	if (!file)
		return NULL;
	file->f_name = strdup(name);
	if (!file->f_name) {
		model_free(file);
		return NULL;
	}
	file->f_mapping.host = file;
	list_add_tail(&file->node, &m->files);
	return file;
}

static unsigned long cache_index(struct address_space *as, unsigned long index)
{
	unsigned long lo = 0, hi = as->nrpages;

	while (lo < hi) {
		unsigned long mid = lo + (hi - lo) / 2;

		if (as->pages[mid]->index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The cached folio at @index, read in if absent (filemap_fault()).
 * Returns it with a reference for the caller; NULL on ENOMEM.
 */
struct folio *filemap_get_folio(struct model *m, struct file *file,
				unsigned long index)
{
	struct address_space *as = &file->f_mapping;
	unsigned long i = cache_index(as, index);
	struct folio *folio;

	if (i < as->nrpages && as->pages[i]->index == index) {
		folio = as->pages[i];
		folio_get(folio);
		return folio;
	}
	if (as->nrpages == as->capacity) {
		unsigned long cap = as->capacity ? as->capacity * 2 : 8;
		struct folio **pages = model_realloc(as->pages,
						     cap * sizeof(*pages));

		if (!pages)
			return NULL;
		as->pages = pages;
		as->capacity = cap;
	}
	folio = folio_alloc(m);
	if (!folio)
		return NULL;
	folio->mapping = as;
	folio->index = index;
	memmove(&as->pages[i + 1], &as->pages[i],
		(as->nrpages - i) * sizeof(*as->pages));
	as->pages[i] = folio;
	as->nrpages++;
	/* the page cache's reference, and the caller's */
	folio_get(folio);
	return folio;
}

/*
 * shmem_zero_setup()'s file: named "dev/zero#N" as /proc shows
 * "/dev/zero (deleted)", N counting from 1 per model, so that two model
 * instances running one scenario give each mapping the same name (a
 * '/' no scenario file name has).
 */
struct file *model_shmem_file(struct model *m)
{
	struct file *file = model_zalloc(sizeof(*file));
	char name[32];

	if (!file)
		return NULL;
	snprintf(name, sizeof(name), "dev/zero#%lu", ++m->nr_shmem_files);
	file->f_name = strdup(name);
	if (!file->f_name) {
		model_free(file);
		return NULL;
	}
	file->shmem = true;
	file->f_mapping.host = file;
	list_add_tail(&file->node, &m->files);
	return file;
}

struct folio *filemap_lookup_folio(struct file *file, unsigned long index)
{
	struct address_space *as = &file->f_mapping;
	unsigned long i = cache_index(as, index);

	if (i == as->nrpages || as->pages[i]->index != index)
		return NULL;
	folio_get(as->pages[i]);
	return as->pages[i];
}

/* Drop the page cache of every file, then the files (model teardown). */
void filemap_release_all(struct model *m)
{
	struct file *file, *tmp;

	list_for_each_entry_safe(file, tmp, &m->files, node) {
		struct address_space *as = &file->f_mapping;
		unsigned long i;

		for (i = 0; i < as->nrpages; i++)
			folio_put(as->pages[i]);
		model_free(as->pages);
		list_del(&file->node);
		free(file->f_name);
		model_free(file);
	}
}
