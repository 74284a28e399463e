! Free form: ERROR STOP inside nested loops of a module procedure
! (exit status 2, message on stderr), GOTO out of a loop.
! EXPECT: scan 1
module scanner
contains
  subroutine scan(limit)
    integer, intent(in) :: limit
    integer :: i, j
    do i = 1, 10
      do j = 1, 10
        if (i + j > 30) go to 100
        if (i * j == limit) then
          print *, 'limit reached at', i, j
          error stop 2
        end if
      end do
    end do
100 print *, 'not reached'
  end subroutine scan
end module scanner

program errstop
  use scanner
  call scan(42)
end program errstop
