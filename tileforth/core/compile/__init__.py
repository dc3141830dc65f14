"""The program to LLVM IR for one thread: the code generator, the registry of
primitives, tile operations, the backend interface and kernel-module assembly,
and the records shared with the backends. Imports only the front and errors."""
