/* Info objects: MPI_Info_create, _set, _get_string (MPI-4's, with its buffer length in and
 * out, truncating), the deprecated MPI_Info_get and _get_valuelen, _delete, _get_nkeys,
 * _get_nthkey (every key once, whatever the order), _dup (a copy: changing one leaves the
 * other), _free (MPI_INFO_NULL), MPI_INFO_ENV (read, not written), MPI_Info_create_env; the
 * errors: a key longer than MPI_MAX_INFO_KEY (MPI_ERR_INFO_KEY), a value longer than
 * MPI_MAX_INFO_VAL (MPI_ERR_INFO_VALUE), deleting a key not there (MPI_ERR_INFO_NOKEY), an
 * index past the keys; and the calls that take an info: MPI_Comm_set_info and _get_info,
 * MPI_Comm_dup_with_info, MPI_Comm_split_type, on communicators that still work. */
#include "conformance.h"

static int wrank, wsize;

static int error_class_of(int rc) {
  int cls = -1;
  MPI_Error_class(rc, &cls);
  return cls;
}

/* The value of key in info (flag 0: absent), through MPI-4's MPI_Info_get_string (MPI-3's
 * MPI_Info_get under an MPI-3 library: Open MPI 4.1). */
static int value_of(MPI_Info info, const char* key, char* out, int room) {
  int flag = -1;
#if MPI_VERSION >= 4
  int len = room;
  CHECK_MPI(MPI_Info_get_string(info, key, &len, out, &flag));
#else
  CHECK_MPI(MPI_Info_get(info, key, room - 1, out, &flag));
#endif
  return flag;
}

