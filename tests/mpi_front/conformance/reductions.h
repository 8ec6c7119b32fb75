/* Reductions for the conformance programs: every predefined operation on every predefined
 * type it applies to (MPI 4.1, 6.9.2), MPI_MAXLOC and MPI_MINLOC on the pair types, inputs
 * that depend on (rank, element) and the exact expected result over any range of ranks.
 *
 * The inputs keep every result exact in any order of evaluation: sums and products of small
 * integers (scaled so that the wide types' high bits are used, halves for floating point),
 * products in {0, +-1, +-2} (powers of i for complex), bit patterns for the bitwise
 * operations (every bit of every width), 0 and 1 for the logical ones. A range of up to 255
 * ranks stays in range for every type. */
#ifndef VMC_REDUCTIONS_H
#define VMC_REDUCTIONS_H

#include "conformance.h"

enum conf_op_id {
  CONF_OP_MAX, CONF_OP_MIN, CONF_OP_SUM, CONF_OP_PROD, CONF_OP_LAND, CONF_OP_LOR,
  CONF_OP_LXOR, CONF_OP_BAND, CONF_OP_BOR, CONF_OP_BXOR, CONF_OP_MAXLOC, CONF_OP_MINLOC,
  CONF_NOPS
};

static const char* const conf_op_names[CONF_NOPS] = {
    "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND", "MPI_LOR",
    "MPI_LXOR", "MPI_BAND", "MPI_BOR", "MPI_BXOR", "MPI_MAXLOC", "MPI_MINLOC"};

static inline MPI_Op conf_op(int o) {
  switch (o) {
    case CONF_OP_MAX: return MPI_MAX;
    case CONF_OP_MIN: return MPI_MIN;
    case CONF_OP_SUM: return MPI_SUM;
    case CONF_OP_PROD: return MPI_PROD;
    case CONF_OP_LAND: return MPI_LAND;
    case CONF_OP_LOR: return MPI_LOR;
    case CONF_OP_LXOR: return MPI_LXOR;
    case CONF_OP_BAND: return MPI_BAND;
    case CONF_OP_BOR: return MPI_BOR;
    case CONF_OP_BXOR: return MPI_BXOR;
    case CONF_OP_MAXLOC: return MPI_MAXLOC;
    case CONF_OP_MINLOC: return MPI_MINLOC;
  }
  return MPI_OP_NULL;
}

/* Whether the standard allows operation o on type t (not the pair types); and the logical
 * operations on the multi-language types, which the standard's table leaves out but MPICH
 * and Open MPI take (MPICH's own tests use them). */
static inline int conf_op_applies(int o, int t) {
  const enum conf_class c = conf_types[t].cls;
  const int integer = c == CONF_SIGNED || c == CONF_UNSIGNED;
  switch (o) {
    case CONF_OP_MAX:
    case CONF_OP_MIN: return integer || c == CONF_FLOAT || c == CONF_MULTI;
    case CONF_OP_SUM:
    case CONF_OP_PROD: return integer || c == CONF_FLOAT || c == CONF_COMPLEX || c == CONF_MULTI;
    case CONF_OP_LAND:
    case CONF_OP_LOR:
    case CONF_OP_LXOR: return integer || c == CONF_LOGICAL || c == CONF_MULTI;
    case CONF_OP_BAND:
    case CONF_OP_BOR:
    case CONF_OP_BXOR: return integer || c == CONF_BYTE || c == CONF_MULTI;
  }
  return 0;
}

/* The pair types of MPI_MAXLOC and MPI_MINLOC: X(id, MPI datatype, C type of the value). */
#define CONF_PAIR_TYPES(X)                         \
  X(FLOAT_INT, MPI_FLOAT_INT, float)               \
  X(DOUBLE_INT, MPI_DOUBLE_INT, double)            \
  X(LONG_INT, MPI_LONG_INT, long)                  \
  X(2INT, MPI_2INT, int)                           \
  X(SHORT_INT, MPI_SHORT_INT, short)               \
  X(LONG_DOUBLE_INT, MPI_LONG_DOUBLE_INT, long double)

#define CONF_PAIR_STRUCT(id, dt, ctype) \
  typedef struct {                      \
    ctype value;                        \
    int index;                          \
  } conf_pair_##id;
