/*
 * liquid_alltoall in place of MPI_Alltoall in a user's program.
 *
 *   mpirun -np N alltoall-example DIR BYTES
 *
 * DIR is an all-to-all plan written by `liquid export mpi` with --size BYTES. Every rank
 * fills its send buffer with its own values, runs MPI_Alltoall and liquid_alltoall, and
 * checks that both delivered the same bytes. Prints "liquid_alltoall: correct" on rank 0.
 */
#include "liquid_mpi.h"

#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3) {
        if (rank == 0) fprintf(stderr, "usage: alltoall-example DIR BYTES\n");
        MPI_Finalize();
        return 2;
    }
    int bytes = atoi(argv[2]);
    char err[1024];
    liquid_plan *plan;
    if (liquid_plan_load(argv[1], MPI_COMM_WORLD, &plan, err, sizeof err)) {
        fprintf(stderr, "alltoall-example: %s\n", err);
        MPI_Finalize();
        return 2;
    }
    size_t total = (size_t)bytes * (size_t)size;
    unsigned char *s = malloc(total), *r1 = malloc(total), *r2 = malloc(total);
    for (size_t i = 0; i < total; i++) s[i] = (unsigned char)(rank * 31 + i * 7 + i / 251);
    memset(r1, 0, total);
    memset(r2, 0xff, total);
    MPI_Alltoall(s, bytes, MPI_BYTE, r1, bytes, MPI_BYTE, MPI_COMM_WORLD);
    int rc = liquid_alltoall(plan, s, bytes, MPI_BYTE, r2, bytes, MPI_BYTE, MPI_COMM_WORLD);
    int bad = rc != MPI_SUCCESS || memcmp(r1, r2, total) != 0;
    if (bad) fprintf(stderr, "alltoall-example: rank %d: liquid_alltoall differs from MPI_Alltoall\n", rank);
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("liquid_alltoall: %s\n", anybad ? "WRONG" : "correct");
    liquid_plan_free(plan);
    free(s);
    free(r1);
    free(r2);
    MPI_Finalize();
    return anybad;
}
