! tests/runtime/rt_fortran.f90 -- a Fortran MPI program (mpif.h) using the
! runtime's Fortran entry points and the Fortran MPI bindings of
! libautoanalyzer-mpi.  The "comm" region sends and receives exactly 1,264
! bytes per rank (Sendrecv 1,000 + Allreduce 32 + in-place Allreduce 32 +
! Isend/Irecv 200) in 6 MPI calls; the "loop@20" region is entered 3 times.
! Prints "check <rank> <value>" so the test can verify MPI_IN_PLACE and the
! request/status conversions gave the right results.
program rt_fortran
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nprocs, i, left, right
  integer :: sbuf(250), rbuf(250), req(2), stats(MPI_STATUS_SIZE, 2)
  double precision :: a(4), b(4)
  integer, parameter :: id_main = 1, id_comm = 2, id_loop = 3

  call aa_runtime_enter_f(id_main, 'main')
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)

  call aa_runtime_enter_f(id_comm, 'comm')
  sbuf = rank
  call MPI_Sendrecv(sbuf, 250, MPI_INTEGER, right, 1, rbuf, 250, MPI_INTEGER, left, 1, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  a = 1.0d0
  call MPI_Allreduce(a, b, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, b, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Irecv(rbuf, 50, MPI_INTEGER, left, 2, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Isend(sbuf, 50, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Waitall(2, req, stats, ierr)
  call aa_runtime_exit_f(id_comm, 'comm')

  do i = 1, 3
    call aa_runtime_enter_f(id_loop, 'loop@20')
    call aa_runtime_exit_f(id_loop, 'loop@20')
  end do

  write (*, '(A,I0,A,I0,A,I0,A,I0)') 'check ', rank, ' ', int(b(1)), ' ', rbuf(1), ' ', &
      stats(MPI_SOURCE, 1)
  call MPI_Finalize(ierr)
  call aa_runtime_exit_f(id_main, 'main')
end program rt_fortran