CONF_PAIR_TYPES(CONF_PAIR_STRUCT)
#undef CONF_PAIR_STRUCT

enum conf_pair_id {
#define CONF_PAIR_ID(id, dt, ctype) CONF_P_##id,
  CONF_PAIR_TYPES(CONF_PAIR_ID)
#undef CONF_PAIR_ID
  CONF_NPAIRS
};

static const char* const conf_pair_names[CONF_NPAIRS] = {
#define CONF_PAIR_NAME(id, dt, ctype) #dt,
    CONF_PAIR_TYPES(CONF_PAIR_NAME)
#undef CONF_PAIR_NAME
};

static const size_t conf_pair_sizes[CONF_NPAIRS] = {
#define CONF_PAIR_SIZE(id, dt, ctype) sizeof(conf_pair_##id),
    CONF_PAIR_TYPES(CONF_PAIR_SIZE)
#undef CONF_PAIR_SIZE
};

static inline MPI_Datatype conf_pair_datatype(int t) {
  switch (t) {
#define CONF_PAIR_DT(id, dt, ctype) \
  case CONF_P_##id:                 \
    return dt;
    CONF_PAIR_TYPES(CONF_PAIR_DT)
#undef CONF_PAIR_DT
  }
  return MPI_DATATYPE_NULL;
}

