/* vmc's table of the MPI-1 C functions that MPI-3.0 removed (MPI-4.1's chapter 17, "Removed
 * Interfaces"): the same shape and uses as vmc_mpi_functions.h (read its opening comment),
 * kept apart so that that table stays MPI-4.1's. Not a header to include alone.
 *
 * Why declare what the standard removed: older programs call these functions (MPICH's older
 * tests call MPI_Errhandler_set), and MPICH and Open MPI still offer them. Without a
 * declaration here a program's call would link by its plain name and, in `vmc mpirun`, reach
 * any other MPI library loaded in vmc's process; declared, it reaches libvmc_mpi through its
 * vmc_ link name like every other MPI function. The ones that are another name for a function
 * vmc implements are implemented as that function: MPI_Errhandler_create, _get and _set are
 * MPI_Comm_create_errhandler, _get_errhandler and _set_errhandler; MPI_Address is
 * MPI_Get_address; MPI_Type_extent, _lb and _ub are MPI_Type_get_extent's answers (on MPI_LB
 * and MPI_UB, mpi.h, too); MPI_Type_hvector, _hindexed and _struct are
 * MPI_Type_create_hvector, _hindexed and _struct (MPI_Type_struct takes the MPI_LB and MPI_UB
 * markers, as MPI_Type_create_struct does in vmc).
 *
 * Order: by name in byte order. How many: 10. */

/* 17. Removed interfaces (10) */
VMC_MPI_IMPLEMENTED(int, MPI_Address, (const void* location, MPI_Aint* address), (location, address), MPI_COMM_NULL)
VMC_MPI_IMPLEMENTED(int, MPI_Errhandler_create, (MPI_Handler_function* function, MPI_Errhandler* errhandler), (function, errhandler), MPI_COMM_NULL)
VMC_MPI_IMPLEMENTED(int, MPI_Errhandler_get, (MPI_Comm comm, MPI_Errhandler* errhandler), (comm, errhandler), comm)
VMC_MPI_IMPLEMENTED(int, MPI_Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler), (comm, errhandler), comm)
VMC_MPI_IMPLEMENTED(int, MPI_Type_extent, (MPI_Datatype datatype, MPI_Aint* extent), (datatype, extent), MPI_COMM_NULL)
VMC_MPI_IMPLEMENTED(int, MPI_Type_hindexed, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype* newtype), (count, array_of_blocklengths, array_of_displacements, oldtype, newtype), MPI_COMM_NULL)
VMC_MPI_IMPLEMENTED(int, MPI_Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype), (count, blocklength, stride, oldtype, newtype), MPI_COMM_NULL)
VMC_MPI_IMPLEMENTED(int, MPI_Type_lb, (MPI_Datatype datatype, MPI_Aint* displacement), (datatype, displacement), MPI_COMM_NULL)
VMC_MPI_IMPLEMENTED(int, MPI_Type_struct, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype* newtype), (count, array_of_blocklengths, array_of_displacements, array_of_types, newtype), MPI_COMM_NULL)
VMC_MPI_IMPLEMENTED(int, MPI_Type_ub, (MPI_Datatype datatype, MPI_Aint* displacement), (datatype, displacement), MPI_COMM_NULL)
