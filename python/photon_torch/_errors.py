"""Exceptions of photon_torch (each message is one line naming the op and the reason)."""


class PhotonTorchError(RuntimeError):
    """Base class of photon_torch's errors."""


class TraceError(PhotonTorchError):
    """A model could not be traced, or a trace could not be written or run."""


class PlatformError(PhotonTorchError):
    """`photon` rejected a workload or a configuration (its one-line error is the message)."""
