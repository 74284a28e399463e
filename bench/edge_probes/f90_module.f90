! bench/edge_probes/f90_module.f90 -- edge probe (Fortran 90, free form):
! the imbalance in a module procedure.  Module `solver` holds an
! allocatable field and the procedures `smooth` and `norm2_local`; rank 2
! smooths 3x as many sweeps as the others (`use mpi`, allocate, array
! sections).  Expected: rank 2 alone, the innermost region `smooth`'s
! sweep loop (line 19).
module solver
  implicit none
  double precision, allocatable :: u(:)
contains
  subroutine setup(n)
    integer, intent(in) :: n
    allocate(u(n))
    u = 1.0d0
  end subroutine setup
  subroutine smooth(nsweep)
    integer, intent(in) :: nsweep
    integer :: k, i
    do k = 1, nsweep
      do i = 2, size(u) - 1
        u(i) = (u(i - 1) + u(i) + u(i + 1)) / 3.0d0 + 1.0d-9
      end do
    end do
  end subroutine smooth
  function norm2_local() result(s)
    double precision :: s
    integer :: i
    s = 0.0d0
    do i = 1, size(u)
      s = s + mod(i, 7) * u(i) * 1.0d-9
    end do
  end function norm2_local
end module solver

program f90mod
  use mpi
  use solver
  implicit none
  integer :: ierr, rank, step, nsw
  double precision :: s, tot
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call setup(300000)
  tot = 0.0d0
  do step = 1, 30
    nsw = 8
    if (rank == 2) nsw = 24
    call smooth(nsw)
    s = norm2_local()
    s = s + sum(u(1:1000)) * 1.0d-12
    call MPI_Allreduce(MPI_IN_PLACE, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    tot = tot + s
  end do
  if (rank == 0) print *, 'checksum: ', tot > 0
  call MPI_Finalize(ierr)
end program f90mod
