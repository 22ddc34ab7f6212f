/*
 * liquid-mpi: runs a plan written by `liquid export mpi` (per rank, ordered sends and
 * receives with the step each belongs to) with plain MPI point-to-point calls.
 *
 * The same source builds with mpicc (Open MPI, MPICH) and with SimGrid's smpicc.
 * The file format is documented in crates/mpi/README.md.
 *
 * Use from an MPI program, in place of MPI_Alltoallv:
 *
 *     liquid_plan *plan;
 *     char err[512];
 *     if (liquid_plan_load("plan-dir", MPI_COMM_WORLD, &plan, err, sizeof err))
 *         { fprintf(stderr, "%s\n", err); MPI_Abort(MPI_COMM_WORLD, 2); }
 *     liquid_alltoallv(plan, sbuf, scounts, sdispls, MPI_BYTE,
 *                      rbuf, rcounts, rdispls, MPI_BYTE, MPI_COMM_WORLD);
 *     liquid_plan_free(plan);
 */
#ifndef LIQUID_MPI_H
#define LIQUID_MPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A loaded plan: this rank's operations. */
typedef struct liquid_plan liquid_plan;

/** Per-step figures of one run (this rank's view until liquid_report reduces them). */
typedef struct {
    double start;     /* first post of an operation of the step, s after the run's start */
    double end;       /* last completion of an operation of the step */
    double bytes;     /* bytes sent in the step */
    double messages;  /* messages sent in the step */
} liquid_step_stats;

/** Options of a run. */
typedef struct {
    int check;         /* verify every received byte against the (source, destination,
                          offset) pattern (the runner fills send buffers with it); 0 also
                          leaves the data unmoved (no relay packing, no unpacking) */
    double timeout;    /* seconds without progress before a rank gives up naming what it
                          waits for (0: wait forever, as under SMPI) */
    int max_errors;    /* errors printed per rank before the rest are only counted */
} liquid_options;

/** Reads this rank's file `DIR/rank-<r>.txt` of a plan for the communicator's size.
 *  Returns 0, or non-zero with a message in err (naming file, line and field). */
int liquid_plan_load(const char *dir, MPI_Comm comm, liquid_plan **plan, char *err,
                     size_t errlen);

/** Frees a plan. */
void liquid_plan_free(liquid_plan *plan);

/** Number of steps (largest step number + 1, agreed over all ranks after a run). */
int liquid_plan_steps(const liquid_plan *plan);

/** The plan's mode as its files name it ("frames", "async", "lg", ...). */
const char *liquid_plan_mode(const liquid_plan *plan);

/** Bytes this rank's plan sends to rank `dst` of its own data, and expects from `src`
 *  (for sizing the buffers of liquid_alltoallv). */
size_t liquid_plan_send_bytes(const liquid_plan *plan, int dst);
size_t liquid_plan_recv_bytes(const liquid_plan *plan, int src);

/** MPI_Alltoallv by the plan. The plan's bytes for each pair must equal the counts times
 *  the type's size. Returns MPI_SUCCESS, or MPI_ERR_OTHER after printing on stderr what
 *  went wrong (rank, peer, step). Collective over comm. */
int liquid_alltoallv(liquid_plan *plan, const void *sendbuf, const int *sendcounts,
                     const int *sdispls, MPI_Datatype sendtype, void *recvbuf,
                     const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                     MPI_Comm comm);

/** MPI_Alltoall by the plan (every pair carries sendcount elements). */
int liquid_alltoall(liquid_plan *plan, const void *sendbuf, int sendcount,
                    MPI_Datatype sendtype, void *recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm);

/** The general form: runs the plan with this rank's data for rank d at send[d] (of
 *  liquid_plan_send_bytes(plan, d) bytes) and the data from rank s into recv[s].
 *  Fills stats (one entry per step, liquid_plan_steps long, may be NULL) with this
 *  rank's view and *total with this rank's time. Returns the number of errors found
 *  on this rank (each printed on stderr). Collective over comm. */
long liquid_execute(liquid_plan *plan, char *const *send, char *const *recv,
                    const liquid_options *opts, MPI_Comm comm, liquid_step_stats *stats,
                    double *total);

/** Memory for bookkeeping (plans, requests, buffer pointers, statistics, counts), always
 *  from the C library's allocator, never shared by a simulator; free it with
 *  liquid_mem_free only. Under SimGrid's smpicc, plain malloc, calloc, realloc and free are
 *  macros (smpi/smpi_helpers.h, force-included by smpicc) that hand every allocation of at
 *  least `smpi/auto-shared-malloc-thresh` bytes to SMPI's shared malloc, and with
 *  `smpi/shared-malloc:global` all such allocations of all ranks share the same bytes: right
 *  for message data whose content a run does not check, wrong for anything the program
 *  reads back. Message data keeps plain malloc and free so that SMPI may share it. Under
 *  mpicc both are the C library's. Returns NULL when out of memory. */
void *liquid_mem_alloc(size_t bytes);

/** As liquid_mem_alloc, for n zeroed elements of `size` bytes (calloc's contract). */
void *liquid_mem_calloc(size_t n, size_t size);

/** Frees memory of liquid_mem_alloc or liquid_mem_calloc (NULL: nothing). */
void liquid_mem_free(void *p);

/** The pattern byte of offset `off` of the data from rank src to rank dst. */
unsigned char liquid_pattern_byte(int src, int dst, size_t off);

/** Fills buf with the pattern of (src, dst) from offset off on. */
void liquid_pattern_fill(unsigned char *buf, int src, int dst, size_t off, size_t len);

#ifdef __cplusplus
}
#endif
#endif
