/*
 * liquid-mpi-run: runs a plan written by `liquid export mpi` and reports its times.
 *
 *   mpirun -np N liquid-mpi-run [options] DIR
 *
 * Options:
 *   --no-check      do not fill, verify or move the data (relays forward and receivers
 *                   keep their buffers as they are; sizes and completeness are still
 *                   checked); for simulators that do not move bytes
 *   --timeout S     seconds without progress before a rank gives up naming what it waits
 *                   for (default 60; 0 waits forever)
 *   --repeat K      run the plan K times (default 1); the report keeps the fastest run and
 *                   lists every run's time
 *   --report FILE   where rank 0 writes the JSON report (default DIR/report.json; `-` for
 *                   none)
 *   --quiet         no summary on stdout
 *
 * Exit status: 0 when every run was correct, 1 when a check failed (each error names the
 * rank, the peer and the step), 2 for a plan the runtime refuses, 3 for a timeout.
 */
#include "liquid_mpi.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void usage(int rank) {
    if (rank == 0)
        fprintf(stderr, "usage: mpirun -np N liquid-mpi-run [--no-check] [--timeout S] "
                        "[--repeat K] [--report FILE] [--quiet] DIR\n");
}

static void json_num(FILE *f, double x) {
    if (isfinite(x))
        fprintf(f, "%.9g", x);
    else
        fprintf(f, "null");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    liquid_options opts = {1, 60.0, 20};
    int repeat = 1, quiet = 0;
    const char *dir = NULL, *report = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--no-check") == 0) {
            opts.check = 0;
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if ((strcmp(a, "--timeout") == 0 || strcmp(a, "--repeat") == 0 ||
                    strcmp(a, "--report") == 0) && i + 1 < argc) {
            const char *v = argv[++i];
            char *end = NULL;
            if (strcmp(a, "--timeout") == 0) {
                opts.timeout = strtod(v, &end);
                if (*end || !(opts.timeout >= 0)) {
                    if (rank == 0) fprintf(stderr, "liquid-mpi-run: --timeout %s is not a number of seconds\n", v);
                    MPI_Finalize();
                    return 2;
                }
            } else if (strcmp(a, "--repeat") == 0) {
                repeat = (int)strtol(v, &end, 10);
                if (*end || repeat < 1) {
                    if (rank == 0) fprintf(stderr, "liquid-mpi-run: --repeat %s is not a positive count\n", v);
                    MPI_Finalize();
                    return 2;
                }
            } else {
                report = v;
            }
        } else if (a[0] == '-' && a[1]) {
            usage(rank);
            MPI_Finalize();
            return 2;
        } else if (!dir) {
            dir = a;
        } else {
            usage(rank);
            MPI_Finalize();
            return 2;
        }
    }
    if (!dir) {
        usage(rank);
        MPI_Finalize();
        return 2;
    }
    char err[1024];
    liquid_plan *plan = NULL;
    if (liquid_plan_load(dir, MPI_COMM_WORLD, &plan, err, sizeof err)) {
        fprintf(stderr, "liquid-mpi-run: error: %s\n", err);
        MPI_Finalize();
        return 2;
    }
    /* This rank's data for each destination (the pattern) and room for what it receives. */
    /* The pointer arrays are bookkeeping (liquid_mem_*: never shared under SMPI); the data
       buffers are plain malloc, which SMPI may share when the bytes are not checked. */
    char **send = liquid_mem_calloc((size_t)size, sizeof *send),
         **recv = liquid_mem_calloc((size_t)size, sizeof *recv);
    double mine = 0;
    for (int r = 0; r < size; r++) {
        size_t s = liquid_plan_send_bytes(plan, r), q = liquid_plan_recv_bytes(plan, r);
        send[r] = malloc(s ? s : 1);
        recv[r] = malloc(q ? q : 1);
        if (!send[r] || !recv[r]) {
            fprintf(stderr, "liquid-mpi-run: error: rank %d: cannot allocate %zu + %zu bytes\n", rank, s, q);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        if (opts.check) liquid_pattern_fill((unsigned char *)send[r], rank, r, 0, s);
        mine += (double)s;
    }
    int nsteps = liquid_plan_steps(plan);
    size_t ns = nsteps > 0 ? (size_t)nsteps : 1;
    /* Per-step figures: bookkeeping, never shared (a pieces plan of 7,680 steps makes
       240 KiB of liquid_step_stats, above the benchmarks' 64 KiB shared-malloc threshold). */
    liquid_step_stats *st = liquid_mem_alloc(ns * sizeof *st), *best = liquid_mem_alloc(ns * sizeof *best);
    double *starts = liquid_mem_alloc(ns * sizeof(double)), *ends = liquid_mem_alloc(ns * sizeof(double));
    double *bytes = liquid_mem_alloc(ns * sizeof(double)), *msgs = liquid_mem_alloc(ns * sizeof(double));
    double *gstart = liquid_mem_alloc(ns * sizeof(double)), *gend = liquid_mem_alloc(ns * sizeof(double));
    double *gbytes = liquid_mem_alloc(ns * sizeof(double)), *gmsgs = liquid_mem_alloc(ns * sizeof(double));
    double *runs = liquid_mem_alloc((size_t)repeat * sizeof(double));
    double best_total = INFINITY;
    long all_errors = 0;
    for (int k = 0; k < repeat; k++) {
        double total = 0;
        long errors = liquid_execute(plan, send, recv, &opts, MPI_COMM_WORLD, st, &total);
        long e = 0;
        double t = 0;
        MPI_Allreduce(&errors, &e, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&total, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        all_errors += e;
        runs[k] = t;
        for (int s = 0; s < nsteps; s++) {
            starts[s] = st[s].start;
            ends[s] = st[s].end;
            bytes[s] = st[s].bytes;
            msgs[s] = st[s].messages;
        }
        MPI_Reduce(starts, gstart, nsteps, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
        MPI_Reduce(ends, gend, nsteps, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(bytes, gbytes, nsteps, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(msgs, gmsgs, nsteps, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (t < best_total) {
            best_total = t;
            for (int s = 0; s < nsteps; s++) {
                best[s].start = gstart[s];
                best[s].end = gend[s];
                best[s].bytes = gbytes[s];
                best[s].messages = gmsgs[s];
            }
        }
    }
    double total_bytes = 0;
    MPI_Reduce(&mine, &total_bytes, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    /* Where each rank ran (MPI_Get_processor_name), for `liquid compare` to check the
       placement against the plan's hostfile: an mpirun that fills a node's slots first puts
       rank i elsewhere than on line i, and the times would be another placement's. */
    char host[MPI_MAX_PROCESSOR_NAME];
    int host_len = 0;
    memset(host, 0, sizeof host);
    MPI_Get_processor_name(host, &host_len);
    host[MPI_MAX_PROCESSOR_NAME - 1] = 0;
    for (char *c = host; *c; c++)
        if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20) *c = ' ';
    char *hosts = rank == 0 ? liquid_mem_calloc((size_t)size, MPI_MAX_PROCESSOR_NAME) : NULL;
    MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    if (rank == 0) {
        double b = 0, m = 0;
        for (int s = 0; s < nsteps; s++) {
            b += best[s].bytes;
            m += best[s].messages;
        }
        char lib[1024] = "unknown";
#if MPI_VERSION >= 3
        int len = 0;
        MPI_Get_library_version(lib, &len);
        for (char *c = lib; *c; c++)
            if (*c == '"' || *c == '\\' || *c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
        for (int i = (int)strlen(lib) - 1; i >= 0 && lib[i] == ' '; i--) lib[i] = 0;
#endif
        char path[4096];
        if (!report) {
            snprintf(path, sizeof path, "%s/report.json", dir);
            report = path;
        }
        if (strcmp(report, "-") != 0) {
            FILE *f = fopen(report, "w");
            if (!f) {
                fprintf(stderr, "liquid-mpi-run: error: cannot write %s\n", report);
            } else {
                fprintf(f, "{\"format\":\"liquid-mpi-report/1\",\"plan\":\"%s\",\"mode\":\"%s\",", dir,
                        liquid_plan_mode(plan));
                fprintf(f, "\"ranks\":%d,\"check\":%s,\"repeat\":%d,\"mpi_library\":\"%s\",", size,
                        opts.check ? "true" : "false", repeat, lib);
                fprintf(f, "\"hosts\":[");
                for (int r = 0; r < size; r++) {
                    const char *h = hosts + (size_t)r * MPI_MAX_PROCESSOR_NAME;
                    fprintf(f, "%s\"%s\"", r ? "," : "", h);
                }
                fprintf(f, "],");
                fprintf(f, "\"errors\":%ld,\"total_s\":", all_errors);
                json_num(f, best_total);
                fprintf(f, ",\"runs_s\":[");
                for (int k = 0; k < repeat; k++) {
                    if (k) fputc(',', f);
                    json_num(f, runs[k]);
                }
                fprintf(f, "],\"bytes\":%.0f,\"messages\":%.0f,\"steps\":[", b, m);
                for (int s = 0; s < nsteps; s++) {
                    fprintf(f, "%s\n{\"step\":%d,\"start_s\":", s ? "," : "", s);
                    json_num(f, best[s].start);
                    fprintf(f, ",\"end_s\":");
                    json_num(f, best[s].end);
                    fprintf(f, ",\"time_s\":");
                    json_num(f, best[s].end - best[s].start);
                    fprintf(f, ",\"bytes\":%.0f,\"messages\":%.0f}", best[s].bytes, best[s].messages);
                }
                fprintf(f, "]}\n");
                fclose(f);
            }
        }
        if (!quiet) {
            printf("liquid-mpi-run: %s: %d ranks, mode %s, %d steps, %.0f messages, %.0f bytes%s\n",
                   dir, size, liquid_plan_mode(plan), nsteps, m, b,
                   opts.check ? ", every byte checked" : ", data not checked");
            printf("liquid-mpi-run: time %.6f s (fastest of %d), %ld errors\n", best_total, repeat,
                   all_errors);
        }
        (void)total_bytes;
    }
    liquid_plan_free(plan);
    for (int r = 0; r < size; r++) {
        free(send[r]);
        free(recv[r]);
    }
    liquid_mem_free(send);
    liquid_mem_free(recv);
    liquid_mem_free(st);
    liquid_mem_free(best);
    liquid_mem_free(starts);
    liquid_mem_free(ends);
    liquid_mem_free(bytes);
    liquid_mem_free(msgs);
    liquid_mem_free(gstart);
    liquid_mem_free(gend);
    liquid_mem_free(gbytes);
    liquid_mem_free(gmsgs);
    liquid_mem_free(runs);
    liquid_mem_free(hosts);
    MPI_Finalize();
    return all_errors ? 1 : 0;
}