static inline void conf_pair_set(int t, void* buf, size_t i, long double value, int index) {
  switch (t) {
#define CONF_PAIR_SET(id, dt, ctype)                       \
  case CONF_P_##id:                                        \
    ((conf_pair_##id*)buf)[i].value = (ctype)value;        \
    ((conf_pair_##id*)buf)[i].index = index;               \
    break;
    CONF_PAIR_TYPES(CONF_PAIR_SET)
#undef CONF_PAIR_SET
  }
}

static inline void conf_pair_get(int t, const void* buf, size_t i, long double* value, int* index) {
  switch (t) {
#define CONF_PAIR_GET(id, dt, ctype)                                   \
  case CONF_P_##id:                                                    \
    *value = (long double)((const conf_pair_##id*)buf)[i].value;       \
    *index = ((const conf_pair_##id*)buf)[i].index;                    \
    break;
    CONF_PAIR_TYPES(CONF_PAIR_GET)
#undef CONF_PAIR_GET
  }
}

/* One reduction to test: operation o on type t (a conf_type_id, or a conf_pair_id when o is
 * MAXLOC or MINLOC). */
typedef struct {
  int o, t;
} conf_reduction;

static inline int conf_is_loc(conf_reduction c) {
  return c.o == CONF_OP_MAXLOC || c.o == CONF_OP_MINLOC;
}

static inline MPI_Datatype conf_reduction_type(conf_reduction c) {
  return conf_is_loc(c) ? conf_pair_datatype(c.t) : conf_datatype(c.t);
}

static inline size_t conf_reduction_extent(conf_reduction c) {
  return conf_is_loc(c) ? conf_pair_sizes[c.t] : conf_types[c.t].size;
}

static inline const char* conf_reduction_type_name(conf_reduction c) {
  return conf_is_loc(c) ? conf_pair_names[c.t] : conf_types[c.t].name;
}

/* Every (operation, type) pair the standard allows; returns how many (at most cap). Under
 * Open MPI (the reference the programs are proven against), without MPI_MAX and MPI_MIN on
 * MPI_OFFSET, which Open MPI 4.1 computes as if MPI_Offset were unsigned. */
static inline int conf_all_reductions(conf_reduction* out, int cap) {
  int n = 0;
  for (int o = 0; o < CONF_OP_MAXLOC; ++o) {
    for (int t = 0; t < CONF_NTYPES; ++t) {
#ifdef OPEN_MPI
      if (t == CONF_T_OFFSET && (o == CONF_OP_MAX || o == CONF_OP_MIN)) continue;
#endif
      if (conf_op_applies(o, t) && n < cap) out[n++] = (conf_reduction){o, t};
    }
  }
  for (int o = CONF_OP_MAXLOC; o <= CONF_OP_MINLOC; ++o) {
    for (int t = 0; t < CONF_NPAIRS; ++t) {
      if (n < cap) out[n++] = (conf_reduction){o, t};
    }
  }
  return n;
}

/* A value: (re, im) for the arithmetic operations, bits for the bitwise ones, (re, index)
 * for MAXLOC and MINLOC. */
typedef struct {
  long double re, im;
  unsigned long long bits;
  int index;
} conf_value;

static inline unsigned long long conf_mix(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static inline int conf_bits_of(int t) { return (int)(conf_types[t].size * 8); }

static inline unsigned long long conf_mask(int t) {
  const int bits = conf_bits_of(t);
  return bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
}

/* What rank r of p contributes at element i. */
static inline conf_value conf_input(conf_reduction c, int r, int p, size_t i) {
  conf_value v = {0, 0, 0, 0};
  const long long li = (long long)i;
  if (conf_is_loc(c)) {
    v.re = (long double)((r * 5 + li * 3) % 7 - 3); /* ties on purpose */
    v.index = (int)((r * 3 + li) % (p + 2));
    return v;
  }
  const enum conf_class cls = conf_types[c.t].cls;
  const int bits = conf_bits_of(c.t);
  /* Integers use their high bits too: values are multiples of 2^(bits - 9). */
  const long double scale = cls == CONF_FLOAT ? 0.5L
                            : (cls == CONF_SIGNED || cls == CONF_UNSIGNED || cls == CONF_MULTI) &&
                                      bits >= 16
                                ? (long double)(1ULL << (bits - 9))
                                : 1.0L;
  const int is_unsigned = cls == CONF_UNSIGNED;
  switch (c.o) {
    case CONF_OP_SUM:
      if (cls == CONF_COMPLEX) {
        v.re = (long double)((r * 7 + li) % 9 - 4);
        v.im = (long double)((r + 3 * li) % 5 - 2);
      } else if (cls == CONF_FLOAT) {
        v.re = (long double)((r * 7 + li) % 9 - 4) * scale;
      } else if (is_unsigned) {
        v.re = (long double)((r + li) % 2) * scale;
      } else {
        v.re = (long double)((r + 2 * li) % 3 - 1) * scale;
      }
      break;
    case CONF_OP_PROD: {
      long long x = 1;
      if (r == (int)(li % p)) x = 2;
      else if (!is_unsigned && (r + li) % 5 == 0) x = -1;
      if (li % 7 == 3 && r == (int)((li / 7) % p)) x = 0;
      if (cls == CONF_COMPLEX) {
        static const int unit_re[4] = {1, 0, -1, 0}, unit_im[4] = {0, 1, 0, -1};
        const int k = (int)((r + li) % 4);
        v.re = (long double)(x * unit_re[k]);
        v.im = (long double)(x * unit_im[k]);
      } else {
        v.re = (long double)x;
      }
      break;
    }
    case CONF_OP_MAX:
    case CONF_OP_MIN:
      v.re = (long double)((r * 5 + li * 3) % 17 - (is_unsigned ? 0 : 8)) * scale;
      break;
    case CONF_OP_LAND: v.re = r != (int)(li % (p + 1)); break;
    case CONF_OP_LOR: v.re = r == (int)(li % (p + 1)); break;
    case CONF_OP_LXOR: v.re = (r * 3 + li) % 4 == 0; break;
    case CONF_OP_BAND: /* a third of the ranks clear one bit each */
      v.bits = (r + li) % 3 == 0 ? ~(1ULL << ((r * 3 + li) % bits)) : ~0ULL;
      break;
    case CONF_OP_BOR: v.bits = (1ULL << ((r * 3 + li) % bits)) | ((li & 1) ? 1ULL << (bits - 1) : 0); break;
    case CONF_OP_BXOR: v.bits = conf_mix((unsigned long long)r * 1000003ULL + (unsigned long long)li); break;
  }
  v.bits &= conf_mask(c.t);
  return v;
}

static inline conf_value conf_combine(conf_reduction c, conf_value a, conf_value b) {
  switch (c.o) {
    case CONF_OP_SUM: a.re += b.re; a.im += b.im; break;
    case CONF_OP_PROD: {
      const long double re = a.re * b.re - a.im * b.im, im = a.re * b.im + a.im * b.re;
      a.re = re;
      a.im = im;
      break;
    }
    case CONF_OP_MAX: if (b.re > a.re) a.re = b.re; break;
    case CONF_OP_MIN: if (b.re < a.re) a.re = b.re; break;
    case CONF_OP_LAND: a.re = a.re != 0 && b.re != 0; break;
    case CONF_OP_LOR: a.re = a.re != 0 || b.re != 0; break;
    case CONF_OP_LXOR: a.re = (a.re != 0) != (b.re != 0); break;
    case CONF_OP_BAND: a.bits &= b.bits; break;
    case CONF_OP_BOR: a.bits |= b.bits; break;
    case CONF_OP_BXOR: a.bits ^= b.bits; break;
    case CONF_OP_MAXLOC:
    case CONF_OP_MINLOC: {
      const int better = c.o == CONF_OP_MAXLOC ? b.re > a.re : b.re < a.re;
      if (better) a = b;
      else if (b.re == a.re && b.index < a.index) a.index = b.index;
      break;
    }
  }
  return a;
}

/* The reduction of ranks [lo, hi) of p at element i (lo < hi). */
static inline conf_value conf_expected(conf_reduction c, int lo, int hi, int p, size_t i) {
  conf_value acc = conf_input(c, lo, p, i);
  for (int r = lo + 1; r < hi; ++r) acc = conf_combine(c, acc, conf_input(c, r, p, i));
  return acc;
}

static inline int conf_is_bitwise(conf_reduction c) {
  return c.o == CONF_OP_BAND || c.o == CONF_OP_BOR || c.o == CONF_OP_BXOR;
}

static inline void conf_store(conf_reduction c, void* buf, size_t i, conf_value v) {
  if (conf_is_loc(c)) conf_pair_set(c.t, buf, i, v.re, v.index);
  else if (conf_is_bitwise(c)) conf_set_bits(c.t, buf, i, v.bits);
  else conf_set(c.t, buf, i, v.re, v.im);
}

static inline int conf_equal(conf_reduction c, const void* buf, size_t i, conf_value want,
                             char* got, size_t got_size) {
  if (conf_is_loc(c)) {
    long double value = 0;
    int index = 0;
    conf_pair_get(c.t, buf, i, &value, &index);
    if (value == want.re && index == want.index) return 1;
    snprintf(got, got_size, "(%Lg, %d), expected (%Lg, %d)", value, index, want.re, want.index);
    return 0;
  }
  if (conf_is_bitwise(c)) {
    const unsigned long long bits = conf_get_bits(c.t, buf, i);
    if (bits == want.bits) return 1;
    snprintf(got, got_size, "0x%llx, expected 0x%llx", bits, want.bits);
    return 0;
  }
  const long double re = conf_get_re(c.t, buf, i), im = conf_get_im(c.t, buf, i);
  if (re == want.re && im == want.im) return 1;
  snprintf(got, got_size, "%Lg%+Lgi, expected %Lg%+Lgi", re, im, want.re, want.im);
  return 0;
}

/* Rank r's input for elements [offset, offset + count) into buf[0, count). */
static inline void conf_fill_input(conf_reduction c, void* buf, size_t count, int r, int p,
                                   size_t offset) {
  for (size_t i = 0; i < count; ++i) conf_store(c, buf, i, conf_input(c, r, p, offset + i));
}

/* Checks buf[0, count) against the reduction of ranks [lo, hi) at elements offset...; one
 * CHECK failure (the first wrong element and how many) per call. `what` names the call. */
static inline void conf_check_result(conf_reduction c, const void* buf, size_t count, int lo,
                                     int hi, int p, size_t offset, const char* what) {
  size_t bad = 0, first = 0;
  char got[160] = "", first_got[160] = "";
  for (size_t i = 0; i < count; ++i) {
    if (!conf_equal(c, buf, i, conf_expected(c, lo, hi, p, offset + i), got, sizeof got)) {
      if (bad++ == 0) {
        first = i;
        memcpy(first_got, got, sizeof got);
      }
    }
  }
  CHECK(bad == 0, "%s, %s on %s, count %zu, ranks [%d, %d): %zu wrong elements, first [%zu] = %s",
        what, conf_op_names[c.o], conf_reduction_type_name(c), count, lo, hi, bad, first,
        first_got);
}

#endif /* VMC_REDUCTIONS_H */
