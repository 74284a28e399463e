! Free form MPI (use mpi): call sites of MPI routines become regions,
! a one-line IF holding an MPI call is left alone with a diagnostic.
! MPI: 2
! EXPECT: MPI_Allreduce@16 1
! EXPECT: MPI_Barrier@17 1
! WARN: call not instrumented: the call is the action of a one-line IF
program mpitest
  use mpi
  implicit none
  integer :: ierr, rank, nproc, i
  real(8) :: x, y
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  x = rank + 1
  call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) call MPI_Barrier(MPI_COMM_SELF, ierr)
  do i = 1, 2
    call MPI_Bcast(y, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) print *, 'sum =', y, 'procs =', nproc
  call MPI_Finalize(ierr)
end program mpitest
