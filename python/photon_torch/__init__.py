"""photon_torch: PyTorch programs on the Photon virtual platform.

Three routes (docs/torch.md):
  trace(model, inputs, train=False)  op trace on the meta device -> `photon run --workload F.ptrace`
  compile(model)                     AOTAutograd forward/backward graphs lowered through Photon
  device()                           the PrivateUse1 device: tensors in simulated memory, GEMMs
                                     through the optical engine's numerics and timing
"""
__version__ = "0.1.0"

from ._errors import PhotonTorchError, PlatformError, TraceError  # noqa: F401
from ._trace import OpTrace, trace  # noqa: F401
from ._runner import run_workload  # noqa: F401
