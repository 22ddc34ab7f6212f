/*
 * liquid-mpi: the plan executor (see liquid_mpi.h and crates/mpi/README.md).
 *
 * One rank's plan is a list of operations in file order: post a receive, post a send,
 * wait for posted operations, a barrier. Posting never blocks, except that a send which
 * forwards data received earlier (a relay, as in paper 001's LG) first waits for the
 * receives that bring that data. Every operation has a step (a timeframe, a round); its
 * tag is the step modulo 32768, so that messages of different steps never match.
 *
 * Checks: every received message has the size its receive names; with checking on, every
 * byte of every piece equals the pattern of its (source, destination, offset), relayed
 * pieces included, at the rank where it arrives; at the end every rank holds exactly the
 * bytes its `expect` lines name, each once; and no message is left unreceived. Errors name
 * the rank, the peer and the step. A rank that waits longer than the timeout without
 * progress prints what it waits for and exits non-zero.
 */
#define _POSIX_C_SOURCE 200809L
#include "liquid_mpi.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAG_MOD 32768

/* Bookkeeping memory (liquid_mpi.h): the C library's allocator even under SimGrid's smpicc,
 * whose force-included smpi/smpi_helpers.h #defines malloc, calloc, realloc and free to SMPI's
 * interceptors. Those hand every allocation of at least smpi/auto-shared-malloc-thresh bytes
 * to SMPI's shared malloc, and with smpi/shared-malloc:global every such allocation of every
 * rank maps the same physical block (src/smpi/internals/smpi_shared.cpp, SimGrid 3.32; a
 * realloc'd block that started below the threshold stays the C library's). A plan of 8,746
 * operations per rank (fat-tree:4,3, one-hot sizes, 64 MiB per rank, --plan pieces) thus had
 * its arrays of requests, buffer pointers, pending operations and clock readings (8 bytes per
 * operation, 70 KB) on the same bytes: a send's buffer pointer read back as the clock reading
 * written after it (0.0 with smpi/wtime:0: "PMPI_Isend: param 1 buf cannot be NULL"; a small
 * double otherwise: a segmentation fault). A parenthesised name, `(malloc)(n)`, is not expanded by a function-like
 * macro, so these call the C library under smpicc as under mpicc. Message data (receive
 * buffers of relays and of multi-piece messages, assembled send buffers, the sink of an
 * unmatched message) keeps plain malloc and free, so that SMPI may share it when the bytes
 * are not checked. Every block is freed by the family that allocated it. */
void *liquid_mem_alloc(size_t bytes) { return (malloc)(bytes ? bytes : 1); }
void *liquid_mem_calloc(size_t n, size_t size) { return (calloc)(n ? n : 1, size ? size : 1); }
void liquid_mem_free(void *p) { (free)(p); }
static void *mem_realloc(void *p, size_t bytes) { return (realloc)(p, bytes); }


enum { OP_RECV, OP_SEND, OP_SSEND, OP_WAIT, OP_BARRIER };
enum { W_ALL, W_SENDS, W_RECVS };

typedef struct {
    int src, dst;
    size_t off, len;
} piece;

typedef struct {
    int kind;
    int step;       /* -1 for a wait on every step */
    int peer;       /* OP_WAIT: W_ALL, W_SENDS or W_RECVS */
    size_t bytes;
    size_t first;   /* first piece in the pool */
    size_t count;   /* pieces */
    long line;
} op;

/* Where a relayed piece comes from: the receive that brings it and its offset there. */
typedef struct {
    size_t op;
    size_t at;
} relay_src;

struct liquid_plan {
    int rank, size, nsteps;
    char mode[32];
    char file[4096];
    MPI_Comm comm;
    op *ops;
    size_t nops, capops;
    piece *pieces;
    size_t npieces, cappieces;
    relay_src *relay; /* per piece of a send: where a relayed piece comes from */
    size_t *expect;   /* per source rank: bytes expected (SIZE_MAX: no expect line) */
    size_t *own;      /* per destination rank: bytes of own data sent (max end offset) */
};

/* ------------------------------------------------------------------------------------ */
/* The pattern                                                                            */
/* ------------------------------------------------------------------------------------ */

static uint64_t mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static uint64_t pattern_word(int src, int dst, size_t word) {
    return mix64(((uint64_t)(unsigned)src << 40) ^ ((uint64_t)(unsigned)dst << 20) ^
                 0x9e3779b97f4a7c15ULL ^ mix64((uint64_t)word + 0x632be59bd9b4e019ULL));
}

unsigned char liquid_pattern_byte(int src, int dst, size_t off) {
    return (unsigned char)(pattern_word(src, dst, off / 8) >> (8 * (off % 8)));
}

void liquid_pattern_fill(unsigned char *buf, int src, int dst, size_t off, size_t len) {
    size_t i = 0;
    while (i < len && (off + i) % 8 != 0) {
        buf[i] = liquid_pattern_byte(src, dst, off + i);
        i++;
    }
    for (; i + 8 <= len; i += 8) {
        uint64_t w = pattern_word(src, dst, (off + i) / 8);
        for (int k = 0; k < 8; k++) buf[i + k] = (unsigned char)(w >> (8 * k));
    }
    for (; i < len; i++) buf[i] = liquid_pattern_byte(src, dst, off + i);
}

