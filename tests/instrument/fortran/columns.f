C     Fixed form: a long routine name (the probe line needs a
C     continuation), statements reaching column 72, sequence numbers
C     in columns 73-80, tab-free continuation markers of several kinds.
C     EXPECT: verylongsubroutinenamefortesting 2
      PROGRAM COLS
      DOUBLE PRECISION X
      X = 1.0D0
      CALL VERYLONGSUBROUTINENAMEFORTESTING(X)
      CALL VERYLONGSUBROUTINENAMEFORTESTING(X)
      WRITE (*, '(F10.3)') X
      END
      SUBROUTINE VERYLONGSUBROUTINENAMEFORTESTING(X)
      DOUBLE PRECISION X                                                00000100
      INTEGER I
      DO 10 I = 1, 4                                                    00000200
         X = X + 1.0D0 + 2.0D0 + 3.0D0 + 4.0D0 + 5.0D0 + 6.0D0 + 7.0D0 +00000300
     1       8.0D0                                                      00000400
   10 CONTINUE                                                          00000500
      IF (X .GT. 1000.0D0) X = X - 1.0D0 + 0.0D0 + 0.0D0 + 0.0D0 + 0.0D000000600
      IF (X .GT. 10.0D0) RETURN                                         00000700
      X = 0.0D0
      END
