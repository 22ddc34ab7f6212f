/* The time an MPI program's all-to-all took, as the SMPI benchmarks report it: from the
 * first rank's start (t0) to the last rank's end (now), printed by rank 0 as
 * "alltoall: SECONDS s" (read by mpi_plans.py and mpi_rndv.py). */
#include <mpi.h>
#include <stdio.h>

static void report_span(double t0, int rank) {
    double t1 = MPI_Wtime(), first = 0.0, last = 0.0;
    MPI_Reduce(&t0, &first, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t1, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("alltoall: %.9f s\n", last - first);
}