/* The first offset (from off) where buf differs from the pattern, or SIZE_MAX. */
static size_t pattern_mismatch(const unsigned char *buf, int src, int dst, size_t off,
                               size_t len) {
    size_t i = 0;
    while (i < len && (off + i) % 8 != 0) {
        if (buf[i] != liquid_pattern_byte(src, dst, off + i)) return i;
        i++;
    }
    for (; i + 8 <= len; i += 8) {
        uint64_t w = pattern_word(src, dst, (off + i) / 8);
        for (int k = 0; k < 8; k++)
            if (buf[i + k] != (unsigned char)(w >> (8 * k))) return i + (size_t)k;
    }
    for (; i < len; i++)
        if (buf[i] != liquid_pattern_byte(src, dst, off + i)) return i;
    return SIZE_MAX;
}

/* ------------------------------------------------------------------------------------ */
/* Loading                                                                                */
/* ------------------------------------------------------------------------------------ */

static int fail(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen) vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return 1;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap * 2 : 64;
    while (c < need) c *= 2;
    void *q = mem_realloc(*p, c * elem);
    if (!q) return 1;
    *p = q;
    *cap = c;
    return 0;
}

static int parse_size(const char *s, size_t *out) {
    if (!s || !*s) return 1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || s[0] == '-') return 1;
    *out = (size_t)v;
    return 0;
}

static int parse_int(const char *s, int *out) {
    if (!s || !*s) return 1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < INT_MIN || v > INT_MAX) return 1;
    *out = (int)v;
    return 0;
}

/* A hash table from a piece to the receive that brings it (relays). */
typedef struct {
    piece key;
    size_t op, at;
    int used;
} slot;

static uint64_t piece_hash(const piece *p) {
    return mix64(((uint64_t)(unsigned)p->src << 32) ^ (uint64_t)(unsigned)p->dst ^
                 mix64(p->off * 31 + p->len));
}

static int same_piece(const piece *a, const piece *b) {
    return a->src == b->src && a->dst == b->dst && a->off == b->off && a->len == b->len;
}

int liquid_plan_load(const char *dir, MPI_Comm comm, liquid_plan **out, char *err,
                     size_t errlen) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    liquid_plan *p = liquid_mem_calloc(1, sizeof *p);
    int bad = 0;
    char msg[1024] = "";
    FILE *f = NULL;
    char *line = NULL;
    size_t cap = 0;
    slot *table = NULL;
    size_t tcap = 0;
    if (!p) {
        bad = fail(msg, sizeof msg, "rank %d: out of memory", rank);
        goto agree;
    }
    p->rank = rank;
    p->size = size;
    p->comm = MPI_COMM_NULL;
    snprintf(p->mode, sizeof p->mode, "unknown");
    snprintf(p->file, sizeof p->file, "%s/rank-%d.txt", dir, rank);
    p->expect = liquid_mem_alloc((size_t)size * sizeof *p->expect);
    p->own = liquid_mem_calloc((size_t)size, sizeof *p->own);
    if (!p->expect || !p->own) {
        bad = fail(msg, sizeof msg, "rank %d: out of memory", rank);
        goto agree;
    }
    for (int i = 0; i < size; i++) p->expect[i] = SIZE_MAX;
    f = fopen(p->file, "r");
    if (!f) {
        bad = fail(msg, sizeof msg, "%s: cannot open: %s", p->file, strerror(errno));
        goto agree;
    }
    long ln = 0;
    int header = 0, ranks_seen = 0, ended = 0;
    int maxstep = -1;
    ssize_t got;
