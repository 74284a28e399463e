! tests/runtime/rt_fortran08.f90 -- the rt_fortran program through
! `use mpi_f08` (Open MPI's mpi_*_f08_ bindings), most calls without the
! OPTIONAL ierror.  The "comm" region sends and receives exactly 1,264 bytes
! per rank (Sendrecv 1,000 + Allreduce 32 + in-place Allreduce 32 +
! Isend/Irecv 200) in 6 MPI calls; in the "p2p" region even ranks send 100
! doubles (800 bytes) to the next rank, which receives them with
! MPI_STATUS_IGNORE (its bytes still counted) in 1 call each; "bcast" holds
! one MPI_Bcast of 10 integers from rank 0 (40 bytes sent by rank 0, 40
! received by the others).  Prints "check <rank> <value>..." so the test
! can verify MPI_IN_PLACE and the request/status handling.
program rt_fortran08
  use mpi_f08
  implicit none
  integer :: ierr, rank, nprocs, i, left, right, bc(10)
  integer :: sbuf(250), rbuf(250)
  type(MPI_Request) :: req(2)
  type(MPI_Status) :: stats(2)
  double precision :: a(4), b(4), p(100)
  integer, parameter :: id_main = 1, id_comm = 2, id_loop = 3, id_p2p = 4, id_bcast = 5

  call aa_runtime_enter_f(id_main, 'main')
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)

  call aa_runtime_enter_f(id_comm, 'comm')
  sbuf = rank
  call MPI_Sendrecv(sbuf, 250, MPI_INTEGER, right, 1, rbuf, 250, MPI_INTEGER, left, 1, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  a = 1.0d0
  call MPI_Allreduce(a, b, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Allreduce(MPI_IN_PLACE, b, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Irecv(rbuf, 50, MPI_INTEGER, left, 2, MPI_COMM_WORLD, req(1))
  call MPI_Isend(sbuf, 50, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req(2))
  call MPI_Waitall(2, req, stats)
  call aa_runtime_exit_f(id_comm, 'comm')

  call aa_runtime_enter_f(id_p2p, 'p2p')
  p = rank
  if (mod(rank, 2) == 0) then
    call MPI_Send(p, 100, MPI_DOUBLE_PRECISION, rank + 1, 3, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(p, 100, MPI_DOUBLE_PRECISION, rank - 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  end if
  call aa_runtime_exit_f(id_p2p, 'p2p')

  call aa_runtime_enter_f(id_bcast, 'bcast')
  bc = 0
  if (rank == 0) bc = 7
  call MPI_Bcast(bc, 10, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call aa_runtime_exit_f(id_bcast, 'bcast')

  do i = 1, 3
    call aa_runtime_enter_f(id_loop, 'loop@20')
    call aa_runtime_exit_f(id_loop, 'loop@20')
  end do

  write (*, '(A,I0,A,I0,A,I0,A,I0,A,I0,A,I0)') 'check ', rank, ' ', int(b(1)), ' ', rbuf(1), ' ', &
      stats(1)%MPI_SOURCE, ' ', int(p(1)), ' ', bc(10)
  call MPI_Finalize()
  call aa_runtime_exit_f(id_main, 'main')
end program rt_fortran08
