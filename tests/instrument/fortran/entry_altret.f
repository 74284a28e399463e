C     Fixed form: ENTRY points, alternate RETURN, CALL with alternate
C     return labels, RETURN inside a labelled loop, a labelled END.
C     EXPECT: find 3
C     EXPECT: loop@30 3
      PROGRAM ENTRYT
      INTEGER N, IDX
      N = 0
      CALL COUNTR(N)
      CALL BUMP(N)
      CALL BUMP(N)
      WRITE (*, *) 'N =', N
      CALL CHECK(N, *100, *200)
      WRITE (*, *) 'normal return'
      GOTO 300
  100 WRITE (*, *) 'first alternate return'
      GOTO 300
  200 WRITE (*, *) 'second alternate return'
  300 CONTINUE
      CALL FIND(5, IDX)
      WRITE (*, *) 'found', IDX
      CALL FIND(50, IDX)
      WRITE (*, *) 'found', IDX
      CALL FIND(7, IDX)
      WRITE (*, *) 'found', IDX
      END

      SUBROUTINE FIND(V, IDX)
      INTEGER V, IDX, I
      IDX = -1
      DO 10 I = 1, 20
         IF (I .EQ. V) THEN
            IDX = I
            RETURN
         END IF
   10 CONTINUE
      IF (IDX .LT. 0) GOTO 99
      IDX = 0
   99 END

      SUBROUTINE COUNTR(N)
      INTEGER N, I
      DO 5 I = 1, 3
         N = N + 1
    5 CONTINUE
      RETURN
      ENTRY BUMP(N)
      N = N + 100
      END

      SUBROUTINE CHECK(N, *, *)
      INTEGER N
      IF (N .GT. 100) RETURN 2
      RETURN 1
      END
