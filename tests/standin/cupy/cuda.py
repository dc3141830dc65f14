"""cupy.cuda of the stand-in: Device (one, id 0), streams (the null stream, ExternalStream), errors."""
from __future__ import annotations

import threading

COMPUTE_CAPABILITY = (9, 0)
_tls = threading.local()


class CUDADriverError(RuntimeError):
    pass


class Device:
    def __init__(self, device=None) -> None:
        self.id = 0 if device is None else int(device)

    def use_check(self) -> None:
        if self.id != 0:
            raise CUDADriverError("CUDA_ERROR_INVALID_DEVICE: invalid device ordinal")

    def synchronize(self) -> None:
        self.use_check()

    @property
    def compute_capability(self) -> str:
        return "".join(map(str, COMPUTE_CAPABILITY))


class Stream:
    def __init__(self, ptr: int = 0) -> None:
        self.ptr = int(ptr)

    def __enter__(self) -> "Stream":
        _stack().append(self)
        return self

    def __exit__(self, *exc) -> None:
        _stack().pop()

    def synchronize(self) -> None:
        pass


class ExternalStream(Stream):
    pass


def _stack() -> list[Stream]:
    if not hasattr(_tls, "streams"):
        _tls.streams = []
    return _tls.streams


def get_current_stream() -> Stream:
    st = _stack()
    return st[-1] if st else Stream(0)
