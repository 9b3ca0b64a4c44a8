// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include <cowctx/account.h>

long alloc_fail_nth;

static int should_fail(void)
{
	if (alloc_fail_nth <= 0)
		return 0;
	return --alloc_fail_nth == 0;
}

void *model_zalloc(size_t size)
{
	if (should_fail())
		return NULL;
	return calloc(1, size);
}

void *model_realloc(void *p, size_t size)
{
	if (should_fail())
		return NULL;
	return realloc(p, size);
}

void model_free(void *p)
{
	free(p);
}

int account_register(struct account *acct, const char *name)
{
	int i;

	for (i = 0; i < acct->nr_types; i++)
		if (!strcmp(acct->type[i].name, name))
			return i;
	if (acct->nr_types == ACCOUNT_MAX_TYPES)
		abort();	/* a backend with too many types is a build bug */
	acct->type[acct->nr_types].name = name;
	return acct->nr_types++;
}

int account_register_field(struct account *acct, const char *name)
{
	int type = account_register(acct, name);

	acct->type[type].field = true;
	return type;
}

static void charge(struct account *acct, long bytes)
{
	acct->bytes += bytes;
	if (acct->bytes > acct->peak_bytes)
		acct->peak_bytes = acct->bytes;
}

void *account_alloc(struct account *acct, int type, size_t size,
		    size_t kernel_bytes)
{
	struct obj_type_stat *t = &acct->type[type];
	void *p = model_zalloc(size);

	if (!p)
		return NULL;
	t->allocs++;
	if (++t->live > t->peak)
		t->peak = t->live;
	charge(acct, (long)kernel_bytes);
	return p;
}

void account_free(struct account *acct, int type, void *p,
		  size_t kernel_bytes)
{
	struct obj_type_stat *t = &acct->type[type];

	if (!p)
		return;
	t->frees++;
	t->live--;
	acct->bytes -= (long)kernel_bytes;
	model_free(p);
}

void account_charge(struct account *acct, int type, long n,
		    size_t kernel_bytes)
{
	struct obj_type_stat *t = &acct->type[type];

	/*
	 * Nothing is allocated or freed: allocs and frees count calls to
	 * the allocator (the bench's allocations per fork), and a field
	 * inside a VMA costs none.
	 */
	if (!t->field)
		abort();	/* an object type charged as a field: a bug */
	t->live += n;
	if (t->live > t->peak)
		t->peak = t->live;
	acct->field_bytes += n * (long)kernel_bytes;
	charge(acct, n * (long)kernel_bytes);
}

long account_live_total(const struct account *acct)
{
	long n = 0;
	int i;

	for (i = 0; i < acct->nr_types; i++)
		if (!acct->type[i].field)
			n += acct->type[i].live;
	return n;
}