#define BAD(...)                                                                  \
    do {                                                                          \
        char why_[512];                                                           \
        snprintf(why_, sizeof why_, __VA_ARGS__);                                 \
        bad = fail(msg, sizeof msg, "%s:%ld: %s", p->file, ln, why_);             \
        goto agree;                                                               \
    } while (0)
    while ((got = getline(&line, &cap, f)) >= 0) {
        ln++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *words[8];
        int nw = 0;
        char *save = NULL;
        char *rest = NULL;
        for (char *w = strtok_r(line, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
            words[nw++] = w;
            if (nw == 4) {
                rest = save;
                break;
            }
        }
        if (nw == 0) continue;
        if (ended) BAD("text after `end`");
        if (!header) {
            if (strcmp(words[0], "liquid-mpi") != 0 || nw < 2)
                BAD("the first line must be `liquid-mpi 1`");
            if (strcmp(words[1], "1") != 0)
                BAD("format version %s; this runtime reads version 1", words[1]);
            header = 1;
            continue;
        }
        const char *w0 = words[0];
        if (strcmp(w0, "rank") == 0) {
            int r, n;
            if (nw < 3 || parse_int(words[1], &r) || parse_int(words[2], &n))
                BAD("rank: give `rank R N` (this rank, number of ranks)");
            if (r != rank)
                BAD("rank: the file is for rank %d, read by rank %d", r, rank);
            if (n != size)
                BAD("rank: the plan is for %d ranks, the run has %d (mpirun -np %d)", n, size, n);
            ranks_seen = 1;
        } else if (strcmp(w0, "mode") == 0) {
            if (nw < 2) BAD("mode: give a name");
            snprintf(p->mode, sizeof p->mode, "%s", words[1]);
        } else if (strcmp(w0, "expect") == 0) {
            int s;
            size_t b;
            if (nw < 3 || parse_int(words[1], &s) || parse_size(words[2], &b))
                BAD("expect: give `expect SOURCE BYTES`");
            if (s < 0 || s >= size)
                BAD("expect: source %d is not a rank of 0..%d", s, size - 1);
            if (p->expect[s] != SIZE_MAX) BAD("expect: source %d named twice", s);
            p->expect[s] = b;
        } else if (strcmp(w0, "end") == 0) {
            ended = 1;
        } else if (strcmp(w0, "barrier") == 0 || strcmp(w0, "wait") == 0) {
            if (!ranks_seen) BAD("`rank R N` must come before the first operation");
            if (grow((void **)&p->ops, &p->capops, p->nops + 1, sizeof(op)))
                BAD("out of memory");
            op o = {0};
            o.line = ln;
            o.step = -1;
            if (w0[0] == 'b') {
                o.kind = OP_BARRIER;
            } else {
                o.kind = OP_WAIT;
                o.peer = W_ALL;
                if (nw >= 2) {
                    if (strcmp(words[1], "all") == 0) o.peer = W_ALL;
                    else if (strcmp(words[1], "sends") == 0) o.peer = W_SENDS;
                    else if (strcmp(words[1], "recvs") == 0) o.peer = W_RECVS;
                    else BAD("wait: `%s` is not all, sends or recvs", words[1]);
                }
                if (nw >= 3 && (parse_int(words[2], &o.step) || o.step < 0))
                    BAD("wait: step `%s` is not a step number", words[2]);
            }
            p->ops[p->nops++] = o;
        } else if (strcmp(w0, "recv") == 0 || strcmp(w0, "send") == 0 ||
                   strcmp(w0, "ssend") == 0) {
            if (!ranks_seen) BAD("`rank R N` must come before the first operation");
            op o = {0};
            o.line = ln;
            o.kind = w0[0] == 'r' ? OP_RECV : (w0[0] == 's' && w0[1] == 's' ? OP_SSEND : OP_SEND);
            if (nw < 4 || parse_int(words[1], &o.step) || o.step < 0)
                BAD("%s: give `%s STEP PEER BYTES [SRC:DST:OFFSET:LENGTH ...]`", w0, w0);
            if (parse_int(words[2], &o.peer) || o.peer < 0 || o.peer >= size)
                BAD("%s: peer `%s` is not a rank of 0..%d", w0, words[2], size - 1);
            if (parse_size(words[3], &o.bytes))
                BAD("%s: bytes `%s` is not a number of bytes", w0, words[3]);
            if (o.bytes > (size_t)INT_MAX)
                BAD("%s: %zu bytes exceed MPI's int count", w0, o.bytes);
            o.first = p->npieces;
            size_t sum = 0;
            char *s2 = NULL;
            for (char *w = rest ? strtok_r(rest, " \t\r\n", &s2) : NULL; w;
                 w = strtok_r(NULL, " \t\r\n", &s2)) {
                piece pc;
                unsigned long long a, b, c, d;
                char tail;
                if (sscanf(w, "%llu:%llu:%llu:%llu%c", &a, &b, &c, &d, &tail) != 4)
                    BAD("%s: piece `%s` is not SRC:DST:OFFSET:LENGTH", w0, w);
                if (a >= (unsigned long long)size || b >= (unsigned long long)size)
                    BAD("%s: piece `%s` names no pair of ranks", w0, w);
                pc.src = (int)a;
                pc.dst = (int)b;
                pc.off = (size_t)c;
                pc.len = (size_t)d;
                if (grow((void **)&p->pieces, &p->cappieces, p->npieces + 1, sizeof(piece)))
                    BAD("out of memory");
                p->pieces[p->npieces++] = pc;
                sum += pc.len;
            }
            if (p->npieces == o.first) {
                /* No pieces: the message is the sender's data for the receiver from 0. */
                piece pc;
                pc.src = o.kind == OP_RECV ? o.peer : rank;
                pc.dst = o.kind == OP_RECV ? rank : o.peer;
                pc.off = 0;
                pc.len = o.bytes;
                if (grow((void **)&p->pieces, &p->cappieces, p->npieces + 1, sizeof(piece)))
                    BAD("out of memory");
                p->pieces[p->npieces++] = pc;
                sum = o.bytes;
            }
            o.count = p->npieces - o.first;
            if (sum != o.bytes)
                BAD("%s: the pieces hold %zu bytes, the message %zu", w0, sum, o.bytes);
            if (grow((void **)&p->ops, &p->capops, p->nops + 1, sizeof(op)))
                BAD("out of memory");
            p->ops[p->nops++] = o;
            if (o.step > maxstep) maxstep = o.step;
        } else {
            BAD("unknown line `%s` (recv, send, ssend, wait, barrier, expect, rank, mode, end)", w0);
        }
    }
    if (!header) {
        ln = 1;
        BAD("empty file: the first line must be `liquid-mpi 1`");
    }
    if (!ended) BAD("no `end` line: the file is truncated");
    p->nsteps = maxstep + 1;
    /* Relays: every piece of a send that is not this rank's own data must come with an
     * earlier receive; own data sets the size of the data for each destination. */
    p->relay = liquid_mem_alloc((p->npieces ? p->npieces : 1) * sizeof *p->relay);
    tcap = 16;
    while (tcap < 2 * p->npieces + 16) tcap *= 2;
    table = liquid_mem_calloc(tcap, sizeof *table);
    if (!p->relay || !table) BAD("out of memory");
    for (size_t i = 0; i < p->nops; i++) {
        op *o = &p->ops[i];
        ln = o->line;
        if (o->kind == OP_RECV) {
            size_t at = 0;
            for (size_t k = 0; k < o->count; k++) {
                piece *pc = &p->pieces[o->first + k];
                if (pc->src == rank && pc->dst != rank)
                    BAD("recv: piece %d:%d:%zu:%zu is this rank's own data", pc->src, pc->dst, pc->off, pc->len);
                if (pc->dst != rank) {
                    size_t h = piece_hash(pc) & (tcap - 1);
                    while (table[h].used && !same_piece(&table[h].key, pc)) h = (h + 1) & (tcap - 1);
                    if (!table[h].used) {
                        table[h].used = 1;
                        table[h].key = *pc;
                    }
                    table[h].op = i;
                    table[h].at = at;
                }
                at += pc->len;
            }
        } else if (o->kind == OP_SEND || o->kind == OP_SSEND) {
            for (size_t k = 0; k < o->count; k++) {
                piece *pc = &p->pieces[o->first + k];
                if (pc->dst == rank && pc->src != rank)
                    BAD("send: piece %d:%d:%zu:%zu is for this rank", pc->src, pc->dst, pc->off, pc->len);
                if (pc->src == rank) {
                    if (pc->off + pc->len > p->own[pc->dst]) p->own[pc->dst] = pc->off + pc->len;
                    continue;
                }
                size_t h = piece_hash(pc) & (tcap - 1);
                while (table[h].used && !same_piece(&table[h].key, pc)) h = (h + 1) & (tcap - 1);
                if (!table[h].used)
                    BAD("send: piece %d:%d:%zu:%zu is neither this rank's data nor brought by an earlier recv",
                        pc->src, pc->dst, pc->off, pc->len);
                p->relay[o->first + k].op = table[h].op;
                p->relay[o->first + k].at = table[h].at;
            }
        }
    }
    for (int s = 0; s < size; s++)
        if (p->expect[s] == SIZE_MAX) p->expect[s] = 0;
    for (size_t i = 0; i < p->nops; i++) {
        op *o = &p->ops[i];
        if (o->kind != OP_RECV) continue;
        for (size_t k = 0; k < o->count; k++) {
            piece *pc = &p->pieces[o->first + k];
            ln = o->line;
            if (pc->dst == rank && pc->off + pc->len > p->expect[pc->src])
                BAD("recv: piece %d:%d:%zu:%zu ends beyond the %zu bytes expected from rank %d",
                    pc->src, pc->dst, pc->off, pc->len, p->expect[pc->src], pc->src);
        }
    }
#undef BAD
agree:
    liquid_mem_free(line); /* getline's, from the C library */
    liquid_mem_free(table);
    if (f) fclose(f);
    /* Every rank learns whether all loaded, so that none waits for a failed one. */
    {
        int local[2] = {bad, p ? p->nsteps : 0}, all[2];
        int maxsteps;
        MPI_Allreduce(&local[0], &all[0], 1, MPI_INT, MPI_MAX, comm);
        MPI_Allreduce(&local[1], &maxsteps, 1, MPI_INT, MPI_MAX, comm);
        if (!bad && all[0]) bad = fail(msg, sizeof msg, "rank %d: another rank's plan file was refused", rank);
        if (!bad) {
            p->nsteps = maxsteps;
            MPI_Comm_dup(comm, &p->comm);
            MPI_Comm_set_errhandler(p->comm, MPI_ERRORS_RETURN);
        }
    }
    if (bad) {
        fail(err, errlen, "%s", msg);
        liquid_plan_free(p);
        *out = NULL;
        return 1;
    }
    *out = p;
    return 0;
}

