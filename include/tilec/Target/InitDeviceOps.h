//===- InitDeviceOps.h - Register every vendor's DeviceOpBuilder -*- C++ -*-===//
//
// The vendor libraries (TilecNVPTXOps, TilecAMDGPUOps) register their
// DeviceOpBuilder explicitly, as MLIR's dialects and targets are: a tool
// that runs tilec's passes calls registerAllDeviceOps() in main and links
// both libraries. passes/ links only the interface (TilecDeviceOps).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_INITDEVICEOPS_H
#define TILEC_TARGET_INITDEVICEOPS_H

namespace tilec {

/// targets/nvptx/NVVMOpBuilder.cpp (TilecNVPTXOps).
void registerNVPTXDeviceOps();
/// targets/amdgpu/ROCDLOpBuilder.cpp (TilecAMDGPUOps).
void registerAMDGPUDeviceOps();

inline void registerAllDeviceOps() {
  registerNVPTXDeviceOps();
  registerAMDGPUDeviceOps();
}

} // namespace tilec

#endif // TILEC_TARGET_INITDEVICEOPS_H
