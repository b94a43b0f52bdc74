#!/usr/bin/env bash
# Installs what building and testing tilec needs, from Debian's packages.
# Idempotent: when everything is present it only checks and returns.
set -euo pipefail

packages=(
  cmake ninja-build ccache g++ make
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22 clang-22
  libclang-rt-22-dev
  libcli11-dev nlohmann-json3-dev catch2
  libamdhip64-dev rocm-device-libs libzstd-dev
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
      grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" \
    </dev/null
fi

# numpy, for the tests of the GPU scripts' host-side references (lit's
# `numpy` feature), in the python3 the tests run: the first on PATH, which
# need not be Debian's (a pyenv one has its own site-packages).
if ! python3 -c "import numpy" 2>/dev/null; then
  echo "install-deps: installing numpy for $(command -v python3)"
  python3 -m pip install --quiet numpy </dev/null ||
    echo "install-deps: warning: numpy could not be installed; the tests that need it are skipped" >&2
fi

# The CUDA toolkit (ptxas, cuda.h) is not a Debian package here: it comes
# with the machine image at /usr/local/cuda. Say so plainly if it is absent.
if [[ ! -x /usr/local/cuda/bin/ptxas || ! -f /usr/local/cuda/include/cuda.h ]]; then
  echo "install-deps: error: the CUDA toolkit is missing (need /usr/local/cuda/bin/ptxas and /usr/local/cuda/include/cuda.h)" >&2
  exit 1
fi
echo "install-deps: all dependencies present"
