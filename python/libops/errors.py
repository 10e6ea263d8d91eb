"""libops.Error and its subclasses, one per status the engine returns
(include/libops/c_types.h's ops_status_t); the message is the engine's,
naming the op or node, the shapes and the dtypes."""


class Error(RuntimeError):
    """A libops call failed; ``status`` is the engine's status name."""

    status = "error"


class InvalidArgumentError(Error, ValueError):
    status = "invalid argument"


class NullPointerError(Error, ValueError):
    status = "null pointer"


class UnknownOpError(Error, KeyError):
    status = "unknown op"

    def __str__(self):  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class ShapeError(Error, ValueError):
    status = "shape"


class DtypeError(Error, TypeError):
    status = "dtype"


class OutOfMemoryError(Error, MemoryError):
    status = "out of memory"


class NotImplementedByLibopsError(Error, NotImplementedError):
    status = "not implemented"


class IOError_(Error, OSError):
    status = "io"


class InvalidGraphError(Error, ValueError):
    status = "invalid graph"


class DeviceError(Error):
    status = "device"


class InternalError(Error):
    status = "internal"


class CancelledError(Error):
    status = "cancelled"


class LimitError(Error):
    status = "limit"


# ops_status_t value -> class (the numbers are ABI: c_types.h).
BY_STATUS = {1: InvalidArgumentError, 2: NullPointerError, 3: UnknownOpError, 4: ShapeError, 5: DtypeError,
             6: OutOfMemoryError, 7: NotImplementedByLibopsError, 8: IOError_, 9: InvalidGraphError, 10: DeviceError,
             11: InternalError, 12: CancelledError, 13: LimitError}


def raise_status(code, message):
    """Called by the native module: raises the class of `code`."""
    raise BY_STATUS.get(code, Error)(message)
