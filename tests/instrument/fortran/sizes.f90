! Size rules (docs/instrument.md, "Small regions"): by default tiny leaf
! procedures (at most 12 executable statements, no loop but tiny ones, no
! CALL, I/O or reference to a procedure other than cheap intrinsics and
! tiny procedures of this file) and tiny loops (integer-literal bounds, at
! most 8 trips, straight-line body) are left out, listed in the region map
! with their reason; arrays from DIMENSION, COMMON and type declarations
! are no calls.  --mode all instruments them all (checked like every
! torture file).
! EXPECT: axpy3 1000
! EXPECT: dist2 1001
! DEFMAP: dist2 tiny leaf function
! DEFMAP: axpy3 tiny leaf function
! DEFMAP: twice tiny leaf function
! DEFMAP: fill3 tiny leaf function
! DEFMAP: wsum tiny leaf function
! DEFMAP: smooth instrumented
! DEFMAP: report instrumented
! DEFMAP: heavy instrumented
! DEFMAP: long13 instrumented
! DEFMAP: loop@100 tiny loop (constant trip count, straight-line body)
! DEFMAP: loop@84 instrumented
! DEFMAP: loop@32 instrumented
! DEFMAP: loop@48 in a tiny leaf function
program sizes
  implicit none
  double precision :: x(3), y(3), a(100), s
  double precision, external :: dist2, twice, heavy, wsum
  integer :: i
  x = 1.0d0
  y = 2.0d0
  s = 0.0d0
  do i = 1, 1000
    call axpy3(0.5d0, x, y)
    s = s + dist2(x, y)
  end do
  s = s + twice(x, y)
  call fill3(x)
  a = 1.0d0
  call smooth(a, 100)
  call long13(s)
  call report(s + heavy(a, 100) + a(50) + wsum())
end program sizes

subroutine axpy3(alpha, x, y)
  double precision, intent(in) :: alpha, x(3)
  double precision, intent(inout) :: y(3)
  integer :: i
  do i = 1, 3
    y(i) = y(i) + alpha * x(i)
  end do
end subroutine axpy3

double precision function dist2(x, y)
  double precision, dimension(3) :: x, y
  dist2 = sqrt((x(1) - y(1))**2 + (x(2) - y(2))**2 + (x(3) - y(3))**2)
end function dist2

double precision function twice(x, y)
  double precision :: x, y, dist2
  dimension x(3), y(3)
  twice = 2.0d0 * dist2(x, y)
end function twice

subroutine fill3(x)
  double precision :: x(3)
  integer :: i
  do i = 3, 1, -1
    x(i) = dble(i) / 4.0d0
  end do
end subroutine fill3

double precision function wsum()
  double precision :: w
  common /blk/ w(3)
  w(1) = 1.0d0
  w(2) = 2.0d0
  w(3) = 3.0d0
  wsum = w(1) + w(2) + w(3)
end function wsum

subroutine smooth(a, n)
  integer :: n, i, k
  double precision :: a(n)
  do i = 2, n - 1
    do k = 1, 2
      a(i) = 0.5d0 * (a(i - 1) + a(i + 1)) + 0.0d0 * k
    end do
  end do
end subroutine smooth

double precision function heavy(a, n)
  integer :: n
  double precision :: a(n)
  heavy = sum(a(1:n))
end function heavy

subroutine report(v)
  double precision :: v, w(4)
  integer :: j
  do j = 1, 4
    w(j) = v * j
  end do
  write (*, '(4F14.3)') w
end subroutine report

subroutine long13(s)
  double precision :: s, t
  t = s
  t = t + 1
  t = t + 2
  t = t + 3
  t = t + 4
  t = t + 5
  t = t + 6
  t = t + 7
  t = t + 8
  t = t + 9
  t = t + 10
  t = t + 11
  s = t - 66
end subroutine long13
