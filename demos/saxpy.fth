\! kernel saxpy
\! param X f32[N]
\! param Y f32[N]
\! param A f32
\! param N i32
\ SAXPY, one element per thread: Y = A*X + Y.
\ Compile it:  tileforth compile demos/saxpy.fth -o saxpy.ptx --arch sm_80
\ Run it:      tileforth run demos/saxpy.fth --param X=1,2,3,4 --param Y=10,20,30,40
\                --param A=2 --grid 1,1,1 --block 32,1,1 --output-param Y
: y[i]  ( -- addr )  GLOBAL-ID 4 * Y + ;
GLOBAL-ID N < IF
  GLOBAL-ID 4 * X + F@  A F*  y[i] F@ F+  y[i] F!
THEN