static void set_get_delete(void) {
  MPI_Info info = MPI_INFO_NULL;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK(info != MPI_INFO_NULL, "MPI_Info_create gave MPI_INFO_NULL");
  int n = -1;
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  CHECK(n == 0, "a new info has %d keys", n);
  CHECK_MPI(MPI_Info_set(info, "alpha", "one"));
  CHECK_MPI(MPI_Info_set(info, "beta", "two words"));
  CHECK_MPI(MPI_Info_set(info, "gamma", "3"));
  CHECK_MPI(MPI_Info_set(info, "alpha", "uno")); /* replaces */
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  CHECK(n == 3, "nkeys %d, expected 3", n);
  /* Each key once among the nth keys. */
  int seen[3] = {0, 0, 0};
  for (int i = 0; i < n && i < 3; ++i) {
    char key[MPI_MAX_INFO_KEY + 1];
    CHECK_MPI(MPI_Info_get_nthkey(info, i, key));
    if (strcmp(key, "alpha") == 0) ++seen[0];
    else if (strcmp(key, "beta") == 0) ++seen[1];
    else if (strcmp(key, "gamma") == 0) ++seen[2];
    else CHECK(0, "nthkey %d is \"%s\"", i, key);
  }
  CHECK(seen[0] == 1 && seen[1] == 1 && seen[2] == 1, "keys seen %d %d %d", seen[0], seen[1],
        seen[2]);
  char value[MPI_MAX_INFO_VAL + 1];
  CHECK(value_of(info, "alpha", value, sizeof value) && strcmp(value, "uno") == 0,
        "alpha = \"%s\", expected \"uno\"", value);
  CHECK(value_of(info, "beta", value, sizeof value) && strcmp(value, "two words") == 0,
        "beta = \"%s\"", value);
  CHECK(!value_of(info, "delta", value, sizeof value), "delta found");
  CHECK(!value_of(info, "Alpha", value, sizeof value), "keys are case sensitive: Alpha found");
  int flag = 0;
#if MPI_VERSION >= 4
  /* get_string's lengths: 0 asks for the length only; a short buffer truncates. */
  int len = 0;
  CHECK_MPI(MPI_Info_get_string(info, "beta", &len, value, &flag));
  CHECK(flag == 1 && len == 10, "beta's length with buflen 0: flag %d, buflen %d (expected 10)",
        flag, len);
  char small[4] = "xxx";
  len = 4;
  CHECK_MPI(MPI_Info_get_string(info, "beta", &len, small, &flag));
  CHECK(flag == 1 && len == 10 && strcmp(small, "two") == 0,
        "beta in 4 bytes: \"%s\", buflen %d", small, len);
#endif
  /* The deprecated forms. */
  int vlen = -1;
  CHECK_MPI(MPI_Info_get_valuelen(info, "gamma", &vlen, &flag));
  CHECK(flag == 1 && vlen == 1, "gamma's valuelen %d (flag %d)", vlen, flag);
  CHECK_MPI(MPI_Info_get_valuelen(info, "delta", &vlen, &flag));
  CHECK(flag == 0, "delta's valuelen flag %d", flag);
  char got[8];
  CHECK_MPI(MPI_Info_get(info, "beta", 3, got, &flag));
  CHECK(flag == 1 && strcmp(got, "two") == 0, "MPI_Info_get(beta, 3): \"%s\"", got);
  /* Delete. */
  CHECK_MPI(MPI_Info_delete(info, "beta"));
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  CHECK(n == 2, "after delete: %d keys", n);
  CHECK(!value_of(info, "beta", value, sizeof value), "beta found after its delete");
  /* Dup: a copy of its own. */
  MPI_Info copy = MPI_INFO_NULL;
  CHECK_MPI(MPI_Info_dup(info, &copy));
  CHECK_MPI(MPI_Info_set(copy, "delta", "4"));
  CHECK_MPI(MPI_Info_delete(copy, "alpha"));
  CHECK(value_of(info, "alpha", value, sizeof value) && !value_of(info, "delta", value, 8),
        "changing the dup changed the original");
  CHECK(value_of(copy, "gamma", value, sizeof value) && strcmp(value, "3") == 0,
        "the dup's gamma: \"%s\"", value);
  CHECK_MPI(MPI_Info_free(&copy));
  CHECK(copy == MPI_INFO_NULL, "MPI_Info_free did not set MPI_INFO_NULL");
  CHECK_MPI(MPI_Info_free(&info));
  CHECK(info == MPI_INFO_NULL, "MPI_Info_free did not set MPI_INFO_NULL");
}

