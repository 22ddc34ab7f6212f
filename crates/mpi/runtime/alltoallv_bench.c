/*
 * The baseline a user would otherwise get: the MPI library's own MPI_Alltoallv, with the
 * counts of a plan written by `liquid export mpi` (each pair's bytes), timed.
 *
 *   mpirun -np N alltoallv-bench [--repeat K] DIR
 *
 * When every pair of distinct ranks carries the same bytes (a uniform all-to-all) it calls
 * MPI_Alltoall with that count instead (the collective a user would call, whose algorithm
 * choice SMPI's coll-selector models). Prints on rank 0: `alltoall: T s (fastest of K)` or
 * `alltoallv: ...`, T the largest time over ranks from a barrier to the end of the call.
 */
#include "liquid_mpi.h"

#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, repeat = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else
            dir = argv[i];
    }
    if (!dir || repeat < 1) {
        if (rank == 0) fprintf(stderr, "usage: alltoallv-bench [--repeat K] DIR\n");
        MPI_Finalize();
        return 2;
    }
    char err[1024];
    liquid_plan *plan;
    if (liquid_plan_load(dir, MPI_COMM_WORLD, &plan, err, sizeof err)) {
        fprintf(stderr, "alltoallv-bench: %s\n", err);
        MPI_Finalize();
        return 2;
    }
    /* Counts and displacements: bookkeeping, never shared under SMPI (liquid_mem_*); the
       data buffers below are plain malloc, which SMPI may share. */
    int *sc = liquid_mem_calloc((size_t)size, sizeof *sc), *sd = liquid_mem_calloc((size_t)size, sizeof *sd);
    int *rc = liquid_mem_calloc((size_t)size, sizeof *rc), *rd = liquid_mem_calloc((size_t)size, sizeof *rd);
    size_t st = 0, rt = 0;
    for (int i = 0; i < size; i++) {
        sc[i] = (int)liquid_plan_send_bytes(plan, i);
        rc[i] = (int)liquid_plan_recv_bytes(plan, i);
        sd[i] = (int)st;
        rd[i] = (int)rt;
        st += (size_t)sc[i];
        rt += (size_t)rc[i];
    }
    /* Uniform: every other rank gets and sends the same count, on every rank. */
    int lo = -1, hi = -1;
    for (int i = 0; i < size; i++) {
        if (i == rank) continue;
        int v[2] = {sc[i], rc[i]};
        for (int k = 0; k < 2; k++) {
            if (lo < 0 || v[k] < lo) lo = v[k];
            if (v[k] > hi) hi = v[k];
        }
    }
    int mine[2] = {-lo, hi}, all2[2];
    MPI_Allreduce(mine, all2, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int uniform = size > 1 && -all2[0] == all2[1] && all2[1] > 0;
    int count = all2[1];
    if (uniform) {
        st = rt = (size_t)count * (size_t)size;
    }
    char *s = malloc(st ? st : 1), *r = malloc(rt ? rt : 1);
    double best = 1e300;
    for (int k = 0; k < repeat; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (uniform)
            MPI_Alltoall(s, count, MPI_BYTE, r, count, MPI_BYTE, MPI_COMM_WORLD);
        else
            MPI_Alltoallv(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
        double t = MPI_Wtime() - t0, all = 0;
        MPI_Allreduce(&t, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (all < best) best = all;
    }
    if (rank == 0)
        printf("%s: %.9g s (fastest of %d)\n", uniform ? "alltoall" : "alltoallv", best, repeat);
    liquid_plan_free(plan);
    free(s);
    free(r);
    liquid_mem_free(sc);
    liquid_mem_free(sd);
    liquid_mem_free(rc);
    liquid_mem_free(rd);
    MPI_Finalize();
    return 0;
}
