C     samples/fsolver.f -- a fixed-form Fortran 77 MPI sample for
C     AutoAnalyzer: a Jacobi-style relaxation of a 1-D field, the state
C     in COMMON blocks, labelled DO ... CONTINUE loops, an INCLUDE of
C     mpif.h, as production F77 codes are written.
C
C     Every rank owns NCELL cells.  Each iteration: SWEEP relaxes the
C     cells (NSUB sub-sweeps per cell), EXCHG swaps the boundary cells
C     with the neighbours and sums the residual with MPI_ALLREDUCE.
C
C     THE BOTTLENECK (a dissimilarity bottleneck, load imbalance):
C       subroutine SWEEP, its labelled loop DO 20 (the line marked
C       "IMBALANCE HERE"): ranks with MOD(RANK, 4) .EQ. 3 own a refined
C       part of the domain and run NREF (6) times as many sub-sweeps per
C       cell, so they spend about 6 times as long in that loop while the
C       other ranks wait in the MPI_ALLREDUCE of EXCHG.
C
C     BOTTLENECK-AT: sweep() line 70 ("IMBALANCE HERE")
C
C     Usage: mpirun -np 4 fsolver [large]
C     Output: the iteration count and a checksum independent of timing.
      PROGRAM FSOLVE
      INCLUDE 'mpif.h'
      INTEGER NCMAX
      PARAMETER (NCMAX = 40000)
      DOUBLE PRECISION U(0:NCMAX+1), V(0:NCMAX+1), RES
      INTEGER NCELL, NSUB, RANK, NPROC, ITER, NITER
      COMMON /FIELD/ U, V
      COMMON /SIZES/ NCELL, NSUB, RANK, NPROC
      INTEGER IERR, I
      CHARACTER*16 ARG
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROC, IERR)
      NCELL = 12000
      NITER = 40
      IF (COMMAND_ARGUMENT_COUNT() .GE. 1) THEN
         CALL GET_COMMAND_ARGUMENT(1, ARG)
         IF (ARG .EQ. 'large') NCELL = 36000
      END IF
      NSUB = 32
      IF (MOD(RANK, 4) .EQ. 3) NSUB = 32 * 6
      DO 10 I = 0, NCELL + 1
         U(I) = DBLE(MOD(I + RANK * 7, 13)) / 13.0D0
         V(I) = 0.0D0
   10 CONTINUE
      DO 100 ITER = 1, NITER
         CALL SWEEP
         CALL EXCHG(RES)
  100 CONTINUE
      IF (RANK .EQ. 0) THEN
         WRITE (*, '(A, I4)') 'iterations: ', NITER
         WRITE (*, '(A, I12)') 'checksum: ', INT(RES * 1000.0D0)
      END IF
      CALL MPI_FINALIZE(IERR)
      END

C     Relaxation sweeps over the rank's cells.
      SUBROUTINE SWEEP
      INTEGER NCMAX
      PARAMETER (NCMAX = 40000)
      DOUBLE PRECISION U(0:NCMAX+1), V(0:NCMAX+1)
      INTEGER NCELL, NSUB, RANK, NPROC
      COMMON /FIELD/ U, V
      COMMON /SIZES/ NCELL, NSUB, RANK, NPROC
      INTEGER I, S
      DOUBLE PRECISION W
      DO 20 I = 1, NCELL
         W = U(I)
         DO 30 S = 1, NSUB
C           IMBALANCE HERE: NSUB is 6 times larger on the refined ranks
            W = 0.5D0 * W + 0.25D0 * (U(I-1) + U(I+1)) * (1.0D0
     &          + 1.0D-9 * DBLE(S))
   30    CONTINUE
         V(I) = W
   20 CONTINUE
      DO 40 I = 1, NCELL
         U(I) = V(I)
   40 CONTINUE
      RETURN
      END

C     Boundary exchange with the neighbours and the global residual.
      SUBROUTINE EXCHG(RES)
      INCLUDE 'mpif.h'
      DOUBLE PRECISION RES
      INTEGER NCMAX
      PARAMETER (NCMAX = 40000)
      DOUBLE PRECISION U(0:NCMAX+1), V(0:NCMAX+1), LOC
      INTEGER NCELL, NSUB, RANK, NPROC
      COMMON /FIELD/ U, V
      COMMON /SIZES/ NCELL, NSUB, RANK, NPROC
      INTEGER LEFT, RIGHT, IERR, I
      INTEGER STAT(MPI_STATUS_SIZE)
      LEFT = MOD(RANK - 1 + NPROC, NPROC)
      RIGHT = MOD(RANK + 1, NPROC)
      CALL MPI_SENDRECV(U(NCELL), 1, MPI_DOUBLE_PRECISION, RIGHT, 1,
     &                  U(0), 1, MPI_DOUBLE_PRECISION, LEFT, 1,
     &                  MPI_COMM_WORLD, STAT, IERR)
      CALL MPI_SENDRECV(U(1), 1, MPI_DOUBLE_PRECISION, LEFT, 2,
     &                  U(NCELL+1), 1, MPI_DOUBLE_PRECISION, RIGHT, 2,
     &                  MPI_COMM_WORLD, STAT, IERR)
      LOC = 0.0D0
      DO 50 I = 1, NCELL
         LOC = LOC + U(I)
   50 CONTINUE
      CALL MPI_ALLREDUCE(LOC, RES, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      END
