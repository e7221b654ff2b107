"""Where the project's build lives: the `photon` executable and the device library.

Order: the environment variable PHOTON_BUILD_DIR, else <repository>/build (this package is
<repository>/python/photon_torch).
"""
import os

from ._errors import PhotonTorchError

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def build_dir() -> str:
    return os.environ.get("PHOTON_BUILD_DIR") or os.path.join(REPO, "build")


def _existing(path: str, what: str) -> str:
    if not os.path.exists(path):
        raise PhotonTorchError(f"{what} not found at {path}: build the project (bash scripts/build.sh) "
                               f"or set PHOTON_BUILD_DIR to its build directory")
    return path


def photon_binary() -> str:
    return _existing(os.path.join(build_dir(), "photon"), "the photon executable")


def device_library() -> str:
    return _existing(os.path.join(build_dir(), "python", "libphoton_torch_device.so"), "the device library")


def default_config() -> str:
    return os.path.join(REPO, "configs", "default.yaml")