void liquid_plan_free(liquid_plan *p) {
    if (!p) return;
    if (p->comm != MPI_COMM_NULL) MPI_Comm_free(&p->comm);
    liquid_mem_free(p->ops);
    liquid_mem_free(p->pieces);
    liquid_mem_free(p->relay);
    liquid_mem_free(p->expect);
    liquid_mem_free(p->own);
    liquid_mem_free(p);
}

int liquid_plan_steps(const liquid_plan *p) { return p->nsteps; }
const char *liquid_plan_mode(const liquid_plan *p) { return p->mode; }
size_t liquid_plan_send_bytes(const liquid_plan *p, int dst) {
    return dst >= 0 && dst < p->size ? p->own[dst] : 0;
}
size_t liquid_plan_recv_bytes(const liquid_plan *p, int src) {
    return src >= 0 && src < p->size ? p->expect[src] : 0;
}

/* ------------------------------------------------------------------------------------ */
/* Execution                                                                              */
/* ------------------------------------------------------------------------------------ */

/* What a rank waits for, written before every blocking call, printed on a timeout. */
static char waiting[2048];
static size_t waiting_len;

static void on_alarm(int sig) {
    (void)sig;
    ssize_t w = write(2, waiting, waiting_len);
    (void)w;
    _exit(3);
}

