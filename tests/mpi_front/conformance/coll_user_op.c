/* User-defined operations (MPI_Op_create) through every reduction: a non-commutative one, the
 * product of 3x3 integer matrices modulo 251, must be combined in rank order (rank 0's
 * operand leftmost) by MPI_Reduce (every root, in place at the root too), MPI_Allreduce (in
 * place too), MPI_Reduce_scatter_block, MPI_Reduce_scatter, MPI_Scan and MPI_Exscan, and by
 * MPI_Reduce_local. The matrices travel as two datatypes: a contiguous one (9 ints) and one
 * with holes (3 rows of 3 ints, 4 ints apart, resized to 12 ints), which the function reads
 * through the datatype handle MPI passes it. A commutative user op (an integer sum) and
 * MPI_Op_commutative and MPI_Op_free (a predefined op: MPI_ERR_OP) complete the set. */
#include "conformance.h"

enum { MOD = 251, SLOT = 12 };

static MPI_Datatype mat, holed; /* 9 ints back to back; 3 rows of 3, 4 apart, 12 to an item */
static int rank, size;
static int calls_with_wrong_type;

/* Row stride and item stride of a matrix datatype, in ints. */
static void layout(MPI_Datatype dt, int* row, int* item) {
  if (dt == holed) {
    *row = 4;
    *item = SLOT;
  } else {
    if (dt != mat) ++calls_with_wrong_type;
    *row = 3;
    *item = 9;
  }
}

static void matmul(const int* a, int ra, const int* b, int rb, int* out, int ro) {
  int tmp[9];
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      int v = 0;
      for (int k = 0; k < 3; ++k) v += a[i * ra + k] * b[k * rb + j];
      tmp[i * 3 + j] = v % MOD;
    }
  }
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) out[i * ro + j] = tmp[i * 3 + j];
  }
}

/* inoutvec[i] = invec[i] x inoutvec[i]: invec comes from the lower ranks. */
static void product(void* invec, void* inoutvec, int* len, MPI_Datatype* dt) {
  int row, item;
  layout(*dt, &row, &item);
  const int* in = invec;
  int* inout = inoutvec;
  for (int i = 0; i < *len; ++i)
    matmul(in + i * item, row, inout + i * item, row, inout + i * item, row);
}

static void int_sum(void* invec, void* inoutvec, int* len, MPI_Datatype* dt) {
  (void)dt;
  const int* in = invec;
  int* inout = inoutvec;
  for (int i = 0; i < *len; ++i) inout[i] += in[i];
}

/* Rank r's i-th matrix (row-major, 3 ints to a row). */
static void matrix_of(int r, int i, int* m) {
  const int v[9] = {1, (r + i + 1) % MOD, 0, 0, 1, (2 * r + i) % 5, (r + i) % 3, 0, 1 + r % 2};
  memcpy(m, v, sizeof v);
}

/* The product of ranks from..to-1's i-th matrices, in rank order. */
static void ordered_product(int from, int to, int i, int* out) {
  int acc[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, m[9];
  for (int r = from; r < to; ++r) {
    matrix_of(r, i, m);
    matmul(acc, 3, m, 3, acc, 3);
  }
  memcpy(out, acc, sizeof acc);
}

/* Items as datatype dt lays them out: n matrices, the holes (of `holed`) filled with -1. */
static int* buffer_of(MPI_Datatype dt, int n) {
  int row, item;
  layout(dt, &row, &item);
  int* b = conf_alloc(sizeof(int) * (size_t)(n * item + 1));
  for (int k = 0; k < n * item + 1; ++k) b[k] = -1;
  return b;
}

static void put(MPI_Datatype dt, int* b, int at, const int* m) {
  int row, item;
  layout(dt, &row, &item);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) b[at * item + i * row + j] = m[i * 3 + j];
  }
}

