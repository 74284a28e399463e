! Free form: a module with contained procedures, an internal procedure,
! PURE and ELEMENTAL functions (left alone), DO CONCURRENT, named EXIT and
! CYCLE, DO WHILE, an endless DO with EXIT, BLOCK with EXIT from it,
! SELECT CASE, a one-line IF with RETURN, a labelled END DO.
! EXPECT: smooth 2
! EXPECT: search 3
! EXPECT: loop@34 2
! EXPECT: loop@35 21
module field
  implicit none
  integer, parameter :: n = 16
  real(8) :: u(n)
contains
  subroutine smooth(steps)
    integer, intent(in) :: steps
    integer :: s, i
    do s = 1, steps
      do concurrent (i = 2:n-1)
        u(i) = 0.5d0 * u(i) + 0.25d0 * (u(i-1) + u(i+1))
      end do
    end do
    call report()
  contains
    subroutine report()
      print '(a, f12.6)', 'sum = ', sum(u)
    end subroutine report
  end subroutine smooth

  integer function search(v) result(idx)
    real(8), intent(in) :: v
    integer :: i, j
    idx = -1
    if (v < 0) return
    outer: do i = 1, n
      inner: do j = 1, 2
        if (j == 2) cycle outer
        if (u(i) >= v) then
          idx = i
          exit outer
        end if
      end do inner
    end do outer
  end function search

  pure real(8) function twice(x)
    real(8), intent(in) :: x
    twice = 2 * x
  end function twice

  elemental real(8) function half(x)
    real(8), intent(in) :: x
    half = x / 2
  end function half
end module field

program modules
  use field
  implicit none
  integer :: k, m
  do k = 1, n
    u(k) = real(k, 8)
  end do
  call smooth(3)
  print *, search(5.0d0), search(-1.0d0), search(1000.0d0)
  k = 0
  do while (k < 10)
    k = k + 3
  end do
  do
    k = k - 1
    if (k < 5) exit
  end do
  named: block
    do m = 1, 10
      if (m == 4) exit named
      k = k + m
    end do
    k = -1
  end block named
  select case (k)
  case (1:20)
    print *, 'k in range', k
  case default
    print *, 'k out of range', k
  end select
  do 10 m = 1, 3
    k = k + twice(1.0d0 * m) + half(2.0d0)
10 end do
  print *, 'k =', k
  call smooth(1)
end program modules