static void arm(double timeout) {
    if (timeout > 0) {
        signal(SIGALRM, on_alarm);
        alarm((unsigned)ceil(timeout));
    }
}

static void disarm(double timeout) {
    if (timeout > 0) alarm(0);
}

static const char *kind_name(int k) {
    return k == OP_RECV ? "recv from" : "send to";
}

typedef struct {
    liquid_plan *p;
    const liquid_options *opts;
    char *const *send, *const *recv;
    MPI_Request *req;
    char **buf;
    unsigned char *state; /* 0 not posted, 1 pending, 2 done */
    unsigned char *owned;
    size_t *pending;
    size_t npending;
    double t0;
    double *posted, *done;
    long errors;
} run;

static void report(run *r, const char *fmt, ...) {
    r->errors++;
    if (r->errors > r->opts->max_errors) return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "liquid-mpi: error: rank %d: %s\n", r->p->rank, text);
    if (r->errors == r->opts->max_errors)
        fprintf(stderr, "liquid-mpi: rank %d: further errors are counted, not printed\n", r->p->rank);
}

static void describe(run *r, const size_t *ids, size_t n, const char *what) {
    int len = snprintf(waiting, sizeof waiting,
                       "liquid-mpi: error: rank %d: no progress for %g s %s:",
                       r->p->rank, r->opts->timeout, what);
    for (size_t k = 0; k < n && len < (int)sizeof waiting - 100; k++) {
        op *o = &r->p->ops[ids[k]];
        len += snprintf(waiting + len, sizeof waiting - (size_t)len,
                        "%s %s rank %d (step %d, %zu bytes, line %ld)", k ? ";" : "",
                        kind_name(o->kind), o->peer, o->step, o->bytes, o->line);
        if (k == 7 && n > 8) {
            len += snprintf(waiting + len, sizeof waiting - (size_t)len, "; and %zu more", n - 8);
            break;
        }
    }
    if (len > (int)sizeof waiting - 2) len = (int)sizeof waiting - 2;
    waiting[len++] = '\n';
    waiting_len = (size_t)len;
}

static void complete(run *r, size_t i, MPI_Status *st, int st_err) {
    op *o = &r->p->ops[i];
    r->state[i] = 2;
    r->done[i] = MPI_Wtime() - r->t0;
    if (o->kind != OP_RECV) {
        if (st_err != MPI_SUCCESS)
            report(r, "step %d: send to rank %d (line %ld) failed: MPI error %d", o->step,
                   o->peer, o->line, st_err);
        return;
    }
    if (st_err != MPI_SUCCESS) {
        char es[MPI_MAX_ERROR_STRING];
        int el = 0;
        MPI_Error_string(st_err, es, &el);
        report(r, "step %d: recv from rank %d (line %ld, %zu bytes) failed: %s", o->step,
               o->peer, o->line, o->bytes, es);
        return;
    }
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    if (count < 0 || (size_t)count != o->bytes) {
        report(r, "step %d: from rank %d: received %d bytes, expected %zu (line %ld)",
               o->step, o->peer, count, o->bytes, o->line);
        return;
    }
    size_t at = 0;
    for (size_t k = 0; k < o->count; k++) {
        piece *pc = &r->p->pieces[o->first + k];
        const unsigned char *data = (const unsigned char *)r->buf[i] + at;
        if (r->opts->check) {
            size_t bad = pattern_mismatch(data, pc->src, pc->dst, pc->off, pc->len);
            if (bad != SIZE_MAX)
                report(r,
                       "step %d: from rank %d: byte %zu of the data from rank %d for rank %d "
                       "is %u, the pattern says %u (message byte %zu, line %ld)",
                       o->step, o->peer, pc->off + bad, pc->src, pc->dst, data[bad],
                       liquid_pattern_byte(pc->src, pc->dst, pc->off + bad), at + bad, o->line);
        }
        /* Unchecked data is not moved either: under a simulator (SMPI's shared malloc)
           copying hundreds of GB between buffers that share their pages costs hours of
           page writeback and changes no simulated time. */
        if (pc->dst == r->p->rank && r->owned[i] && r->opts->check)
            memcpy(r->recv[pc->src] + pc->off, data, pc->len);
        at += pc->len;
    }
}

