// sm_90a-only instructions compile for sm_90a and are refused for sm_80 with
// an error located at each op (instead of LLVM's "Cannot select" abort).
// RUN: tilec %s --emit=ptx --target sm_90a -o - | FileCheck %s --check-prefix=SM90A
// RUN: not tilec %s --emit=ptx --target sm_80 -o %t.ptx 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not tilec %s --emit=hsaco --target gfx942 -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=AMD

// SM90A: .target sm_90a
// SM90A-LABEL: .visible .entry producer(
// SM90A: setmaxnreg.inc.sync.aligned.u32 {{.*}}240;
// SM90A: wgmma.fence.sync.aligned;
// SM90A: wgmma.commit_group.sync.aligned;
// SM90A: wgmma.wait_group.sync.aligned {{.*}}0;

// SM80-NOT: Cannot select
// AMD-NOT: Cannot select

module {
  gpu.module @hopper {
    gpu.func @producer(%p: memref<128xf32>) kernel {
      // SM80: :[[@LINE+2]]:{{[0-9]+}}: error: 'nvvm.setmaxregister' (setmaxnreg) needs sm_90a; the target is sm_80
      // AMD: :[[@LINE+1]]:{{[0-9]+}}: error: 'nvvm.setmaxregister' is an NVIDIA operation; the target gfx942 is an AMD chip
      nvvm.setmaxregister increase 240
      // SM80: :[[@LINE+1]]:{{[0-9]+}}: error: 'nvvm.wgmma.fence.aligned' (wgmma) needs sm_90a; the target is sm_80
      nvvm.wgmma.fence.aligned
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      gpu.return
    }
  }
}
