// The launch functions of conf10b_check.sh's kernels behind a C ABI, so
// that conf10b_check.py can call them through ctypes on torch tensors
// (torch makes the CUDA context current; the headers launch in it, on the
// default stream). Each wrapper returns the CUresult and `<name>_status()`
// the header's statusString().
#include "analyze_sm90.h"
#include "conv2_sm90.h"
#include "conv_sm80.h"
#include "conv_sm90.h"
#include "mirror_sm80.h"
#include "mirror_sm90.h"
#include "mla_sm90.h"
#include "pgemm_sm80.h"
#include "pgemm_sm90.h"

#include <cstdint>

using u64 = std::uint64_t;
using i64 = std::int64_t;

#define STATUS(ns)                                                             \
  extern "C" const char *ns##_status() { return conf10b::ns::statusString(); }

#define CONV(ns, fn)                                                           \
  extern "C" int ns(u64 data, u64 kernel, u64 out, i64 n, i64 c, i64 h, i64 w, \
                    i64 f, i64 k) {                                            \
    return conf10b::ns::fn(data, kernel, out, n, c, h, w, f, k);               \
  }                                                                            \
  STATUS(ns)
CONV(conv_sm90, convolution)
CONV(conv_sm80, convolution)
CONV(conv2_sm90, convolution)
CONV(analyze_sm90, kernel)

#define PGEMM(ns)                                                              \
  extern "C" int ns(u64 a, u64 b, u64 c, i64 m, i64 n, i64 k) {                \
    return conf10b::ns::matmul_persistent(a, b, c, m, n, k);                   \
  }                                                                            \
  STATUS(ns)
PGEMM(pgemm_sm90)
PGEMM(pgemm_sm80)

extern "C" int mla_sm90(u64 q, u64 qpe, u64 kv, u64 kpe, u64 glse, u64 part,
                        u64 out) {
  return conf10b::mla_sm90::flashattn(q, qpe, kv, kpe, glse, part, out);
}
STATUS(mla_sm90)

#define MIRROR(ns)                                                             \
  extern "C" int ns(u64 x, u64 w, u64 y, i64 n) {                              \
    return conf10b::ns::mirror(x, w, y, n);                                    \
  }                                                                            \
  STATUS(ns)
MIRROR(mirror_sm90)
MIRROR(mirror_sm80)
