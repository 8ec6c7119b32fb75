/* What every conformance program shares: checks that name the rank and the failure, the
 * tally at the end ("No Errors" from rank 0 when no rank failed a check, exit status 1 on
 * every rank otherwise), and a table of MPI's predefined C types with access to their
 * elements by value.
 *
 * The programs are written against the MPI standard (4.1), not against vmc, and are proven
 * under another MPI first: they use nothing vmc-specific but the VMC_MPI_H guard of vmc's
 * mpi.h, behind which sit the checks only vmc promises (its version, the function named in
 * an error's text). They are safe under any protocol: no standard-mode send relies on being
 * buffered. Five places excuse known deviations of Open MPI 4.1 from the standard, under
 * OPEN_MPI (its mpi.h defines it): MPI_MAX and MPI_MIN on MPI_OFFSET, the length
 * MPI_Get_library_version returns, truncation of a message to itself, the blocks of its
 * nonblocking neighbourhood alltoalls when one neighbour is a rank's on both sides, and a
 * block of no MPI_INT against one item of an empty type, whose empty signatures match
 * (MPI_Ialltoallv, MPI_Gatherv and MPI_Bcast skip the transfer on the side whose count is 0
 * and hang on the other). */
#ifndef VMC_CONFORMANCE_H
#define VMC_CONFORMANCE_H

#include <complex.h>
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* Open MPI 4.1 (an MPI-3.1 library) has MPI-4.0's persistent collectives as extensions. */
#if defined(OPEN_MPI) && MPI_VERSION < 4
#include <mpi-ext.h>
#define MPI_Barrier_init MPIX_Barrier_init
#define MPI_Bcast_init MPIX_Bcast_init
#define MPI_Reduce_init MPIX_Reduce_init
#define MPI_Allreduce_init MPIX_Allreduce_init
#define MPI_Scan_init MPIX_Scan_init
#define MPI_Exscan_init MPIX_Exscan_init
#define MPI_Reduce_scatter_block_init MPIX_Reduce_scatter_block_init
#define MPI_Reduce_scatter_init MPIX_Reduce_scatter_init
#define MPI_Gather_init MPIX_Gather_init
#define MPI_Gatherv_init MPIX_Gatherv_init
#define MPI_Scatter_init MPIX_Scatter_init
#define MPI_Scatterv_init MPIX_Scatterv_init
#define MPI_Allgather_init MPIX_Allgather_init
#define MPI_Allgatherv_init MPIX_Allgatherv_init
#define MPI_Alltoall_init MPIX_Alltoall_init
#define MPI_Alltoallv_init MPIX_Alltoallv_init
#define MPI_Alltoallw_init MPIX_Alltoallw_init
#define MPI_Neighbor_allgather_init MPIX_Neighbor_allgather_init
#define MPI_Neighbor_allgatherv_init MPIX_Neighbor_allgatherv_init
#define MPI_Neighbor_alltoall_init MPIX_Neighbor_alltoall_init
#define MPI_Neighbor_alltoallv_init MPIX_Neighbor_alltoallv_init
#define MPI_Neighbor_alltoallw_init MPIX_Neighbor_alltoallw_init
#endif

/* Checks. */

static int conf_failures;  /* this rank's failed checks */
static int conf_printed;   /* how many of them were printed */
enum { CONF_PRINT_LIMIT = 25, CONF_TALLY_TAG = 32001 };

static int conf_rank_seen = -1; /* the world rank, once known (kept after MPI_Finalize) */

static inline int conf_world_rank(void) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &conf_rank_seen);
  return conf_rank_seen;
}

static inline void conf_fail(const char* file, int line, const char* expr, const char* fmt, ...) {
  ++conf_failures;
  if (conf_printed >= CONF_PRINT_LIMIT) return;
  ++conf_printed;
  printf("rank %d: %s:%d: check failed: %s: ", conf_world_rank(), file, line, expr);
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("%s\n", conf_printed == CONF_PRINT_LIMIT ? " (further failures not printed)" : "");
  fflush(stdout);
}

/* CHECK(condition, printf format, arguments): the details say what was expected and got. */
#define CHECK(cond, ...) ((cond) ? (void)0 : conf_fail(__FILE__, __LINE__, #cond, __VA_ARGS__))

/* An MPI call that must succeed (under MPI_ERRORS_RETURN; under the default handler a
 * failing call never returns). */
