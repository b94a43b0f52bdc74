// CPU emulation of SIMT kernels (test/Targets/simt-emulation.test,
// bench/debug/conf9a_emulate.sh): the LLVM IR tilec generates for sm_90a,
// retargeted to the host with the thread and block indices as functions,
// run for every (block, thread) of the grid and compared with host
// references (the same as bench/debug/conf9a_check.cpp's). It runs tilec's
// whole lowering without a GPU; kernels whose threads communicate
// (barriers, shared memory, shuffles) cannot run this way, and these do
// not. Built with -DWITH_RAND when the conformance kernel rand_uint is
// linked in too.
#include <array>
#include <cstdint>
#include <cstdio>
#include <vector>

static int gTid, gCtaid;
extern "C" int emu_tid() { return gTid; }
extern "C" int emu_ctaid() { return gCtaid; }
extern "C" void rng_streams_kernel(void *);
extern "C" void rng_default_kernel(void *);
#ifdef WITH_RAND
extern "C" void tilelang_rand_1d_kernel(void *);
#endif
extern "C" void unpack_kernel(void *, void *, void *, void *, void *, void *);

namespace {

/// cuRAND's curand_init / curand on curandStatePhilox4_32_10_t.
struct Philox {
  std::array<std::uint32_t, 4> ctr{}, out{};
  std::uint32_t key[2];
  unsigned index;
  static std::array<std::uint32_t, 4> block(std::array<std::uint32_t, 4> c,
                                            std::uint32_t k0, std::uint32_t k1) {
    for (int r = 0; r < 10; ++r) {
      if (r) {
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
      }
      std::uint64_t p0 = std::uint64_t(0xD2511F53u) * c[0];
      std::uint64_t p1 = std::uint64_t(0xCD9E8D57u) * c[2];
      c = {std::uint32_t(p1 >> 32) ^ c[1] ^ k0, std::uint32_t(p1),
           std::uint32_t(p0 >> 32) ^ c[3] ^ k1, std::uint32_t(p0)};
    }
    return c;
  }
  Philox(std::uint64_t seed, std::uint64_t seq, std::uint64_t off) {
    key[0] = std::uint32_t(seed);
    key[1] = std::uint32_t(seed >> 32);
    std::uint64_t lo = off / 4;
    ctr = {std::uint32_t(lo), std::uint32_t(lo >> 32), std::uint32_t(seq),
           std::uint32_t(seq >> 32)};
    index = unsigned(off % 4);
    out = block(ctr, key[0], key[1]);
  }
  std::uint32_t next() {
    std::uint32_t r = out[index++];
    if (index == 4) {
      for (auto &w : ctr)
        if (++w)
          break;
      out = block(ctr, key[0], key[1]);
      index = 0;
    }
    return r;
  }
};

bool allOk = true;
void row(const char *what, size_t n, size_t bad) {
  std::printf("| %s | %zu | %zu | %s |\n", what, n, bad, bad ? "FAIL" : "ok");
  allOk &= bad == 0;
}

} // namespace

int main() {
  std::printf("| case (CPU emulation) | elements | mismatches | verdict |\n|---|---|---|---|\n");
  {
    std::vector<std::uint32_t> o(128 * 9);
    for (gCtaid = 0; gCtaid < 4; ++gCtaid)
      for (gTid = 0; gTid < 32; ++gTid)
        rng_streams_kernel(o.data());
    size_t bad = 0;
    for (int r = 0; r < 128; ++r) {
      Philox p(0x1234567890ull, std::uint64_t(r / 32) * 3 + 1,
               (1ull << 34) + std::uint64_t(r % 32) * 5 + 3);
      for (int d = 0; d < 9; ++d)
        bad += o[size_t(r) * 9 + d] != p.next();
    }
    row("rng_streams", o.size(), bad);
  }
  {
    std::vector<std::uint32_t> o(128 * 6);
    for (gCtaid = 0; gCtaid < 2; ++gCtaid)
      for (gTid = 0; gTid < 64; ++gTid)
        rng_default_kernel(o.data());
    size_t bad = 0;
    for (int r = 0; r < 128; ++r) {
      Philox p(7, std::uint64_t(r), 0);
      for (int d = 0; d < 6; ++d)
        bad += o[size_t(r) * 6 + d] != p.next();
    }
    row("rng_default", o.size(), bad);
  }
#ifdef WITH_RAND
  {
    const int M = 100000, blocks = (M + 127) / 128;
    std::vector<std::uint32_t> o(M);
    gTid = 0;
    for (gCtaid = 0; gCtaid < blocks; ++gCtaid)
      tilelang_rand_1d_kernel(o.data());
    size_t bad = 0;
    for (int b = 0; b < blocks; ++b) {
      Philox p(42, 0, std::uint64_t(b) * 128);
      for (int j = 0; j < 128 && b * 128 + j < M; ++j)
        bad += o[size_t(b) * 128 + j] != p.next();
    }
    row("rand_uint (M = 100000, seed 42)", o.size(), bad);
  }
#endif
  {
    const int N = 256;
    std::vector<std::int8_t> packed(N / 2), i8(N);
    for (int i = 0; i < N / 2; ++i)
      packed[i] = std::int8_t(i * 37 + 11);
    _Float16 zero = 3;
    std::vector<_Float16> u(N), z(N), s(N);
    for (gCtaid = 0; gCtaid < N / 128; ++gCtaid)
      for (gTid = 0; gTid < 128; ++gTid)
        unpack_kernel(packed.data(), &zero, u.data(), z.data(), s.data(), i8.data());
    size_t bad = 0;
    for (int n = 0; n < N; ++n) {
      int f = (std::uint8_t(packed[n / 2]) >> (4 * (n % 2))) & 15;
      bad += float(u[n]) != f;
      bad += float(z[n]) != f - 3;
      bad += float(s[n]) != f - 8;
      bad += i8[n] != (f >= 8 ? f - 16 : f);
    }
    row("tilelang.quantize unpacking", size_t(4) * N, bad);
  }
  return allOk ? 0 : 1;
}
