/* Derived datatypes of ints, one of each constructor, with the places of their elements in an
 * int buffer (in typemap order), for the conformance programs that move them (datatypes.c,
 * coll_datatypes.c): make_shapes builds and commits them, fill_items writes items of one into
 * a buffer, expect_items checks a buffer holds them and nothing else. */
#ifndef VMC_CONFORMANCE_SHAPES_H
#define VMC_CONFORMANCE_SHAPES_H

#include "conformance.h"

/* A derived type of ints and the places of its elements in an int buffer, in typemap order. */
enum { MAXN = 16, SPAN = 40 };
typedef struct {
  const char* name;
  MPI_Datatype type;
  int n;        /* elements */
  int at[MAXN]; /* their places, in ints */
  int span;     /* ints a buffer of one item needs */
} shaped;

static inline int make_shapes(shaped* s) {
  int k = 0;
  MPI_Datatype t;
  {
    MPI_Type_contiguous(4, MPI_INT, &t);
    s[k++] = (shaped){"contiguous(4)", t, 4, {0, 1, 2, 3}, 4};
  }
  {
    MPI_Type_vector(3, 2, 4, MPI_INT, &t);
    s[k++] = (shaped){"vector(3, 2, 4)", t, 6, {0, 1, 4, 5, 8, 9}, 10};
  }
  {
    MPI_Type_create_hvector(3, 1, 3 * (MPI_Aint)sizeof(int), MPI_INT, &t);
    s[k++] = (shaped){"hvector(3, 1, 3 ints)", t, 3, {0, 3, 6}, 7};
  }
  {
    const int lengths[] = {2, 1, 3}, displs[] = {4, 0, 8};
    MPI_Type_indexed(3, lengths, displs, MPI_INT, &t);
    s[k++] = (shaped){"indexed", t, 6, {4, 5, 0, 8, 9, 10}, 11};
  }
  {
    const int lengths[] = {1, 2};
    const MPI_Aint displs[] = {5 * (MPI_Aint)sizeof(int), (MPI_Aint)sizeof(int)};
    MPI_Type_create_hindexed(2, lengths, displs, MPI_INT, &t);
    s[k++] = (shaped){"hindexed", t, 3, {5, 1, 2}, 6};
  }
  {
    const int displs[] = {6, 0, 3};
    MPI_Type_create_indexed_block(3, 2, displs, MPI_INT, &t);
    s[k++] = (shaped){"indexed_block", t, 6, {6, 7, 0, 1, 3, 4}, 8};
  }
  {
    const MPI_Aint displs[] = {2 * (MPI_Aint)sizeof(int), 7 * (MPI_Aint)sizeof(int)};
    MPI_Type_create_hindexed_block(2, 1, displs, MPI_INT, &t);
    s[k++] = (shaped){"hindexed_block", t, 2, {2, 7}, 8};
  }
  {
    MPI_Datatype v;
    MPI_Type_vector(2, 1, 3, MPI_INT, &v);
    const int lengths[] = {1, 1, 2};
    const MPI_Aint displs[] = {0, 5 * (MPI_Aint)sizeof(int), 9 * (MPI_Aint)sizeof(int)};
    const MPI_Datatype types[] = {MPI_INT, v, MPI_INT};
    MPI_Type_create_struct(3, lengths, displs, types, &t);
    MPI_Type_free(&v);
    s[k++] = (shaped){"struct {int, vector, 2 int}", t, 5, {0, 5, 8, 9, 10}, 11};
  }
  {
    MPI_Datatype v;
    MPI_Type_vector(2, 1, 2, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 5 * (MPI_Aint)sizeof(int), &t);
    MPI_Type_free(&v);
    s[k++] = (shaped){"resized(vector(2, 1, 2), 5 ints)", t, 2, {0, 2}, 5};
  }
  {
    const int sizes[] = {3, 4}, subsizes[] = {2, 2}, starts[] = {1, 1};
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t);
    s[k++] = (shaped){"subarray", t, 4, {5, 6, 9, 10}, 12};
  }
  {
    MPI_Datatype v;
    MPI_Type_vector(2, 2, 3, MPI_INT, &v);
    MPI_Type_dup(v, &t);
    MPI_Type_free(&v);
    s[k++] = (shaped){"dup(vector(2, 2, 3))", t, 4, {0, 1, 3, 4}, 5};
  }
  for (int i = 0; i < k; ++i) MPI_Type_commit(&s[i].type);
  return k;
}

/* Item `item` of a buffer of `shape` items: element j is base + j. */
static inline void fill_items(const shaped* s, int* buf, int items, int base) {
  MPI_Aint lb, ext;
  MPI_Type_get_extent(s->type, &lb, &ext);
  const int stride = (int)(ext / (MPI_Aint)sizeof(int));
  for (int it = 0; it < items; ++it) {
    for (int j = 0; j < s->n; ++j) buf[it * stride + s->at[j]] = base + it * s->n + j;
  }
}

static inline void expect_items(const shaped* s, const int* buf, int items, int base, int len,
                                const char* what) {
  MPI_Aint lb, ext;
  MPI_Type_get_extent(s->type, &lb, &ext);
  const int stride = (int)(ext / (MPI_Aint)sizeof(int));
  for (int i = 0; i < len; ++i) {
    int expected = -1;
    for (int it = 0; it < items; ++it) {
      for (int j = 0; j < s->n; ++j) {
        if (it * stride + s->at[j] == i) expected = base + it * s->n + j;
      }
    }
    CHECK(buf[i] == expected, "%s (%s): int %d is %d, expected %d", what, s->name, i, buf[i],
          expected);
  }
}

/* The ints a buffer of `items` items of s spans from its start. */
static inline int span_of_items(const shaped* s, int items) {
  MPI_Aint lb, ext;
  MPI_Type_get_extent(s->type, &lb, &ext);
  const int stride = (int)(ext / (MPI_Aint)sizeof(int));
  int last = 0;
  for (int j = 0; j < s->n; ++j) last = s->at[j] > last ? s->at[j] : last;
  return items == 0 ? 0 : (items - 1) * stride + last + 1;
}

#endif
