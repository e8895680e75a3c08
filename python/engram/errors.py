"""engram's exceptions: one class per engine status code.

Every error the engine reports is an ``engram.Error`` carrying the engine's message and its
status code name (``error.code == "NOT_FOUND"``). Classes that match a built-in exception also
derive from it, so ordinary ``except ValueError`` / ``except LookupError`` code keeps working.
Bad argument *types* raise the built-in ``TypeError`` naming the argument.
"""


class Error(Exception):
    """Base class of every error the engram engine reports."""

    code = "UNKNOWN"

    def __init__(self, message=""):
        super().__init__(message)
        self.message = message


class InvalidArgument(Error, ValueError):
    """The caller's input is wrong; retrying the same call fails again."""

    code = "INVALID_ARGUMENT"


class NotFound(Error, LookupError):
    """A named scope, memory, file or proposal does not exist."""

    code = "NOT_FOUND"


class AlreadyExists(Error):
    """Something that must be unique exists already."""

    code = "ALREADY_EXISTS"


class FailedPrecondition(Error):
    """The engine is not in a state where the call can run (a closed engine, a retired memory)."""

    code = "FAILED_PRECONDITION"


class Corruption(Error):
    """Stored data or a data file is damaged."""

    code = "CORRUPTION"


class Unavailable(Error, OSError):
    """A dependency (disk, server, model file) cannot be reached now."""

    code = "UNAVAILABLE"


class DeadlineExceeded(Error, TimeoutError):
    """The call ran out of time."""

    code = "DEADLINE_EXCEEDED"


class Internal(Error):
    """A bug in engram."""

    code = "INTERNAL"


class ResourceExhausted(Error, ValueError):
    """A size or count limit was exceeded."""

    code = "RESOURCE_EXHAUSTED"


__all__ = [
    "Error",
    "InvalidArgument",
    "NotFound",
    "AlreadyExists",
    "FailedPrecondition",
    "Corruption",
    "Unavailable",
    "DeadlineExceeded",
    "Internal",
    "ResourceExhausted",
]