/* Waits until no pending operation matches (kind W_*, step or -1, or one op index). */
static void wait_for(run *r, int kind, int step, long only, const char *what) {
    size_t *ids = liquid_mem_alloc((r->npending ? r->npending : 1) * sizeof *ids);
    MPI_Request *rq = liquid_mem_alloc((r->npending ? r->npending : 1) * sizeof *rq);
    int *idx = liquid_mem_alloc((r->npending ? r->npending : 1) * sizeof *idx);
    MPI_Status *st = liquid_mem_alloc((r->npending ? r->npending : 1) * sizeof *st);
    for (;;) {
        size_t n = 0;
        for (size_t k = 0; k < r->npending; k++) {
            size_t i = r->pending[k];
            op *o = &r->p->ops[i];
            int match = only >= 0 ? (long)i == only
                                  : ((kind == W_ALL || (kind == W_RECVS) == (o->kind == OP_RECV)) &&
                                     (step < 0 || o->step == step));
            if (match) {
                ids[n] = i;
                rq[n] = r->req[i];
                n++;
            }
        }
        if (n == 0) break;
        describe(r, ids, n, what);
        int out = 0;
        arm(r->opts->timeout);
        int rc = MPI_Waitsome((int)n, rq, &out, idx, st);
        disarm(r->opts->timeout);
        if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
            char es[MPI_MAX_ERROR_STRING];
            int el = 0;
            MPI_Error_string(rc, es, &el);
            fprintf(stderr, "liquid-mpi: error: rank %d: MPI_Waitsome failed (%s) %s", r->p->rank, es,
                    waiting + 0);
            MPI_Abort(r->p->comm, 3);
        }
        for (int k = 0; k < out; k++) {
            size_t i = ids[idx[k]];
            r->req[i] = rq[idx[k]];
            complete(r, i, &st[k], rc == MPI_ERR_IN_STATUS ? st[k].MPI_ERROR : MPI_SUCCESS);
        }
        size_t m = 0;
        for (size_t k = 0; k < r->npending; k++)
            if (r->state[r->pending[k]] == 1) r->pending[m++] = r->pending[k];
        r->npending = m;
    }
    liquid_mem_free(ids);
    liquid_mem_free(rq);
    liquid_mem_free(idx);
    liquid_mem_free(st);
}

typedef struct {
    int src;
    size_t off, len;
    int step, peer;
} got_piece;

static int by_src_off(const void *a, const void *b) {
    const got_piece *x = a, *y = b;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    if (x->off != y->off) return x->off < y->off ? -1 : 1;
    return 0;
}

