C     Fixed form: STOP with a code inside nested loops (exit status 3).
C     EXPECT: stopper 1
      PROGRAM STOPT
      CALL STOPPER
      END
      SUBROUTINE STOPPER
      INTEGER I, J
      DO 10 I = 1, 5
         DO 20 J = 1, 5
            IF (I * J .EQ. 12) THEN
               WRITE (*, *) 'stopping at', I, J
               STOP 3
            END IF
   20    CONTINUE
   10 CONTINUE
      END
