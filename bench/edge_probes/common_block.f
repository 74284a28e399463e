C     bench/edge_probes/common_block.f -- edge probe (Fortran 77, fixed
C     form, INCLUDE 'mpif.h', a COMMON block, labelled DO loops): rank 1
C     relaxes 4x as many sweeps as the others in RELAX; LIGHT is the same
C     everywhere.  Expected: rank 1 alone, the innermost region RELAX's
C     sweep loop (label 20, line 34).
      PROGRAM F77IMB
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NP, STEP, N
      DOUBLE PRECISION S, TOT
      COMMON /WORK/ A(200000)
      DOUBLE PRECISION A
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      TOT = 0.0D0
      DO 10 STEP = 1, 30
         N = 10
         IF (RANK .EQ. 1) N = 40
         CALL RELAX(N, S)
         CALL LIGHT(S)
         CALL MPI_ALLREDUCE(MPI_IN_PLACE, S, 1, MPI_DOUBLE_PRECISION,
     &        MPI_SUM, MPI_COMM_WORLD, IERR)
         TOT = TOT + S
   10 CONTINUE
      IF (RANK .EQ. 0) PRINT *, 'checksum: ', TOT .GT. 0
      CALL MPI_FINALIZE(IERR)
      END
      SUBROUTINE RELAX(N, S)
      INTEGER N, K, I
      DOUBLE PRECISION S
      COMMON /WORK/ A(200000)
      DOUBLE PRECISION A
      S = 0.0D0
      DO 20 K = 1, N
         DO 30 I = 2, 199999
            A(I) = (A(I-1) + A(I) + A(I+1)) / 3.0D0 + 1.0D-9
            S = S + A(I)
   30    CONTINUE
   20 CONTINUE
      RETURN
      END
      SUBROUTINE LIGHT(S)
      DOUBLE PRECISION S
      INTEGER I
      DO 40 I = 1, 2000000
         S = S + MOD(I, 7) * 1.0D-9
   40 CONTINUE
      RETURN
      END
