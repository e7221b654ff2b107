"""photon_torch: PyTorch programs on the Photon virtual platform (docs/torch.md).

Three routes:
  trace(model, inputs, train=False)  an op trace on the meta device, the workload of
                                     `photon run --workload FILE.ptrace`
  compile(model)                     AOTAutograd forward/backward graphs lowered and simulated by
                                     Photon, results computed eagerly
  device()                           the PrivateUse1 device: tensors in simulated memory, matrix
                                     products and convolutions through the optical engine's
                                     numerics and timing; stats() counts every op
"""
__version__ = "0.1.0"

from ._errors import PhotonTorchError, PlatformError, TraceError  # noqa: F401
from ._trace import OpTrace, trace  # noqa: F401
from ._runner import run_workload  # noqa: F401
from ._compile import CompiledModule, compile  # noqa: F401
from ._device import address_of, configure, device, reset_stats, stats  # noqa: F401

# Register the device now if it is built: torch's autograd engine only learns of devices
# registered before the process's first backward (see _device.register).
import os as _os

from . import _paths as _p

if _os.path.exists(_os.path.join(_p.build_dir(), "python", "libphoton_torch_device.so")):
    try:
        from ._device import register as _register
        _register()
    except PhotonTorchError:
        pass  # reported again, as an error, by device()