static void errors(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Info info = MPI_INFO_NULL;
  CHECK_MPI(MPI_Info_create(&info));
  char* key = conf_alloc(MPI_MAX_INFO_KEY + 2);
  memset(key, 'k', MPI_MAX_INFO_KEY + 1);
  key[MPI_MAX_INFO_KEY + 1] = '\0';
  int rc = MPI_Info_set(info, key, "v");
  CHECK(error_class_of(rc) == MPI_ERR_INFO_KEY, "a key of %d characters: class %d",
        MPI_MAX_INFO_KEY + 1, error_class_of(rc));
  key[MPI_MAX_INFO_KEY - 1] = '\0'; /* a long key, within the limit however it is read */
  CHECK_MPI(MPI_Info_set(info, key, "v"));
  char* value = conf_alloc(MPI_MAX_INFO_VAL + 2);
  memset(value, 'v', MPI_MAX_INFO_VAL + 1);
  value[MPI_MAX_INFO_VAL + 1] = '\0';
  rc = MPI_Info_set(info, "long", value);
  CHECK(error_class_of(rc) == MPI_ERR_INFO_VALUE, "a value of %d characters: class %d",
        MPI_MAX_INFO_VAL + 1, error_class_of(rc));
  rc = MPI_Info_delete(info, "absent");
  CHECK(error_class_of(rc) == MPI_ERR_INFO_NOKEY, "deleting an absent key: class %d",
        error_class_of(rc));
  char out[MPI_MAX_INFO_KEY + 1];
  rc = MPI_Info_get_nthkey(info, 5, out);
  CHECK(rc != MPI_SUCCESS, "MPI_Info_get_nthkey(5) of an info of 1 key succeeded");
  CHECK_MPI(MPI_Info_free(&info));
  free(key);
  free(value);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

static void environment(int argc, char** argv) {
  int n = -1;
  CHECK_MPI(MPI_Info_get_nkeys(MPI_INFO_ENV, &n));
  CHECK(n >= 0, "MPI_INFO_ENV has %d keys", n);
  for (int i = 0; i < n; ++i) {
    char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
    CHECK_MPI(MPI_Info_get_nthkey(MPI_INFO_ENV, i, key));
    CHECK(value_of(MPI_INFO_ENV, key, value, sizeof value), "MPI_INFO_ENV's key %s has no value",
          key);
  }
  MPI_Info env = MPI_INFO_NULL;
#if MPI_VERSION >= 4
  CHECK_MPI(MPI_Info_create_env(argc, argv, &env));
  CHECK_MPI(MPI_Info_get_nkeys(env, &n));
  CHECK(n >= 0, "MPI_Info_create_env gave %d keys", n);
  CHECK_MPI(MPI_Info_free(&env));
#else
  (void)argc;
  (void)argv;
#endif
  CHECK_MPI(MPI_Info_dup(MPI_INFO_ENV, &env));
  CHECK_MPI(MPI_Info_free(&env));
}

/* A sum over comm, which must have `size` ranks. */
static void works(MPI_Comm comm, int size, const char* what) {
  int n = -1, one = 1, sum = 0;
  CHECK_MPI(MPI_Comm_size(comm, &n));
  CHECK(n == size, "%s: size %d, expected %d", what, n, size);
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm));
  CHECK(sum == size, "%s: a sum of ones gave %d", what, sum);
}

static void communicators(void) {
  MPI_Info hints = MPI_INFO_NULL;
  CHECK_MPI(MPI_Info_create(&hints));
  CHECK_MPI(MPI_Info_set(hints, "mpi_assert_no_any_tag", "false"));
  CHECK_MPI(MPI_Info_set(hints, "vmc_conformance_hint", "kept"));
  MPI_Comm dup = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, hints, &dup));
  works(dup, wsize, "MPI_Comm_dup_with_info");
  MPI_Info used = MPI_INFO_NULL;
  CHECK_MPI(MPI_Comm_get_info(dup, &used));
  CHECK(used != MPI_INFO_NULL, "MPI_Comm_get_info gave MPI_INFO_NULL");
#ifdef VMC_MPI_H
  {
    char value[MPI_MAX_INFO_VAL + 1];
    CHECK(value_of(used, "vmc_conformance_hint", value, sizeof value) &&
              strcmp(value, "kept") == 0,
          "vmc keeps the hints it does not use: got \"%s\"", value);
  }
#endif
  CHECK_MPI(MPI_Info_free(&used));
  CHECK_MPI(MPI_Comm_set_info(dup, hints));
  CHECK_MPI(MPI_Comm_get_info(dup, &used));
  CHECK_MPI(MPI_Info_free(&used));
  MPI_Comm shared = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_split_type(dup, MPI_COMM_TYPE_SHARED, 0, hints, &shared));
  CHECK(shared != MPI_COMM_NULL, "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) gave MPI_COMM_NULL");
  if (shared != MPI_COMM_NULL) {
    int n = 0;
    MPI_Comm_size(shared, &n);
    works(shared, n, "MPI_Comm_split_type");
    CHECK_MPI(MPI_Comm_free(&shared));
  }
  CHECK_MPI(MPI_Info_free(&hints));
  /* The info was freed; the communicator goes on. */
  works(dup, wsize, "MPI_Comm_dup_with_info after MPI_Info_free");
  CHECK_MPI(MPI_Comm_free(&dup));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  set_get_delete();
  errors();
  environment(argc, argv);
  communicators();
  return conf_finish();
}
