\ filetest.fth's REQUIRED/REQUIRE/INCLUDE tests load this file by name: each load adds one,
\ so the count shows how often it was loaded (written for tileforth's tests/standard).
1+