long liquid_execute(liquid_plan *p, char *const *send, char *const *recv,
                    const liquid_options *opts, MPI_Comm user_comm, liquid_step_stats *stats,
                    double *total) {
    (void)user_comm;
    MPI_Comm comm = p->comm;
    run r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.opts = opts;
    r.send = send;
    r.recv = recv;
    size_t n = p->nops ? p->nops : 1;
    r.req = liquid_mem_alloc(n * sizeof *r.req);
    r.buf = liquid_mem_calloc(n, sizeof *r.buf);
    r.state = liquid_mem_calloc(n, 1);
    r.owned = liquid_mem_calloc(n, 1);
    r.pending = liquid_mem_alloc(n * sizeof *r.pending);
    r.posted = liquid_mem_calloc(n, sizeof *r.posted);
    r.done = liquid_mem_calloc(n, sizeof *r.done);
    if (!r.req || !r.buf || !r.state || !r.owned || !r.pending || !r.posted || !r.done) {
        fprintf(stderr, "liquid-mpi: error: rank %d: out of memory\n", p->rank);
        MPI_Abort(comm, 3);
    }
    for (size_t i = 0; i < n; i++) r.req[i] = MPI_REQUEST_NULL;
    MPI_Barrier(comm);
    r.t0 = MPI_Wtime();
    for (size_t i = 0; i < p->nops; i++) {
        op *o = &p->ops[i];
        switch (o->kind) {
        case OP_RECV: {
            piece *pc = &p->pieces[o->first];
            if (o->count == 1 && pc->dst == p->rank) {
                r.buf[i] = recv[pc->src] + pc->off;
            } else {
                /* Message data: plain malloc, which SMPI may share (see liquid_mem_alloc). */
                r.buf[i] = malloc(o->bytes ? o->bytes : 1);
                r.owned[i] = 1;
            }
            r.posted[i] = MPI_Wtime() - r.t0;
            int rc = MPI_Irecv(r.buf[i], (int)o->bytes, MPI_BYTE, o->peer, o->step % TAG_MOD,
                               comm, &r.req[i]);
            if (rc != MPI_SUCCESS) {
                report(&r, "step %d: cannot post the recv from rank %d (line %ld)", o->step, o->peer, o->line);
                r.state[i] = 2;
                break;
            }
            r.state[i] = 1;
            r.pending[r.npending++] = i;
            break;
        }
        case OP_SEND:
        case OP_SSEND: {
            /* Relayed pieces: wait for the receives that bring them. */
            for (size_t k = 0; k < o->count; k++) {
                piece *pc = &p->pieces[o->first + k];
                if (pc->src == p->rank) continue;
                size_t from = p->relay[o->first + k].op;
                if (r.state[from] == 1) {
                    char what[128];
                    snprintf(what, sizeof what, "before the step %d send to rank %d (line %ld) can forward its data", o->step, o->peer, o->line);
                    wait_for(&r, W_ALL, -1, (long)from, what);
                }
            }
            piece *pc = &p->pieces[o->first];
            if (o->count == 1 && pc->src == p->rank) {
                r.buf[i] = send[pc->dst] + pc->off;
            } else {
                r.buf[i] = malloc(o->bytes ? o->bytes : 1); /* message data, as above */
                r.owned[i] = 1;
                size_t at = 0;
                for (size_t k = 0; k < o->count; k++) {
                    piece *q = &p->pieces[o->first + k];
                    const char *from = q->src == p->rank
                                           ? send[q->dst] + q->off
                                           : r.buf[p->relay[o->first + k].op] + p->relay[o->first + k].at;
                    if (opts->check) memcpy(r.buf[i] + at, from, q->len);
                    at += q->len;
                }
            }
            r.posted[i] = MPI_Wtime() - r.t0;
            int rc = o->kind == OP_SSEND
                         ? MPI_Issend(r.buf[i], (int)o->bytes, MPI_BYTE, o->peer, o->step % TAG_MOD, comm, &r.req[i])
                         : MPI_Isend(r.buf[i], (int)o->bytes, MPI_BYTE, o->peer, o->step % TAG_MOD, comm, &r.req[i]);
            if (rc != MPI_SUCCESS) {
                report(&r, "step %d: cannot post the send to rank %d (line %ld)", o->step, o->peer, o->line);
                r.state[i] = 2;
                break;
            }
            r.state[i] = 1;
            r.pending[r.npending++] = i;
            break;
        }
        case OP_WAIT: {
            char what[96];
            snprintf(what, sizeof what, "in the wait of line %ld", o->line);
            wait_for(&r, o->peer, o->step, -1, what);
            break;
        }
        case OP_BARRIER: {
            /* Twice the timeout: a rank stuck on a message speaks (and exits) first. */
            snprintf(waiting, sizeof waiting,
                     "liquid-mpi: error: rank %d: no progress for %g s in the barrier of line %ld "
                     "(another rank is stuck)\n", p->rank, 2 * opts->timeout, o->line);
            waiting_len = strlen(waiting);
            arm(2 * opts->timeout);
            MPI_Barrier(comm);
            disarm(opts->timeout);
            break;
        }
        }
    }
    wait_for(&r, W_ALL, -1, -1, "at the end of the plan");
    double end = MPI_Wtime() - r.t0;
    if (total) *total = end;
    if (stats) {
        for (int s = 0; s < p->nsteps; s++) {
            stats[s].start = INFINITY;
            stats[s].end = -INFINITY;
            stats[s].bytes = 0;
            stats[s].messages = 0;
        }
        for (size_t i = 0; i < p->nops; i++) {
            op *o = &p->ops[i];
            if (o->kind == OP_WAIT || o->kind == OP_BARRIER) continue;
            liquid_step_stats *s = &stats[o->step];
            if (r.posted[i] < s->start) s->start = r.posted[i];
            if (r.done[i] > s->end) s->end = r.done[i];
            if (o->kind != OP_RECV) {
                s->bytes += (double)o->bytes;
                s->messages += 1;
            }
        }
    }
    /* Every byte expected, exactly once. */
    size_t ng = 0;
    for (size_t i = 0; i < p->nops; i++)
        if (p->ops[i].kind == OP_RECV) ng += p->ops[i].count;
    got_piece *g = liquid_mem_alloc((ng ? ng : 1) * sizeof *g);
    ng = 0;
    for (size_t i = 0; i < p->nops; i++) {
        op *o = &p->ops[i];
        if (o->kind != OP_RECV) continue;
        for (size_t k = 0; k < o->count; k++) {
            piece *pc = &p->pieces[o->first + k];
            if (pc->dst != p->rank || pc->len == 0) continue;
            got_piece x = {pc->src, pc->off, pc->len, o->step, o->peer};
            g[ng++] = x;
        }
    }
    qsort(g, ng, sizeof *g, by_src_off);
    size_t k = 0;
    for (int s = 0; s < p->size; s++) {
        size_t covered = 0;
        for (; k < ng && g[k].src == s; k++) {
            if (g[k].off < covered)
                report(&r,
                       "from rank %d: bytes %zu..%zu arrive twice (step %d from rank %d, and an "
                       "earlier piece)", s, g[k].off, g[k].off + g[k].len, g[k].step, g[k].peer);
            else if (g[k].off > covered)
                report(&r, "from rank %d: bytes %zu..%zu of the %zu expected never arrive (no recv brings them; the next piece comes in step %d from rank %d)",
                       s, covered, g[k].off, p->expect[s], g[k].step, g[k].peer);
            if (g[k].off + g[k].len > covered) covered = g[k].off + g[k].len;
        }
        if (covered < p->expect[s])
            report(&r, "from rank %d: bytes %zu..%zu of the %zu expected never arrive (no recv brings them)",
                   s, covered, p->expect[s], p->expect[s]);
    }
    liquid_mem_free(g);
    /* No message left unreceived (a send without its recv). */
    MPI_Barrier(comm);
    for (int round = 0; round < 2; round++) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &st);
        while (flag) {
            int count = 0;
            MPI_Get_count(&st, MPI_BYTE, &count);
            report(&r, "step %d (tag %d): a message of %d bytes from rank %d was never received (no recv matches it)",
                   st.MPI_TAG, st.MPI_TAG, count, st.MPI_SOURCE);
            char *sink = malloc(count > 0 ? (size_t)count : 1);
            MPI_Recv(sink, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, comm, MPI_STATUS_IGNORE);
            free(sink);
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &st);
        }
        if (round == 0) MPI_Barrier(comm);
    }
    for (size_t i = 0; i < p->nops; i++)
        if (r.owned[i]) free(r.buf[i]); /* message data: plain malloc's */
    long errors = r.errors;
    liquid_mem_free(r.req);
    liquid_mem_free(r.buf);
    liquid_mem_free(r.state);
    liquid_mem_free(r.owned);
    liquid_mem_free(r.pending);
    liquid_mem_free(r.posted);
    liquid_mem_free(r.done);
    return errors;
}

