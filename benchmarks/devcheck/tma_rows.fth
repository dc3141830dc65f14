\ The device check's TMA launcher (phase A, "launchers"): a tensor map of A (`\! tmap`), encoded by the
\ launcher with cuTensorMapEncodeTiled for each call's array; one TMA-LOAD of the 4 x 8 box at row 2 into
\ a shared tile, completing on an mbarrier; OUT gets rows 2 to 5 of A. Needs sm_90.
\! kernel tma_rows
\! param A f32[8,8]
\! param OUT f32[8,8]
\! tmap tA A 4,8
\! smem S f32[4,8] 1
\! shared BAR i64[1]
\! grid 1
\! block 32
TID-X 0= IF BAR 1 MBAR-INIT MBAR-FENCE THEN BARRIER
ELECT IF BAR 128 MBAR-ARRIVE-TX  0 S tA 0 2 BAR TMA-LOAD THEN  BAR 0 MBAR-WAIT
TID-X 4 * 0 S + SF@  TID-X 8 / 2 + 8 * TID-X 8 MOD + 4 * OUT + SF!
