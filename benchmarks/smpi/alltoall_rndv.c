/*
 * One all-to-all of BYTES per pair, pairwise or basic linear, whose messages of EAGER bytes
 * or more perform an explicit rendezvous with point-to-point calls: for checking the
 * rendezvous round trip of liquid's transport (crates/sim, `Transport::eager_limit_bytes`)
 * against SMPI, which does not simulate a handshake of its own (a send of any size is one
 * simulated communication that starts when both sides are posted). See
 * benchmarks/smpi/mpi_rndv.py.
 *
 *   smpirun ... -np P alltoall-rndv ALGORITHM BYTES EAGER FIRST
 *
 * ALGORITHM: `pairwise` (p-1 rounds; in round s rank r receives from r-s and sends to r+s,
 * posting its receive first, as Open MPI's ompi_coll_tuned_sendrecv does) or `linear` (one
 * round: every receive, then every send to r+1, r+2, ...; Open MPI 1.1.2's basic linear).
 * A rank starts its next round when all of its messages of this round are complete.
 *
 * A message of fewer than EAGER bytes (EAGER 0: every message) is one send, eager under the
 * SMPI settings of the script (`smpi/async-small-thresh` and `send-is-detached-thresh` at
 * 65536). A message of EAGER bytes or more follows Open MPI 1.1.2's ob1 rendezvous over the
 * TCP BTL (ompi/mca/pml/ob1 at v1.1.2):
 *   1. the sender sends a first fragment of FIRST bytes of data at once
 *      (mca_pml_ob1_send_request_start_rndv, pml_ob1_sendreq.c: `size = eager_limit`,
 *      the BTL's eager limit less ob1's header);
 *   2. the receiver, once its receive is posted and that fragment has arrived (the match,
 *      mca_pml_ob1_recv_request_progress, MCA_PML_OB1_HDR_TYPE_RNDV), sends an ACK
 *      (mca_pml_ob1_recv_request_ack, pml_ob1_recvreq.c) of no data;
 *   3. the sender, once it has the ACK (MCA_PML_OB1_SEND_REQUEST_ADVANCE: the first
 *      fragment sent and the ACK received), sends the rest (mca_pml_ob1_send_request_schedule).
 * The message is complete at both ends when the rest is delivered (the rest is sent with
 * MPI_Issend so that even a short rest completes at delivery). FIRST 0 gives a plain
 * request-to-send / clear-to-send of no data before all of the data.
 *
 * Prints on rank 0 `alltoall: T s`: from the earliest rank's start to the last rank's end.
 * No barrier before (see alltoall_once.c).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "span.h"

enum { EAGER_SEND, EAGER_RECV, RNDV_SEND, RNDV_RECV };

typedef struct {
    int kind, peer, state; /* state: the phase of the protocol; -1 when complete */
    MPI_Request req;       /* the request the op waits on */
} op;

static int first_bytes;
static char *sbuf, *rbuf;
static size_t bytes;

/* Tags of round k: 4k the message or first fragment, 4k+1 the ACK, 4k+2 the rest. */
static void post(op *o, int k, MPI_Comm c) {
    char *s = sbuf + (size_t)o->peer * bytes, *r = rbuf + (size_t)o->peer * bytes;
    switch (o->kind) {
    case EAGER_SEND: MPI_Isend(s, (int)bytes, MPI_BYTE, o->peer, 4 * k, c, &o->req); break;
    case EAGER_RECV: MPI_Irecv(r, (int)bytes, MPI_BYTE, o->peer, 4 * k, c, &o->req); break;
    case RNDV_SEND:
        /* The first fragment goes at once (detached); the op waits for the ACK. */
        {
            MPI_Request f;
            MPI_Isend(s, first_bytes, MPI_BYTE, o->peer, 4 * k, c, &f);
            MPI_Request_free(&f);
        }
        MPI_Irecv(r, 0, MPI_BYTE, o->peer, 4 * k + 1, c, &o->req);
        break;
    case RNDV_RECV: MPI_Irecv(r, first_bytes, MPI_BYTE, o->peer, 4 * k, c, &o->req); break;
    }
    o->state = 0;
}

/* The op's request completed: next phase, or done. */
static void advance(op *o, int k, MPI_Comm c) {
    size_t rest = bytes - (size_t)first_bytes;
    char *s = sbuf + (size_t)o->peer * bytes + first_bytes, *r = rbuf + (size_t)o->peer * bytes + first_bytes;
    if (o->kind == EAGER_SEND || o->kind == EAGER_RECV || o->state == 1) {
        o->state = -1;
        o->req = MPI_REQUEST_NULL;
    } else if (o->kind == RNDV_SEND) { /* the ACK is here: the rest */
        MPI_Issend(s, (int)rest, MPI_BYTE, o->peer, 4 * k + 2, c, &o->req);
        o->state = 1;
    } else { /* the first fragment is matched: the ACK, and the receive of the rest */
        MPI_Irecv(r, (int)rest, MPI_BYTE, o->peer, 4 * k + 2, c, &o->req);
        MPI_Request a;
        MPI_Isend(r, 0, MPI_BYTE, o->peer, 4 * k + 1, c, &a);
        MPI_Request_free(&a);
        o->state = 1;
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc != 5 || (strcmp(argv[1], "pairwise") && strcmp(argv[1], "linear"))) {
        if (rank == 0) fprintf(stderr, "usage: alltoall-rndv pairwise|linear BYTES EAGER FIRST\n");
        MPI_Finalize();
        return 2;
    }
    int linear = strcmp(argv[1], "linear") == 0;
    bytes = (size_t)atol(argv[2]);
    size_t eager = (size_t)atol(argv[3]);
    first_bytes = atoi(argv[4]);
    int rndv = eager > 0 && bytes >= eager;
    if (rndv && (size_t)first_bytes >= bytes) {
        if (rank == 0) fprintf(stderr, "alltoall-rndv: FIRST must be below BYTES\n");
        MPI_Finalize();
        return 2;
    }
    sbuf = malloc(bytes * (size_t)p + 1);
    rbuf = malloc(bytes * (size_t)p + 1);
    int rounds = linear ? 1 : p - 1, per = linear ? 2 * (p - 1) : 2;
    op *ops = malloc((size_t)per * sizeof *ops);
    MPI_Request *rq = malloc((size_t)per * sizeof *rq);
    double t0 = MPI_Wtime();
    for (int k = 0; k < rounds; k++) {
        int n = 0;
        /* Receives first, then sends (in the library's order). */
        for (int i = 1; i < p; i++) {
            if (!linear && i != k + 1) continue;
            ops[n].kind = rndv ? RNDV_RECV : EAGER_RECV;
            ops[n++].peer = (rank - i + p) % p;
        }
        for (int i = 1; i < p; i++) {
            if (!linear && i != k + 1) continue;
            ops[n].kind = rndv ? RNDV_SEND : EAGER_SEND;
            ops[n++].peer = (rank + i) % p;
        }
        for (int i = 0; i < n; i++) post(&ops[i], linear ? 0 : k, MPI_COMM_WORLD);
        for (;;) {
            int live = 0;
            for (int i = 0; i < n; i++) {
                rq[i] = ops[i].state < 0 ? MPI_REQUEST_NULL : ops[i].req;
                live += ops[i].state >= 0;
            }
            if (!live) break;
            int idx;
            MPI_Waitany(n, rq, &idx, MPI_STATUS_IGNORE);
            advance(&ops[idx], linear ? 0 : k, MPI_COMM_WORLD);
        }
    }
    report_span(t0, rank);
    free(ops);
    free(rq);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