/* Item `at` of b is m, and b's holes and the int after it are untouched. */
static void expect(MPI_Datatype dt, const int* b, int at, const int* m, const char* what) {
  int row, item;
  layout(dt, &row, &item);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      CHECK(b[at * item + i * row + j] == m[i * 3 + j], "%s: item %d [%d][%d] is %d, expected %d",
            what, at, i, j, b[at * item + i * row + j], m[i * 3 + j]);
    }
  }
  if (dt == holed) {
    for (int i = 0; i < 3; ++i) {
      CHECK(b[at * item + i * row + 3] == -1, "%s: item %d: a hole was written", what, at);
    }
  }
}

static void reductions(MPI_Op op, MPI_Datatype dt, const char* name) {
  enum { N = 2 };
  char what[160];
  int want[9], m[9];
  int* send = buffer_of(dt, N * size);
  int* recv = buffer_of(dt, N * size);
  for (int i = 0; i < N * size; ++i) {
    matrix_of(rank, i, m);
    put(dt, send, i, m);
  }
  /* Reduce at every root, then in place at the root. */
  for (int root = 0; root < size; ++root) {
    int* r = buffer_of(dt, N);
    snprintf(what, sizeof what, "MPI_Reduce(%s, root %d)", name, root);
    CHECK_MPI(MPI_Reduce(send, r, N, dt, op, root, MPI_COMM_WORLD));
    for (int i = 0; rank == root && i < N; ++i) {
      ordered_product(0, size, i, want);
      expect(dt, r, i, want, what);
    }
    if (rank == root) memcpy(r, send, sizeof(int) * (size_t)(N * (dt == holed ? SLOT : 9)));
    snprintf(what, sizeof what, "MPI_Reduce(%s, root %d, in place)", name, root);
    CHECK_MPI(MPI_Reduce(rank == root ? MPI_IN_PLACE : send, r, N, dt, op, root, MPI_COMM_WORLD));
    for (int i = 0; rank == root && i < N; ++i) {
      ordered_product(0, size, i, want);
      expect(dt, r, i, want, what);
    }
    free(r);
  }
  snprintf(what, sizeof what, "MPI_Allreduce(%s)", name);
  CHECK_MPI(MPI_Allreduce(send, recv, N, dt, op, MPI_COMM_WORLD));
  for (int i = 0; i < N; ++i) {
    ordered_product(0, size, i, want);
    expect(dt, recv, i, want, what);
  }
  memcpy(recv, send, sizeof(int) * (size_t)(N * (dt == holed ? SLOT : 9)));
  snprintf(what, sizeof what, "MPI_Allreduce(%s, in place)", name);
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, recv, N, dt, op, MPI_COMM_WORLD));
  for (int i = 0; i < N; ++i) {
    ordered_product(0, size, i, want);
    expect(dt, recv, i, want, what);
  }
  snprintf(what, sizeof what, "MPI_Scan(%s)", name);
  CHECK_MPI(MPI_Scan(send, recv, N, dt, op, MPI_COMM_WORLD));
  for (int i = 0; i < N; ++i) {
    ordered_product(0, rank + 1, i, want);
    expect(dt, recv, i, want, what);
  }
  snprintf(what, sizeof what, "MPI_Exscan(%s)", name);
  CHECK_MPI(MPI_Exscan(send, recv, N, dt, op, MPI_COMM_WORLD));
  for (int i = 0; rank > 0 && i < N; ++i) {
    ordered_product(0, rank, i, want);
    expect(dt, recv, i, want, what);
  }
  /* Reduce_scatter_block: block j (N items) of every rank to rank j. */
  snprintf(what, sizeof what, "MPI_Reduce_scatter_block(%s)", name);
  int* block = buffer_of(dt, N);
  CHECK_MPI(MPI_Reduce_scatter_block(send, block, N, dt, op, MPI_COMM_WORLD));
  for (int i = 0; i < N; ++i) {
    ordered_product(0, size, rank * N + i, want);
    expect(dt, block, i, want, what);
  }
  /* Reduce_scatter: rank j gets j % 3 items, from where the blocks before it end. */
  int* counts = conf_alloc(sizeof(int) * (size_t)size);
  int total = 0, mine_at = 0;
  for (int j = 0; j < size; ++j) {
    counts[j] = j % 3;
    if (j < rank) mine_at += counts[j];
    total += counts[j];
  }
  if (total <= N * size) {
    snprintf(what, sizeof what, "MPI_Reduce_scatter(%s)", name);
    int* mine = buffer_of(dt, 2);
    CHECK_MPI(MPI_Reduce_scatter(send, mine, counts, dt, op, MPI_COMM_WORLD));
    for (int i = 0; i < counts[rank]; ++i) {
      ordered_product(0, size, mine_at + i, want);
      expect(dt, mine, i, want, what);
    }
    free(mine);
  }
  /* Reduce_local: inout = in x inout. */
  int* a = buffer_of(dt, 1);
  int* b = buffer_of(dt, 1);
  int x[9], y[9];
  matrix_of(1, 0, x);
  matrix_of(2, 1, y);
  put(dt, a, 0, x);
  put(dt, b, 0, y);
  CHECK_MPI(MPI_Reduce_local(a, b, 1, dt, op));
  matmul(x, 3, y, 3, want, 3);
  snprintf(what, sizeof what, "MPI_Reduce_local(%s)", name);
  expect(dt, b, 0, want, what);
  free(a);
  free(b);
  free(counts);
  free(block);
  free(send);
  free(recv);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype rows;
  CHECK_MPI(MPI_Type_contiguous(9, MPI_INT, &mat));
  CHECK_MPI(MPI_Type_commit(&mat));
  CHECK_MPI(MPI_Type_vector(3, 3, 4, MPI_INT, &rows));
  CHECK_MPI(MPI_Type_create_resized(rows, 0, (MPI_Aint)(SLOT * sizeof(int)), &holed));
  CHECK_MPI(MPI_Type_free(&rows));
  CHECK_MPI(MPI_Type_commit(&holed));

  MPI_Op op, sum;
  int commute = -1;
  CHECK_MPI(MPI_Op_create(product, 0, &op));
  CHECK_MPI(MPI_Op_commutative(op, &commute));
  CHECK(commute == 0, "MPI_Op_commutative of a non-commutative op gave %d", commute);
  CHECK_MPI(MPI_Op_create(int_sum, 1, &sum));
  CHECK_MPI(MPI_Op_commutative(sum, &commute));
  CHECK(commute == 1, "MPI_Op_commutative of a commutative op gave %d", commute);
  CHECK_MPI(MPI_Op_commutative(MPI_SUM, &commute));
  CHECK(commute == 1, "MPI_Op_commutative(MPI_SUM) gave %d", commute);

  reductions(op, mat, "contiguous matrices");
  reductions(op, holed, "matrices with holes");
  CHECK(calls_with_wrong_type == 0, "the user function got another datatype %d times",
        calls_with_wrong_type);

  /* A commutative user op on a predefined type, at a few counts. */
  const int counts[] = {0, 1, 7, 1000};
  for (int k = 0; k < 4; ++k) {
    int* in = conf_alloc(sizeof(int) * (size_t)counts[k]);
    int* out = conf_alloc(sizeof(int) * (size_t)counts[k]);
    for (int i = 0; i < counts[k]; ++i) in[i] = rank + i;
    CHECK_MPI(MPI_Allreduce(in, out, counts[k], MPI_INT, sum, MPI_COMM_WORLD));
    for (int i = 0; i < counts[k]; ++i) {
      const int want = size * (size - 1) / 2 + size * i;
      CHECK(out[i] == want, "MPI_Allreduce(user sum, count %d)[%d] = %d, expected %d", counts[k], i,
            out[i], want);
    }
    free(in);
    free(out);
  }

  /* A predefined op is not freed. */
  MPI_Op predefined = MPI_SUM;
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int rc = MPI_Op_free(&predefined);
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_OP, "MPI_Op_free(MPI_SUM) gave class %d, expected MPI_ERR_OP", cls);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

  CHECK_MPI(MPI_Op_free(&op));
  CHECK(op == MPI_OP_NULL, "MPI_Op_free did not set the handle to MPI_OP_NULL");
  CHECK_MPI(MPI_Op_free(&sum));
  CHECK_MPI(MPI_Type_free(&mat));
  CHECK_MPI(MPI_Type_free(&holed));
  return conf_finish();
}
