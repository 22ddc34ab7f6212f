/*
 * One MPI_Alltoall of BYTES per pair (MPI_BYTE), timed: for checking liquid's plans of the
 * MPI libraries' all-to-all algorithms against SMPI running the same algorithm
 * (`--cfg=smpi/alltoall:NAME`), see benchmarks/smpi/mpi_plans.py.
 *
 *   smpirun ... -np P alltoall-once BYTES
 *
 * Prints on rank 0 `alltoall: T s`: from the earliest rank's start of the call to the last
 * rank's return. No barrier before the call: under SMPI every rank starts at simulated time
 * 0 after MPI_Init, as every rank of liquid's plan does, while a barrier over the backbone
 * would release the ranks milliseconds apart.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "span.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2) {
        if (rank == 0) fprintf(stderr, "usage: alltoall-once BYTES\n");
        MPI_Finalize();
        return 2;
    }
    int bytes = atoi(argv[1]);
    char *s = malloc((size_t)bytes * (size_t)size + 1);
    char *r = malloc((size_t)bytes * (size_t)size + 1);
    double t0 = MPI_Wtime();
    MPI_Alltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, MPI_COMM_WORLD);
    report_span(t0, rank);
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
