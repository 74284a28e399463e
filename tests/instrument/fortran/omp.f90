! Free form with OpenMP (-fopenmp): loops under !$omp directives are left
! alone (a probe line would separate the directive from its loop); the
! procedures and the other loops are instrumented; a procedure whose first
! executable construct is a directive gets its enter line before it.
! FLAGS: -fopenmp
! EXPECT: total 1
! EXPECT: loop@24 1
! EXPECT: fill 1
program omp
  implicit none
  print '(f14.1)', total(1000)
  call fill(10)
contains
  real(8) function total(n)
    integer, intent(in) :: n
    integer :: i, j
    real(8) :: a(n)
    total = 0
    !$omp parallel do
    do i = 1, n
      a(i) = i
    end do
    !$omp end parallel do
    do j = 1, 2
      !$omp parallel do reduction(+:total)
      do i = 1, n
        total = total + a(i)
      end do
      !$omp end parallel do
    end do
  end function total
  subroutine fill(n)
    integer, intent(in) :: n
    integer :: i, b(n)
    !$omp parallel do
    do i = 1, n
      b(i) = 2 * i
    end do
    !$omp end parallel do
    print '(i6)', sum(b)
  end subroutine fill
end program omp