/* ------------------------------------------------------------------------------------ */
/* In place of MPI_Alltoall(v)                                                            */
/* ------------------------------------------------------------------------------------ */

static int contiguous_size(MPI_Datatype t, int *size) {
    MPI_Aint lb, extent;
    MPI_Type_size(t, size);
    MPI_Type_get_extent(t, &lb, &extent);
    return lb == 0 && extent == (MPI_Aint)*size;
}

int liquid_alltoallv(liquid_plan *p, const void *sendbuf, const int *sendcounts,
                     const int *sdispls, MPI_Datatype sendtype, void *recvbuf,
                     const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                     MPI_Comm comm) {
    int ssize, rsize, bad = 0;
    if (!contiguous_size(sendtype, &ssize) || !contiguous_size(recvtype, &rsize)) {
        fprintf(stderr, "liquid-mpi: error: rank %d: liquid_alltoallv needs contiguous datatypes\n", p->rank);
        bad = 1;
    }
    char **send = liquid_mem_alloc((size_t)p->size * sizeof *send);
    char **recv = liquid_mem_alloc((size_t)p->size * sizeof *recv);
    for (int d = 0; d < p->size && !bad; d++) {
        send[d] = (char *)sendbuf + (size_t)sdispls[d] * (size_t)ssize;
        recv[d] = (char *)recvbuf + (size_t)rdispls[d] * (size_t)rsize;
        /* This rank's data for itself is a local copy unless the plan sends it. */
        if (d == p->rank && p->own[d] == 0 && p->expect[d] == 0) continue;
        if (p->own[d] != (size_t)sendcounts[d] * (size_t)ssize) {
            fprintf(stderr, "liquid-mpi: error: rank %d: the plan sends %zu bytes to rank %d, sendcounts says %zu\n",
                    p->rank, p->own[d], d, (size_t)sendcounts[d] * (size_t)ssize);
            bad = 1;
        }
        if (p->expect[d] != (size_t)recvcounts[d] * (size_t)rsize) {
            fprintf(stderr, "liquid-mpi: error: rank %d: the plan expects %zu bytes from rank %d, recvcounts says %zu\n",
                    p->rank, p->expect[d], d, (size_t)recvcounts[d] * (size_t)rsize);
            bad = 1;
        }
    }
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm);
    long errors = 0;
    if (!anybad) {
        /* The local copy. */
        size_t mine = (size_t)sendcounts[p->rank] * (size_t)ssize;
        if (mine && p->expect[p->rank] == 0) memmove(recv[p->rank], send[p->rank], mine);
        liquid_options o = {0, 0.0, 20};
        errors = liquid_execute(p, send, recv, &o, comm, NULL, NULL);
    }
    liquid_mem_free(send);
    liquid_mem_free(recv);
    long all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_LONG, MPI_SUM, comm);
    return anybad || all ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int liquid_alltoall(liquid_plan *p, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    int *sc = liquid_mem_alloc((size_t)p->size * sizeof *sc), *sd = liquid_mem_alloc((size_t)p->size * sizeof *sd);
    int *rc = liquid_mem_alloc((size_t)p->size * sizeof *rc), *rd = liquid_mem_alloc((size_t)p->size * sizeof *rd);
    for (int i = 0; i < p->size; i++) {
        sc[i] = sendcount;
        sd[i] = i * sendcount;
        rc[i] = recvcount;
        rd[i] = i * recvcount;
    }
    int e = liquid_alltoallv(p, sendbuf, sc, sd, sendtype, recvbuf, rc, rd, recvtype, comm);
    liquid_mem_free(sc);
    liquid_mem_free(sd);
    liquid_mem_free(rc);
    liquid_mem_free(rd);
    return e;
}
