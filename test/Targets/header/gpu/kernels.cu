// Device kernels for the header's GPU test (see run.sh). Written in CUDA
// C++ and compiled with nvcc, because the point here is the generated host
// code, not tilec's device code: each kernel has the parameter list that
// kernels.json describes, and main.cpp launches them through the headers
// that tilec-header renders from kernels.json.
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_fp16.h>

extern "C" __global__ void vec_add(const float *a, const float *b, float *c,
                                   int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" __global__ void scale_half(const __half *x, __half *y,
                                      __half alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = __hmul(x[i], alpha);
}

// Reverses each block's 25600-float chunk through 100 KB of dynamic shared
// memory: needs the >48 KB opt-in.
extern "C" __global__ void reverse_chunks(const float *in, float *out,
                                          int n) {
  extern __shared__ float chunk[];
  const int size = 25600;
  int base = blockIdx.x * size;
  for (int i = threadIdx.x; i < size; i += blockDim.x)
    chunk[i] = base + i < n ? in[base + i] : 0.0f;
  __syncthreads();
  for (int i = threadIdx.x; i < size; i += blockDim.x)
    if (base + i < n)
      out[base + i] = chunk[size - 1 - i];
}

// Second kernel of a two-kernel function: adds 1 to the first's output.
extern "C" __global__ void add_one(float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] += 1.0f;
}

// Writes each block's rank in its cluster, and the cluster's size.
extern "C" __global__ void cluster_ranks(int *out, int total) {
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0 && blockIdx.x < total)
    out[blockIdx.x] = int(cluster.block_rank()) * 100 + int(cluster.num_blocks());
}

// Copies a rows x cols float matrix tile by tile (16 rows x 32 columns)
// through TMA into shared memory, then to `out` with plain stores.
extern "C" __global__ void tma_copy(const __grid_constant__ CUtensorMap map,
                                    float *out, int rows, int cols) {
  __shared__ alignas(128) float tile[16][32];
  __shared__ alignas(8) unsigned long long bar;
  int x = blockIdx.x * 32, y = blockIdx.y * 16;
  unsigned barAddr = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  unsigned tileAddr = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(barAddr));
    asm volatile("fence.proxy.async.shared::cta;");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barAddr),
        "r"(int(sizeof tile)));
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
                 "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(tileAddr),
                 "l"(&map), "r"(x), "r"(y), "r"(barAddr)
                 : "memory");
  }
  asm volatile("{\n"
               ".reg .pred done;\n"
               "wait:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
               "@!done bra wait;\n"
               "}" ::"r"(barAddr)
               : "memory");
  for (int i = threadIdx.x; i < 16 * 32; i += blockDim.x) {
    int r = y + i / 32, c = x + i % 32;
    if (r < rows && c < cols)
      out[r * cols + c] = tile[i / 32][i % 32];
  }
}

// Takes a value computed on the host from two symbols (rows * cols).
extern "C" __global__ void iota(int *out, int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < total)
    out[i] = i;
}
