/* Environment metadata (sysinfo.h), gathered collectively at start-up. */
#include "hpcprobe/sysinfo.h"

#include <float.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "hpcprobe/util.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* metadata.transport: at most this many characters. */
#define HPCP_TRANSPORT_MAX 256

/* Copy with truncation (the values are informational). */
static void copy_str(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (n >= len)
        n = len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* First line of a small text file, newline stripped; "" if unreadable. */
static void read_line(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (!fgets(buf, (int)len, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
}

/* The selected value of a sysfs choice file: "always [madvise] never" -> "madvise". */
static void read_sysfs_choice(const char *path, char *out, size_t len)
{
    char line[256];
    read_line(path, line, sizeof line);
    char *open = strchr(line, '['), *close = open ? strchr(open, ']') : NULL;
    if (open && close) {
        *close = '\0';
        hpcp_copy_truncated(out, len, open + 1);
    } else {
        hpcp_copy_truncated(out, len, line[0] ? line : "unavailable");
    }
}

static void read_cpu_model(char *out, size_t len)
{
    snprintf(out, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (colon && strncmp(line, "model name", 10) == 0) {
            colon += 1 + (colon[1] == ' ');
            colon[strcspn(colon, "\n")] = '\0';
            hpcp_copy_truncated(out, len, colon);
            break;
        }
    }
    fclose(f);
}

static void read_affinity(char *out, size_t len)
{
    cpu_set_t set;
    out[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return;
    size_t used = 0;
    for (int c = 0; c < CPU_SETSIZE && used + 16 < len; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
            last++;
        used += (size_t)snprintf(out + used, len - used, "%s%d", used ? "," : "", c);
        if (last > c)
            used += (size_t)snprintf(out + used, len - used, "-%d", last);
        c = last;
    }
}

static int cmp_named_rank(const void *a, const void *b)
{
    const struct hpcp_named_rank *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

struct hpcp_named_rank *hpcp_sort_names(const char *names, size_t stride, int ranks)
{
    struct hpcp_named_rank *s = malloc((size_t)(ranks > 0 ? ranks : 1) * sizeof *s);
    for (int i = 0; s && i < ranks; i++)
        s[i] = (struct hpcp_named_rank){names + (size_t)i * stride, i};
    if (s)
        qsort(s, (size_t)ranks, sizeof *s, cmp_named_rank);
    return s;
}

int hpcp_host_indices(const char *names, size_t stride, int ranks, int *index)
{
    for (int i = 0; i < ranks; i++)
        index[i] = 0;
    struct hpcp_named_rank *s = hpcp_sort_names(names, stride, ranks);
    if (!s)
        return -1;
    for (int i = 1, distinct = 0; i < ranks; i++) {
        distinct += strcmp(s[i].name, s[i - 1].name) != 0;
        index[s[i].rank] = distinct;
    }
    free(s);
    return 0;
}

/* Rank 0: metadata.hosts (the distinct names in index order, each found at
 * its first rank) and metadata.rank_hosts, as JSON arrays. */
static int hosts_to_json(struct hpcp_sysinfo *si, const char *all, const int *index)
{
    int *first = malloc((size_t)si->ranks * sizeof *first);
    if (!first)
        return -1;
    struct hpcp_json h, rh;
    hpcp_json_init(&h);
    hpcp_json_init(&rh);
    hpcp_json_begin_array(&h, NULL);
    hpcp_json_begin_array(&rh, NULL);
    for (int i = 0; i < si->ranks; i++)
        first[i] = -1;
    for (int i = 0; i < si->ranks; i++) {
        hpcp_json_int(&rh, NULL, index[i]);
        if (first[index[i]] < 0)
            first[index[i]] = i;
    }
    for (int d = 0; d < si->ranks && first[d] >= 0; d++)
        hpcp_json_string(&h, NULL, all + (size_t)first[d] * MPI_MAX_PROCESSOR_NAME);
    hpcp_json_end_array(&h);
    hpcp_json_end_array(&rh);
    free(first);
    si->hosts_json = h.buf;
    si->rank_hosts_json = rh.buf;
    return 0;
}

/* Every rank's processor name to rank 0, which keeps the two arrays; when
 * out of memory, hosts is its own name alone and rank_hosts is left out. */
static void gather_hosts(struct hpcp_sysinfo *si, MPI_Comm comm)
{
    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len = 0;
    MPI_Get_processor_name(name, &len);
    char *all = si->rank == 0 ? calloc((size_t)si->ranks, MPI_MAX_PROCESSOR_NAME) : NULL;
    int *index = si->rank == 0 ? malloc((size_t)si->ranks * sizeof *index) : NULL;
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               comm);
    if (si->rank == 0 &&
        (!all || !index || hpcp_host_indices(all, MPI_MAX_PROCESSOR_NAME, si->ranks, index) != 0 ||
         hosts_to_json(si, all, index) != 0)) {
        struct hpcp_json j;
        hpcp_json_init(&j);
        hpcp_json_begin_array(&j, NULL);
        hpcp_json_string(&j, NULL, name);
        hpcp_json_end_array(&j);
        si->hosts_json = j.buf;
        free(si->rank_hosts_json);
        si->rank_hosts_json = NULL;
    }
    hpcp_placement_gather(si, comm, si->rank_hosts_json ? index : NULL);
    free(all);
    free(index);
}

static void node_layout(struct hpcp_sysinfo *si, MPI_Comm comm)
{
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, si->rank, MPI_INFO_NULL, &si->node_comm);
    int node_rank;
    MPI_Comm_size(si->node_comm, &si->ranks_on_my_node);
    MPI_Comm_rank(si->node_comm, &node_rank);
    int leader = node_rank == 0;
    MPI_Allreduce(&leader, &si->nodes, 1, MPI_INT, MPI_SUM, comm);
    MPI_Allreduce(&si->ranks_on_my_node, &si->ranks_per_node_max, 1, MPI_INT, MPI_MAX, comm);
    uint64_t mem[2] = {hpcp_meminfo_bytes("MemAvailable:"), hpcp_meminfo_bytes("MemTotal:")};
    uint64_t mem_min[2];
    MPI_Allreduce(mem, mem_min, 2, MPI_UINT64_T, MPI_MIN, comm);
    si->memory_available_min_node = mem_min[0];
    si->memory_total_min_node = mem_min[1];
    si->memory_bytes_per_node = mem[1];
}

static void read_mpi_library(char *out, size_t len)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(v, &n);
    v[n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1] = '\0';
    /* The first line names the library and version; the rest is build detail. */
    v[strcspn(v, "\n")] = '\0';
    char *p = v;
    while (*p == ' ' || *p == '\t')
        p++;
    copy_str(out, len, p);
}

/* Every rank reads it (the launcher gives all the same); rank 0 says once
 * when it cannot be used, and the run goes on without it. */
static void read_link_limit(struct hpcp_sysinfo *si, MPI_Comm comm)
{
    char err[256];
    if (hpcp_link_limit_parse(getenv(HPCP_LINK_LIMIT_ENV), &si->link_limit, err, sizeof err) < 0)
        hpcp_error(comm, "warning: %s ignored: %s", HPCP_LINK_LIMIT_ENV, err);
}

void hpcp_sysinfo_collect(struct hpcp_sysinfo *si, MPI_Comm comm, int argc, char **argv)
{
    memset(si, 0, sizeof *si);
    hpcp_iso_time(si->started_at, sizeof si->started_at);
    MPI_Comm_rank(comm, &si->rank);
    MPI_Comm_size(comm, &si->ranks);
    si->argc = argc;
    si->argv = argv;
    node_layout(si, comm);
    gather_hosts(si, comm);
    read_cpu_model(si->cpu_model, sizeof si->cpu_model);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    si->cores_per_node = cores > 0 ? (int)cores : 1;
    read_sysfs_choice("/sys/kernel/mm/transparent_hugepage/enabled", si->thp_enabled,
                      sizeof si->thp_enabled);
    read_sysfs_choice("/sys/kernel/mm/transparent_hugepage/defrag", si->thp_defrag,
                      sizeof si->thp_defrag);
    char line[64];
    read_line("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", line, sizeof line);
    si->hugepage_size_bytes = strtoull(line, NULL, 10);
    read_mpi_library(si->mpi_library, sizeof si->mpi_library);
    si->mpi_wtick_s = MPI_Wtick();
    struct utsname u;
    if (uname(&u) == 0) {
        char os[3 * sizeof u.release];
        snprintf(os, sizeof os, "%.60s %.60s %.60s", u.sysname, u.release, u.machine);
        copy_str(si->os, sizeof si->os, os);
    }
    read_affinity(si->affinity, sizeof si->affinity);
    read_link_limit(si, comm);
}

void hpcp_sysinfo_free(struct hpcp_sysinfo *si)
{
    free(si->hosts_json);
    free(si->rank_hosts_json);
    free(si->rank_cores_json);
    free(si->rank_numa_json);
    free(si->host_numa_json);
    if (si->node_comm != MPI_COMM_NULL && si->node_comm)
        MPI_Comm_free(&si->node_comm);
    si->hosts_json = NULL;
    si->rank_hosts_json = NULL;
    si->rank_cores_json = si->rank_numa_json = si->host_numa_json = NULL;
}

/* Where the ranks ran (placement.c); each array is left out when rank 0 ran
 * out of memory building it, and hosts' domains also when rank_hosts is. */
static void write_placement(const struct hpcp_sysinfo *si, struct hpcp_json *j)
{
    if (si->rank_cores_json)
        hpcp_json_raw(j, "rank_cores", si->rank_cores_json);
    if (si->rank_numa_json)
        hpcp_json_raw(j, "rank_numa", si->rank_numa_json);
    if (si->host_numa_json && si->rank_hosts_json && si->hosts_json)
        hpcp_json_raw(j, "numa_domains_per_host", si->host_numa_json);
}

static void write_strings(struct hpcp_json *j, const char *key, int n, char **v)
{
    hpcp_json_begin_array(j, key);
    for (int i = 0; i < n; i++)
        hpcp_json_string(j, NULL, v[i]);
    hpcp_json_end_array(j);
}

/* HPCC's M_OPENMP and omp_* keys, from this binary: null without OpenMP. The
 * thread count is taken inside a parallel region, as HPCC does, so it is what
 * the OpenMP loops of the benchmark just run (STREAM sets it) would get. */
static void write_openmp(struct hpcp_json *j)
{
#ifdef _OPENMP
    int threads = 1;
#pragma omp parallel
    {
#pragma omp single
        threads = omp_get_num_threads();
    }
    hpcp_json_begin_object(j, "openmp");
    hpcp_json_int(j, "version", _OPENMP);
    hpcp_json_int(j, "num_threads", threads);
    hpcp_json_int(j, "max_threads", omp_get_max_threads());
    hpcp_json_int(j, "num_procs", omp_get_num_procs());
    hpcp_json_end_object(j);
#else
    hpcp_json_null(j, "openmp");
#endif
}

static void write_float_model(struct hpcp_json *j, const char *type, int mantissa_digits,
                              int min_exponent, int max_exponent)
{
    hpcp_json_begin_object(j, type);
    hpcp_json_int(j, "radix", FLT_RADIX);
    hpcp_json_int(j, "mantissa_digits", mantissa_digits);
    hpcp_json_int(j, "min_exponent", min_exponent);
    hpcp_json_int(j, "max_exponent", max_exponent);
    hpcp_json_end_object(j);
}

/* HPCC's sizeof_* keys and the arithmetic behind HPL's dMACH/sMACH keys, as the
 * compiler of this binary has them (not as the reader's Python has them). */
static void write_c_types(struct hpcp_json *j)
{
    struct double_double {
        double a, b;
    };
    static const struct {
        const char *name;
        size_t bytes;
    } sizes[] = {
        {"char", sizeof(char)},
        {"short", sizeof(short)},
        {"int", sizeof(int)},
        {"long", sizeof(long)},
        {"void_ptr", sizeof(void *)},
        {"size_t", sizeof(size_t)},
        {"float", sizeof(float)},
        {"double", sizeof(double)},
        {"s64Int", sizeof(int64_t)},
        {"u64Int", sizeof(uint64_t)},
        {"struct_double_double", sizeof(struct double_double)},
    };
    hpcp_json_begin_object(j, "c_type_sizes_bytes");
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        hpcp_json_int(j, sizes[i].name, (long long)sizes[i].bytes);
    hpcp_json_end_object(j);
    hpcp_json_begin_object(j, "floating_point");
    write_float_model(j, "double", DBL_MANT_DIG, DBL_MIN_EXP, DBL_MAX_EXP);
    write_float_model(j, "float", FLT_MANT_DIG, FLT_MIN_EXP, FLT_MAX_EXP);
    hpcp_json_end_object(j);
}

/* 1..max characters, each printable ASCII (0x20-0x7e). */
static int is_printable(const char *text, size_t max)
{
    size_t n = 0;
    for (; text[n]; n++)
        if (n >= max || text[n] < 0x20 || text[n] > 0x7e)
            return 0;
    return n > 0;
}

/* How MPI moves data: the launcher's own words (HPCPROBE_TRANSPORT) when it
 * gives them, else the transport settings this rank's environment holds;
 * nothing when there are none, or when the text is not short printable ASCII
 * (the launcher's text is then left out, not replaced by a guess). */
static void write_transport(struct hpcp_json *j)
{
    static const char *const vars[] = {"UCX_TLS", "UCX_NET_DEVICES", "MPIR_CVAR_CH4_NETMOD",
                                       "FI_PROVIDER"};
    const char *given = getenv("HPCPROBE_TRANSPORT");
    char seen[HPCP_TRANSPORT_MAX + 2] = "";
    if (given && given[0]) {
        if (is_printable(given, HPCP_TRANSPORT_MAX))
            hpcp_json_string(j, "transport", given);
        return;
    }
    for (size_t i = 0, used = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && v[0] && used < sizeof seen)
            used += (size_t)snprintf(seen + used, sizeof seen - used, "%s%s=%s", used ? "; " : "",
                                     vars[i], v);
    }
    if (is_printable(seen, HPCP_TRANSPORT_MAX))
        hpcp_json_string(j, "transport", seen);
}

/* What the emulated cluster launcher says of the network (HPCPROBE_CLUSTER_NETWORK:
 * topology, link rates and delay, for `simulate --compare`) and of its faults when
 * the run started (HPCPROBE_CLUSTER_FAULTS, `hpcprobe cluster fault`: a figure
 * measured through a lossy or downed link says so). Short printable ASCII only. */
static void write_cluster_text(struct hpcp_json *j, const char *key, const char *variable)
{
    const char *text = getenv(variable);
    if (text && is_printable(text, HPCP_TRANSPORT_MAX))
        hpcp_json_string(j, key, text);
}

/* A Slurm variable that is a number: digits only, at most 20, so a record names its
 * job and step and nothing else. */
static void write_slurm_number(struct hpcp_json *j, const char *key, const char *variable)
{
    const char *value = getenv(variable);
    size_t n = value ? strspn(value, "0123456789") : 0;
    if (value && n > 0 && n <= 20 && value[n] == '\0')
        hpcp_json_string(j, key, value);
}

void hpcp_sysinfo_to_json(const struct hpcp_sysinfo *si, struct hpcp_json *j)
{
    hpcp_json_raw(j, "hosts", si->hosts_json ? si->hosts_json : "[\"unknown\"]");
    if (si->rank_hosts_json && si->hosts_json)
        hpcp_json_raw(j, "rank_hosts", si->rank_hosts_json);
    write_placement(si, j);
    hpcp_json_string(j, "cpu_model", si->cpu_model);
    hpcp_json_int(j, "cores_per_node", si->cores_per_node);
    hpcp_json_uint(j, "memory_bytes_per_node", si->memory_bytes_per_node);
    hpcp_json_begin_object(j, "hugepages");
    hpcp_json_string(j, "thp_enabled", si->thp_enabled);
    hpcp_json_string(j, "thp_defrag", si->thp_defrag);
    hpcp_json_uint(j, "pmd_size_bytes", si->hugepage_size_bytes);
    hpcp_json_end_object(j);
    hpcp_json_string(j, "compiler", HPCP_COMPILER);
    hpcp_json_string(j, "compiler_flags", HPCP_COMPILER_FLAGS);
    hpcp_json_string(j, "tuning", HPCP_TUNING_NAME);
    hpcp_json_string(j, "mpi_library", si->mpi_library);
    hpcp_json_double(j, "mpi_wtick_s", si->mpi_wtick_s);
    hpcp_json_string(j, "hpcprobe_version", HPCP_VERSION);
    hpcp_json_string(j, "git_commit", HPCP_GIT_COMMIT);
    write_strings(j, "command_line", si->argc, si->argv);
    /* Untrusted environment: copied only when it is exactly an array of strings. */
    const char *user = getenv("HPCPROBE_USER_COMMAND");
    if (user && strlen(user) < 65536 && hpcp_json_is_string_array(user))
        hpcp_json_raw(j, "user_command_line", user);
    /* The launch that asked for this record: hpcprobe reads back only its own records
     * from a file that other runs may be appending to. Kept only when it is a short
     * token, so a hostile environment cannot put anything else into the record. */
    const char *launch = getenv("HPCPROBE_LAUNCH_ID");
    if (launch && hpcp_is_name_token(launch, 64))
        hpcp_json_string(j, "launch_id", launch);
    const char *cluster = getenv("HPCPROBE_CLUSTER");
    if (cluster && hpcp_is_name_token(cluster, 64))
        hpcp_json_string(j, "cluster", cluster);
    write_transport(j);
    write_cluster_text(j, "cluster_network", "HPCPROBE_CLUSTER_NETWORK");
    /* The job the ranks ran in, and the step when srun started them (salloc and sbatch
     * set SLURM_JOB_ID for the whole job; only srun sets SLURM_STEP_ID). */
    write_slurm_number(j, "slurm_job_id", "SLURM_JOB_ID");
    write_slurm_number(j, "slurm_step_id", "SLURM_STEP_ID");
    write_cluster_text(j, "cluster_faults", "HPCPROBE_CLUSTER_FAULTS");
    hpcp_json_string(j, "affinity", si->affinity);
    hpcp_json_string(j, "os", si->os);
    write_openmp(j);
    write_c_types(j);
}

const char *hpcp_version_string(void)
{
    return HPCP_VERSION " (git " HPCP_GIT_COMMIT ")";
}
