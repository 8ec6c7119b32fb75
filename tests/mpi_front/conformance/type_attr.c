/* Attributes on datatypes (MPI-4.1 section 7.7.4): MPI_Type_create_keyval, _free_keyval,
 * _set_attr, _get_attr and _delete_attr, on a derived and on a predefined datatype. The copy
 * callback runs at MPI_Type_dup (its flag decides whether the new type gets the attribute,
 * with the value it returns); the delete callback runs when an attribute is replaced,
 * deleted, or its datatype freed, given the datatype, the keyval, the value and the extra
 * state; MPI_TYPE_NULL_COPY_FN and MPI_TYPE_DUP_FN; a keyval freed while its attributes live
 * keeps their callbacks; a copy callback that fails fails MPI_Type_dup. */
#include "conformance.h"

static int deleted;        /* delete callbacks run */
static int last_deleted;   /* the value the last one was given */
static MPI_Datatype last_type;
static int extra;          /* the extra state every callback must be given */

static int copy_plus_one(MPI_Datatype oldtype, int keyval, void* extra_state, void* in,
                         void* out, int* flag) {
  (void)oldtype;
  (void)keyval;
  CHECK(extra_state == &extra, "the copy callback was not given its extra state");
  *(void**)out = (void*)((intptr_t)in + 1);
  *flag = 1;
  return MPI_SUCCESS;
}

static int copy_fails(MPI_Datatype oldtype, int keyval, void* extra_state, void* in, void* out,
                      int* flag) {
  (void)oldtype, (void)keyval, (void)extra_state, (void)in, (void)out;
  *flag = 0;
  return MPI_ERR_OTHER;
}