#define CHECK_MPI(call)                                                                   \
  do {                                                                                    \
    int conf_rc_ = (call);                                                                \
    CHECK(conf_rc_ == MPI_SUCCESS, "%s returned %d", #call, conf_rc_);                    \
  } while (0)

/* Every rank's count of failures so far, summed by point-to-point calls only (so that the
 * tally does not depend on the collectives under test): rank 0 receives them and sends the
 * total back. Call it on every rank. */
static inline int conf_tally(void) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  conf_rank_seen = rank;
  int total = conf_failures;
  if (rank == 0) {
    for (int r = 1; r < size; ++r) {
      int theirs = 0;
      MPI_Recv(&theirs, 1, MPI_INT, r, CONF_TALLY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      total += theirs;
    }
    for (int r = 1; r < size; ++r) {
      MPI_Send(&total, 1, MPI_INT, r, CONF_TALLY_TAG, MPI_COMM_WORLD);
    }
  } else {
    MPI_Send(&conf_failures, 1, MPI_INT, 0, CONF_TALLY_TAG, MPI_COMM_WORLD);
    MPI_Recv(&total, 1, MPI_INT, 0, CONF_TALLY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return total;
}

/* Rank 0's verdict: "No Errors", or how many checks failed on all ranks. */
static inline void conf_verdict(int total) {
  if (conf_rank_seen != 0) return;
  if (total == 0) {
    printf("No Errors\n");
  } else {
    printf("Found %d errors\n", total);
  }
  fflush(stdout);
}

/* Ends the program: the tally, rank 0's verdict, MPI_Finalize, and exit status 1 on every
 * rank when any rank failed. Call it from main as `return conf_finish();`. */
static inline int conf_finish(void) {
  const int total = conf_tally();
  conf_verdict(total);
  MPI_Finalize();
  return total == 0 && conf_failures == 0 ? 0 : 1;
}

/* malloc that cannot fail quietly (at least 1 byte, so that count 0 still has an address). */
static inline void* conf_alloc(size_t bytes) {
  void* p = malloc(bytes > 0 ? bytes : 1);
  if (p == NULL) {
    printf("rank %d: out of memory (%zu bytes)\n", conf_world_rank(), bytes);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return p;
}

/* The predefined C types. Each has a class that says which reduction operations apply to it
 * (MPI 4.1, 6.9.2: C integer, floating point, logical, complex, byte, multi-language) and
 * which C type holds an element. */

enum conf_class {
  CONF_SIGNED,   /* C integer, signed */
  CONF_UNSIGNED, /* C integer, unsigned */
  CONF_FLOAT,    /* floating point */
  CONF_COMPLEX,  /* complex */
  CONF_LOGICAL,  /* MPI_C_BOOL */
  CONF_BYTE,     /* MPI_BYTE */
  CONF_MULTI,    /* multi-language types: MPI_AINT, MPI_OFFSET, MPI_COUNT (signed) */
  CONF_TEXT      /* MPI_CHAR, MPI_WCHAR: no reduction applies */
};

/* X(id, MPI datatype, C type, class) for every type whose elements are real numbers. */
#define CONF_REAL_TYPES(X)                                      \
  X(CHAR, MPI_CHAR, char, CONF_TEXT)                            \
  X(WCHAR, MPI_WCHAR, wchar_t, CONF_TEXT)                       \
  X(SIGNED_CHAR, MPI_SIGNED_CHAR, signed char, CONF_SIGNED)     \
  X(UNSIGNED_CHAR, MPI_UNSIGNED_CHAR, unsigned char, CONF_UNSIGNED) \
  X(SHORT, MPI_SHORT, short, CONF_SIGNED)                       \
  X(UNSIGNED_SHORT, MPI_UNSIGNED_SHORT, unsigned short, CONF_UNSIGNED) \
  X(INT, MPI_INT, int, CONF_SIGNED)                             \
  X(UNSIGNED, MPI_UNSIGNED, unsigned, CONF_UNSIGNED)            \
  X(LONG, MPI_LONG, long, CONF_SIGNED)                          \
  X(UNSIGNED_LONG, MPI_UNSIGNED_LONG, unsigned long, CONF_UNSIGNED) \
  X(LONG_LONG, MPI_LONG_LONG, long long, CONF_SIGNED)           \
  X(LONG_LONG_INT, MPI_LONG_LONG_INT, long long, CONF_SIGNED)   \
  X(UNSIGNED_LONG_LONG, MPI_UNSIGNED_LONG_LONG, unsigned long long, CONF_UNSIGNED) \
  X(INT8_T, MPI_INT8_T, int8_t, CONF_SIGNED)                    \
  X(INT16_T, MPI_INT16_T, int16_t, CONF_SIGNED)                 \
  X(INT32_T, MPI_INT32_T, int32_t, CONF_SIGNED)                 \
  X(INT64_T, MPI_INT64_T, int64_t, CONF_SIGNED)                 \
  X(UINT8_T, MPI_UINT8_T, uint8_t, CONF_UNSIGNED)               \
  X(UINT16_T, MPI_UINT16_T, uint16_t, CONF_UNSIGNED)            \
  X(UINT32_T, MPI_UINT32_T, uint32_t, CONF_UNSIGNED)            \
  X(UINT64_T, MPI_UINT64_T, uint64_t, CONF_UNSIGNED)            \
  X(AINT, MPI_AINT, MPI_Aint, CONF_MULTI)                       \
  X(OFFSET, MPI_OFFSET, MPI_Offset, CONF_MULTI)                 \
  X(COUNT, MPI_COUNT, MPI_Count, CONF_MULTI)                    \
  X(FLOAT, MPI_FLOAT, float, CONF_FLOAT)                        \
  X(DOUBLE, MPI_DOUBLE, double, CONF_FLOAT)                     \
  X(LONG_DOUBLE, MPI_LONG_DOUBLE, long double, CONF_FLOAT)      \
  X(C_BOOL, MPI_C_BOOL, _Bool, CONF_LOGICAL)                    \
  X(BYTE, MPI_BYTE, unsigned char, CONF_BYTE)

#define CONF_COMPLEX_TYPES(X)                                                      \
  X(C_COMPLEX, MPI_C_COMPLEX, float _Complex, CONF_COMPLEX)                        \
  X(C_FLOAT_COMPLEX, MPI_C_FLOAT_COMPLEX, float _Complex, CONF_COMPLEX)            \
  X(C_DOUBLE_COMPLEX, MPI_C_DOUBLE_COMPLEX, double _Complex, CONF_COMPLEX)         \
  X(C_LONG_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, CONF_COMPLEX)

enum conf_type_id {
#define CONF_ID(id, dt, ctype, cls) CONF_T_##id,
  CONF_REAL_TYPES(CONF_ID) CONF_COMPLEX_TYPES(CONF_ID)
#undef CONF_ID
  CONF_NTYPES
};

typedef struct {
  const char* name;
  size_t size; /* sizeof the C type: the type's extent */
  enum conf_class cls;
} conf_type_info;

static const conf_type_info conf_types[CONF_NTYPES] = {
#define CONF_INFO(id, dt, ctype, cls) {#dt, sizeof(ctype), cls},
    CONF_REAL_TYPES(CONF_INFO) CONF_COMPLEX_TYPES(CONF_INFO)
#undef CONF_INFO
};

/* The handle of type t (handles are not constant expressions in every MPI, so not in the
 * table). */
static inline MPI_Datatype conf_datatype(int t) {
  switch (t) {
#define CONF_DT(id, dt, ctype, cls) \
  case CONF_T_##id:                 \
    return dt;
    CONF_REAL_TYPES(CONF_DT) CONF_COMPLEX_TYPES(CONF_DT)
#undef CONF_DT
  }
  return MPI_DATATYPE_NULL;
}

/* Element i of a buffer of type t, as a number (re, im); im is 0 but for complex types. */
static inline void conf_set(int t, void* buf, size_t i, long double re, long double im) {
  switch (t) {
#define CONF_SET_REAL(id, dt, ctype, cls) \
  case CONF_T_##id:                       \
    ((ctype*)buf)[i] = (ctype)re;         \
    break;
#define CONF_SET_COMPLEX(id, dt, ctype, cls)                \
  case CONF_T_##id:                                         \
    ((ctype*)buf)[i] = (ctype)re + (ctype)im * (ctype)I;    \
    break;
    CONF_REAL_TYPES(CONF_SET_REAL) CONF_COMPLEX_TYPES(CONF_SET_COMPLEX)
#undef CONF_SET_REAL
#undef CONF_SET_COMPLEX
  }
}

static inline long double conf_get_re(int t, const void* buf, size_t i) {
  switch (t) {
#define CONF_GET_REAL(id, dt, ctype, cls) \
  case CONF_T_##id:                       \
    return (long double)((const ctype*)buf)[i];
#define CONF_GET_COMPLEX(id, dt, ctype, cls) \
  case CONF_T_##id:                          \
    return (long double)creall(((const ctype*)buf)[i]);
    CONF_REAL_TYPES(CONF_GET_REAL) CONF_COMPLEX_TYPES(CONF_GET_COMPLEX)
#undef CONF_GET_REAL
#undef CONF_GET_COMPLEX
  }
  return 0;
}

static inline long double conf_get_im(int t, const void* buf, size_t i) {
  switch (t) {
#define CONF_GET_IM(id, dt, ctype, cls) \
  case CONF_T_##id:                     \
    return (long double)cimagl(((const ctype*)buf)[i]);
    CONF_COMPLEX_TYPES(CONF_GET_IM)
#undef CONF_GET_IM
  }
  return 0;
}

/* The bits of element i of an integer, logical or byte type (low bits of the result). */
static inline unsigned long long conf_get_bits(int t, const void* buf, size_t i) {
  const unsigned char* at = (const unsigned char*)buf + i * conf_types[t].size;
  switch (conf_types[t].size) {
    case 1: { uint8_t v; memcpy(&v, at, 1); return v; }
    case 2: { uint16_t v; memcpy(&v, at, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, at, 4); return v; }
    default: { uint64_t v; memcpy(&v, at, 8); return v; }
  }
}

static inline void conf_set_bits(int t, void* buf, size_t i, unsigned long long bits) {
  unsigned char* at = (unsigned char*)buf + i * conf_types[t].size;
  switch (conf_types[t].size) {
    case 1: { uint8_t v = (uint8_t)bits; memcpy(at, &v, 1); break; }
    case 2: { uint16_t v = (uint16_t)bits; memcpy(at, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)bits; memcpy(at, &v, 4); break; }
    default: { uint64_t v = (uint64_t)bits; memcpy(at, &v, 8); break; }
  }
}

/* A value of type t that depends on (seed, i), for moving data around: every type holds it
 * exactly (0..99, 0/1 for bool, letters for text). */
static inline long double conf_pattern(int t, long seed, size_t i) {
  long v = (long)((seed * 31 + (long)i * 7) % 100);
  if (v < 0) v += 100;
  if (conf_types[t].cls == CONF_LOGICAL) return (long double)(v % 2);
  if (conf_types[t].cls == CONF_TEXT) return (long double)('a' + v % 26);
  return (long double)v;
}

static inline void conf_fill(int t, void* buf, size_t count, long seed) {
  for (size_t i = 0; i < count; ++i) {
    conf_set(t, buf, i, conf_pattern(t, seed, i), conf_pattern(t, seed + 1, i));
  }
}

/* How many elements of buf differ from conf_fill(t, ., count, seed); the first at *first. */
static inline size_t conf_mismatches(int t, const void* buf, size_t count, long seed, size_t* first) {
  size_t bad = 0;
  for (size_t i = 0; i < count; ++i) {
    int ok = conf_get_re(t, buf, i) == conf_pattern(t, seed, i);
    if (conf_types[t].cls == CONF_COMPLEX) ok = ok && conf_get_im(t, buf, i) == conf_pattern(t, seed + 1, i);
    if (!ok && bad++ == 0 && first != NULL) *first = i;
  }
  return bad;
}

/* Receive buffers are filled with CONF_FILLER bytes before a call; elements the call must
 * not write are checked to still hold them. */
enum { CONF_FILLER = 0xA5 };

/* How many of buf's elements that written[] does not mark were written (any byte that is
 * not CONF_FILLER); the first at *first. written may be NULL: no element may be written. */
static inline size_t conf_overwritten(const void* buf, size_t elements, size_t extent,
                                      const unsigned char* written, size_t* first) {
  const unsigned char* b = (const unsigned char*)buf;
  size_t bad = 0;
  for (size_t i = 0; i < elements; ++i) {
    if (written != NULL && written[i]) continue;
    for (size_t k = 0; k < extent; ++k) {
      if (b[i * extent + k] != CONF_FILLER) {
        if (bad++ == 0 && first != NULL) *first = i;
        break;
      }
    }
  }
  return bad;
}

/* Checks count elements of type t at buf against conf_fill(t, ., count, seed). */
#define CHECK_FILLED(t, buf, count, seed, ...)                                                \
  do {                                                                                        \
    size_t conf_first_ = 0;                                                                   \
    const size_t conf_bad_ = conf_mismatches((t), (buf), (count), (seed), &conf_first_);      \
    CHECK(conf_bad_ == 0, "%s: %zu of %zu elements wrong, first [%zu] = %Lg (expected %Lg)", \
          __VA_ARGS__, conf_bad_, (size_t)(count), conf_first_,                               \
          conf_get_re((t), (buf), conf_first_), conf_pattern((t), (seed), conf_first_));      \
  } while (0)

/* Communicators to run collectives on besides MPI_COMM_WORLD: the world in reverse order
 * (MPI_Comm_split with one colour and keys that reverse the ranks) and this rank's half of
 * the world (the even or the odd ranks, MPI_Comm_split). */
typedef struct {
  MPI_Comm comm;
  const char* name;
} conf_comm;

enum { CONF_NCOMMS = 3 };

static inline void conf_make_comms(conf_comm out[CONF_NCOMMS]) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  out[0].comm = MPI_COMM_WORLD;
  out[0].name = "MPI_COMM_WORLD";
  MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &out[1].comm);
  out[1].name = "the world reversed";
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &out[2].comm);
  out[2].name = rank % 2 ? "the odd ranks" : "the even ranks";
}

static inline void conf_free_comms(conf_comm c[CONF_NCOMMS]) {
  MPI_Comm_free(&c[1].comm);
  MPI_Comm_free(&c[2].comm);
}

#endif /* VMC_CONFORMANCE_H */
