C     Fixed form: labelled DO ... CONTINUE, shared terminal labels,
C     GOTO out of a loop, computed GOTO and arithmetic IF inside loops,
C     COMMON, continuation lines in column 6, statements near column 72.
C     EXPECT: labelled 1
C     EXPECT: relax 3
C     EXPECT: loop@21 1
C     EXPECT: loop@36 1
      PROGRAM LABELLED
      INTEGER I, J, K
      DOUBLE PRECISION A(10,10), S
      COMMON /GRID/ A, S
      S = 0.0D0
      DO 20 I = 1, 10
      DO 20 J = 1, 10
         A(I,J) = DBLE(I + J)
   20 CONTINUE
      DO 30 K = 1, 3
         CALL RELAX(K)
   30 CONTINUE
      WRITE (*, '(A, F12.3)') 'S = ', S
      DO 40 I = 1, 10
         IF (A(I,1) .GT. 5.0D0) GOTO 50
         S = S + A(I,1)
   40 CONTINUE
   50 WRITE (*, '(A, F12.3)') 'after goto S = ', S
      K = 0
      DO 60 I = 1, 6
         GOTO (51, 52, 53), MOD(I, 3) + 1
   51    K = K + 1
         GOTO 60
   52    K = K + 10
         GOTO 60
   53    K = K + 100
   60 CONTINUE
      WRITE (*, *) 'computed goto K =', K
      DO 70 I = -2, 2
         IF (I) 61, 62, 63
   61    K = K - 1
         GOTO 70
   62    K = K * 2
         GOTO 70
   63    K = K + 1
   70 CONTINUE
      WRITE (*, *) 'arithmetic if K =', K
      END

      SUBROUTINE RELAX(N)
      INTEGER N, I, J
      DOUBLE PRECISION A(10,10), S
      COMMON /GRID/ A, S
      DO 10 I = 2, 9
         DO 10 J = 2, 9
            A(I,J) = 0.25D0 * (A(I-1,J) + A(I+1,J) + A(I,J-1) + A(I,J+1)
     &               ) + DBLE(N) * 0.0D0 + 0.0D0 * A(I,J) * 1.0D0  + 0.0
   10 S = S + A(I,J)
      IF (N .EQ. 2) RETURN
      S = S + 1.0D0
      END