static int count_delete(MPI_Datatype type, int keyval, void* value, void* extra_state) {
  (void)keyval;
  CHECK(extra_state == &extra, "the delete callback was not given its extra state");
  ++deleted;
  last_deleted = (int)(intptr_t)value;
  last_type = type;
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int key = MPI_KEYVAL_INVALID, flag = -1;
  void* got = NULL;
  CHECK_MPI(MPI_Type_create_keyval(copy_plus_one, count_delete, &key, &extra));

  MPI_Datatype pair;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
  CHECK_MPI(MPI_Type_commit(&pair));
  CHECK_MPI(MPI_Type_get_attr(pair, key, &got, &flag));
  CHECK(flag == 0, "an attribute never set is found (flag %d)", flag);
  CHECK_MPI(MPI_Type_set_attr(pair, key, (void*)(intptr_t)10));
  CHECK_MPI(MPI_Type_get_attr(pair, key, &got, &flag));
  CHECK(flag == 1 && (intptr_t)got == 10, "MPI_Type_get_attr: flag %d, value %d", flag,
        (int)(intptr_t)got);

  /* Replacing a value deletes the old one. */
  CHECK_MPI(MPI_Type_set_attr(pair, key, (void*)(intptr_t)20));
  CHECK(deleted == 1 && last_deleted == 10 && last_type == pair,
        "replacing: %d delete callbacks, the last given %d", deleted, last_deleted);

  /* MPI_Type_dup copies it through the callback: 20 + 1. */
  MPI_Datatype twin;
  CHECK_MPI(MPI_Type_dup(pair, &twin));
  CHECK_MPI(MPI_Type_get_attr(twin, key, &got, &flag));
  CHECK(flag == 1 && (intptr_t)got == 21, "the dup's attribute: flag %d, value %d", flag,
        (int)(intptr_t)got);

  /* Freeing the dup runs its delete callback with its value; the original keeps its own. */
  const MPI_Datatype twin_handle = twin;
  CHECK_MPI(MPI_Type_free(&twin));
  CHECK(deleted == 2 && last_deleted == 21 && last_type == twin_handle,
        "freeing the dup: %d delete callbacks, the last given %d", deleted, last_deleted);
  CHECK_MPI(MPI_Type_get_attr(pair, key, &got, &flag));
  CHECK(flag == 1 && (intptr_t)got == 20, "the original's attribute: flag %d, value %d", flag,
        (int)(intptr_t)got);

  /* MPI_Type_delete_attr runs it; the attribute is gone. */
  CHECK_MPI(MPI_Type_delete_attr(pair, key));
  CHECK(deleted == 3 && last_deleted == 20, "delete_attr: %d delete callbacks, last given %d",
        deleted, last_deleted);
  CHECK_MPI(MPI_Type_get_attr(pair, key, &got, &flag));
  CHECK(flag == 0, "a deleted attribute is found");

  /* On a predefined datatype, and with the predefined copy functions. */
  int never = MPI_KEYVAL_INVALID, same = MPI_KEYVAL_INVALID;
  CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &never, NULL));
  CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &same, NULL));
  CHECK_MPI(MPI_Type_set_attr(MPI_INT, never, (void*)(intptr_t)5));
  CHECK_MPI(MPI_Type_set_attr(MPI_INT, same, (void*)(intptr_t)6));
  CHECK_MPI(MPI_Type_get_attr(MPI_INT, never, &got, &flag));
  CHECK(flag == 1 && (intptr_t)got == 5, "MPI_INT's attribute: flag %d", flag);
  CHECK_MPI(MPI_Type_dup(MPI_INT, &twin));
  CHECK_MPI(MPI_Type_get_attr(twin, never, &got, &flag));
  CHECK(flag == 0, "MPI_TYPE_NULL_COPY_FN copied the attribute");
  CHECK_MPI(MPI_Type_get_attr(twin, same, &got, &flag));
  CHECK(flag == 1 && (intptr_t)got == 6, "MPI_TYPE_DUP_FN: flag %d, value %d", flag,
        (int)(intptr_t)got);
  CHECK_MPI(MPI_Type_free(&twin));
  CHECK_MPI(MPI_Type_delete_attr(MPI_INT, never));
  CHECK_MPI(MPI_Type_delete_attr(MPI_INT, same));
  CHECK_MPI(MPI_Type_free_keyval(&never));
  CHECK_MPI(MPI_Type_free_keyval(&same));

  /* A keyval freed while an attribute lives: the attribute keeps its delete callback. */
  CHECK_MPI(MPI_Type_set_attr(pair, key, (void*)(intptr_t)30));
  CHECK_MPI(MPI_Type_free_keyval(&key));
  CHECK(key == MPI_KEYVAL_INVALID, "MPI_Type_free_keyval left the keyval %d", key);

  /* A copy callback that fails fails MPI_Type_dup. */
  int failing = MPI_KEYVAL_INVALID;
  CHECK_MPI(MPI_Type_create_keyval(copy_fails, MPI_TYPE_NULL_DELETE_FN, &failing, NULL));
  CHECK_MPI(MPI_Type_set_attr(pair, failing, NULL));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  const int rc = MPI_Type_dup(pair, &twin);
  CHECK(rc != MPI_SUCCESS, "MPI_Type_dup succeeded though a copy callback failed");
  /* A communicator's keyval is not a datatype's. */
  int comm_key = MPI_KEYVAL_INVALID;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &comm_key,
                                   NULL));
  const int wrong = MPI_Type_set_attr(pair, comm_key, NULL);
  CHECK(wrong != MPI_SUCCESS, "a communicator's keyval set an attribute of a datatype");
#ifdef VMC_MPI_H
  int cls = -1;
  MPI_Error_class(wrong, &cls);
  CHECK(cls == MPI_ERR_KEYVAL, "a communicator's keyval on a datatype: class %d", cls);
#endif
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK_MPI(MPI_Comm_free_keyval(&comm_key));
  CHECK_MPI(MPI_Type_delete_attr(pair, failing));
  CHECK_MPI(MPI_Type_free_keyval(&failing));

  const int before = deleted;
  CHECK_MPI(MPI_Type_free(&pair));
  CHECK(deleted == before + 1 && last_deleted == 30,
        "freeing the type after its keyval: %d delete callbacks, the last given %d",
        deleted - before, last_deleted);
  return conf_finish();
}
