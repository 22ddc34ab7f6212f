/*
 * SimGrid SMPI's global shared malloc, emulated under a real MPI for scripts/test-mpi.
 *
 * smpicc force-includes smpi/smpi_helpers.h, which #defines malloc, calloc, realloc and free
 * to SMPI's interceptors (src/smpi/internals/smpi_shared.cpp, SimGrid 3.32): with
 * smpi/shared-malloc:global every malloc or calloc of at least smpi/auto-shared-malloc-thresh
 * bytes maps the same bytes, whatever it was allocated for; realloc of such a block gives
 * another one on the same bytes; realloc and free of any other block are the C library's.
 * This header does the same for every allocation of at least LIQUID_TEST_SHARED_THRESH bytes
 * (default 1: every allocation through the macros), so that a runtime keeping bookkeeping in
 * plain malloc'd memory breaks under mpicc as it did under SMPI. Use it as smpicc does:
 * `mpicc -include crates/mpi/tests/shared_malloc_alias.h ...`, and run with --no-check (the
 * data of the messages is shared too, as under SMPI).
 */
#ifndef LIQUID_SHARED_MALLOC_ALIAS_H
#define LIQUID_SHARED_MALLOC_ALIAS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* as smpi_helpers.h: the runtime's own feature macros come later */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef LIQUID_TEST_SHARED_THRESH
#define LIQUID_TEST_SHARED_THRESH 1
#endif

/* The shared blocks: address and size (a program of this test makes few). */
static struct {
    void *at;
    size_t size;
} liquid_alias_blocks[1 << 16];
static size_t liquid_alias_n;
static int liquid_alias_fd = -1;
static size_t liquid_alias_file;

static inline void *liquid_alias_map(size_t size) {
    if (liquid_alias_fd < 0) {
        char name[] = "/tmp/liquid-shared-malloc-XXXXXX";
        liquid_alias_fd = mkstemp(name);
        if (liquid_alias_fd < 0) abort();
        unlink(name);
    }
    if (size > liquid_alias_file) {
        if (ftruncate(liquid_alias_fd, (off_t)size) != 0) abort();
        liquid_alias_file = size;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, liquid_alias_fd, 0);
    if (p == MAP_FAILED || liquid_alias_n == sizeof liquid_alias_blocks / sizeof liquid_alias_blocks[0])
        abort();
    liquid_alias_blocks[liquid_alias_n].at = p;
    liquid_alias_blocks[liquid_alias_n].size = size;
    liquid_alias_n++;
    return p;
}

/* The index of a shared block, or -1. */
static inline long liquid_alias_find(const void *p) {
    for (size_t i = 0; i < liquid_alias_n; i++)
        if (liquid_alias_blocks[i].at == p) return (long)i;
    return -1;
}

static inline void *liquid_alias_malloc(size_t size) {
    return size >= LIQUID_TEST_SHARED_THRESH ? liquid_alias_map(size) : (malloc)(size);
}

static inline void *liquid_alias_calloc(size_t n, size_t size) {
    if (n * size < LIQUID_TEST_SHARED_THRESH) return (calloc)(n, size);
    return memset(liquid_alias_map(n * size), 0, n * size);
}

static inline void liquid_alias_free(void *p) {
    long i = liquid_alias_find(p);
    if (i < 0) {
        (free)(p);
        return;
    }
    munmap(p, liquid_alias_blocks[i].size);
    liquid_alias_blocks[i] = liquid_alias_blocks[--liquid_alias_n];
}

static inline void *liquid_alias_realloc(void *p, size_t size) {
    if (!p) return liquid_alias_malloc(size);
    long i = liquid_alias_find(p);
    if (i < 0) return (realloc)(p, size);
    size_t old = liquid_alias_blocks[i].size;
    void *q = liquid_alias_malloc(size);
    memmove(q, p, old < size ? old : size);
    liquid_alias_free(p);
    return q;
}

#define malloc(x) liquid_alias_malloc(x)
#define calloc(x, y) liquid_alias_calloc((x), (y))
#define realloc(x, y) liquid_alias_realloc((x), (y))
#define free(x) liquid_alias_free(x)

#endif
