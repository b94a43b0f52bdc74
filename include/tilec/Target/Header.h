//===- Header.h - C++ launch headers and kernel metadata --------*- C++ -*-===//
//
// The last step of a compile: a plain description of what was compiled (the
// user's prim_funcs, the device kernels each one launches, the image) is
// rendered into a self-contained C++17 header that embeds the image and
// launches the kernels through the CUDA driver API or the HIP module API,
// and into a metadata JSON file. The description is plain C++ (no MLIR) so
// the renderers can be unit-tested and reused by small tools; the JSON holds
// the whole description except the image bytes, so a header can be rendered
// again from `k.json` + the image (see tools' `tilec-header`).
//
// docs/header.md describes the generated code and its ABI.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TARGET_HEADER_H
#define TILEC_TARGET_HEADER_H

#include <array>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilec::header {

/// What the embedded image holds.
enum class ImageKind { PTX, Cubin, HSACO };

/// Which runtime the header is written against.
enum class Flavor { CUDA, HIP };

/// One parameter of the user's prim_func, in the order the launch function
/// takes them.
struct Param {
  enum class Kind {
    Tensor, ///< a device pointer (CUdeviceptr / hipDeviceptr_t)
    Scalar, ///< a value of `dtype`, passed by value
    Symbol, ///< a `T.dynamic` dimension: int64_t on the host (checked to be
            ///< in [1, INT32_MAX]), int32 on the device
  };
  Kind kind = Kind::Tensor;
  std::string name;  ///< as in the .tile source; sanitised when rendered
  std::string dtype; ///< element type for tensors: "float16", "int32", ...
  /// Tensors: each dim a literal ("1024"), a symbol name ("m") or an
  /// expression over symbols ("m * 2").
  std::vector<std::string> shape;
  /// Tensors: bytes the generated code assumes for the base pointer (a power
  /// of two); the launch function rejects a less aligned pointer.
  unsigned alignment = 16;
  /// Tensors: an output the .tile allocates with `T.empty` (TileLang returns
  /// it; here the caller allocates it and passes it like any tensor).
  bool output = false;
};

/// A TMA descriptor (CUtensorMap) built on the host for a tensor parameter
/// with cuTensorMapEncodeTiled and passed to the kernel by value. CUDA only
/// (sm_90+). All lists are innermost dimension first, as the driver wants.
struct TensorMap {
  enum class Swizzle { None, B32, B64, B128 };
  enum class Interleave { None, B16, B32 };
  enum class L2Promotion { None, B64, B128, B256 };
  unsigned tensor = 0; ///< index of a Tensor param of the Function
  /// Elements per dimension, expressions over symbols. Empty: the tensor's
  /// shape reversed (row-major, innermost first).
  std::vector<std::string> globalDims;
  /// Byte strides of dimensions 1..rank-1, expressions over symbols. Empty:
  /// dense row-major strides of `globalDims`.
  std::vector<std::string> globalStrides;
  std::vector<unsigned> boxDims;        ///< the tile copied per TMA op
  std::vector<unsigned> elementStrides; ///< empty: all 1
  Swizzle swizzle = Swizzle::None;
  Interleave interleave = Interleave::None;
  L2Promotion l2Promotion = L2Promotion::B128;
  bool oobFillNaN = false; ///< out-of-bounds elements read as NaN, else 0
};

/// One argument of a device kernel.
struct KernelArg {
  enum class Kind {
    Param,     ///< a Function param: tensors as 64-bit pointers, symbols as
               ///< int32, scalars as their dtype (16-bit floats as bits)
    Value,     ///< `expr` (over symbols, evaluated in int64) cast to `dtype`
    TensorMap, ///< a CUtensorMap for `tensorMap`
  };
  Kind kind = Kind::Param;
  unsigned param = 0;          ///< Param: index into Function::params
  std::string dtype;           ///< Value: "int32", "int64", "uint32", "uint64"
  std::string expr;            ///< Value: C++ expression over symbol names
  header::TensorMap tensorMap; ///< TensorMap

  static KernelArg ofParam(unsigned index);
  static KernelArg ofValue(std::string dtype, std::string expr);
  static KernelArg ofTensorMap(header::TensorMap map);
};

/// Per-kernel resource use reported by ptxas (NVIDIA) or the code object's
/// metadata (AMD); -1: unknown or not applicable. Informational: written to
/// the JSON and to the header's comments (tilec checks them when compiling).
struct Resources {
  /// 32-bit registers per thread (AMD: VGPRs per lane, AGPRs included).
  int registers = -1;
  int accumRegisters = -1;         ///< AMD: the AGPRs among `registers`
  int scalarRegisters = -1;        ///< AMD: SGPRs per wavefront
  int spillStoreBytes = -1;        ///< NVIDIA: bytes spilled to local memory
  int spillLoadBytes = -1;         ///< NVIDIA: bytes reloaded from local memory
  int spilledVectorRegisters = -1; ///< AMD: VGPRs spilled to scratch
  int spilledScalarRegisters = -1; ///< AMD: SGPRs spilled to scratch
  int stackBytes = -1;
  int staticSharedBytes = -1;
};

/// One device kernel launch. A Function may launch several in sequence on
/// the same stream (e.g. split-KV attention + combine).
struct KernelLaunch {
  std::string entry; ///< symbol in the image
  /// Grid size, C++ expressions over symbol names evaluated in int64, e.g.
  /// "(m + 127) / 128". Each must come out in range at run time, else the
  /// launch function returns an invalid-value error.
  std::array<std::string, 3> grid = {"1", "1", "1"};
  std::array<unsigned, 3> block = {1, 1, 1}; ///< threads
  /// Thread-block cluster (CUDA sm_90+ only); {1,1,1}: no cluster launch.
  std::array<unsigned, 3> cluster = {1, 1, 1};
  /// 0: one block per grid block. n > 0: a persistent kernel, which loops
  /// over the grid's blocks from its launched block's linear index in steps
  /// of the launched grid's size, so any launch computes every tile; the
  /// header launches min(blocks, n * multiprocessors) blocks along x.
  unsigned persistentBlocksPerSM = 0;
  /// The kernel synchronizes its whole grid (T.sync_grid): it is launched
  /// cooperatively (cuLaunchCooperativeKernel / hipModuleLaunchCooperative-
  /// Kernel) after checking that every block can be resident at once.
  bool cooperative = false;
  unsigned dynamicSharedBytes = 0;
  std::vector<KernelArg> args; ///< what the kernel receives, in order
  Resources resources;
};

/// A host-side condition over symbols checked before launching, e.g.
/// {"k", "k % 8 == 0"}; false -> invalid-value error.
struct SymbolCheck {
  std::string symbol;    ///< the symbol the check is about (for the docs)
  std::string condition; ///< C++ boolean expression over symbol names
};

/// One launch function in the header = one prim_func instance.
struct Function {
  std::string name;     ///< C identifier, unique in the Unit
  std::string location; ///< optional "file.tile:12" of the prim_func
  std::vector<Param> params;
  std::vector<KernelLaunch> kernels;
  std::vector<SymbolCheck> checks;
  /// The kernel factory this instance came from, and the value bound to
  /// each of its parameters, as JSON text ("64", "\"float16\"", "true"),
  /// sorted by name: what tuning caches key on, and what tools evaluate
  /// work formulas such as `2 * M * N * K` over (tilec-bench --flops).
  std::string factory;
  std::vector<std::pair<std::string, std::string>> bindings;
};

/// The compiled device code.
struct Image {
  ImageKind kind = ImageKind::PTX;
  std::string target; ///< "sm_90a", "gfx942", ...
  std::string bytes;  ///< the image (PTX text without a trailing NUL)
};

/// Everything compiled from one input file.
struct Unit {
  std::string sourceFile;      ///< as given on the command line
  std::string compilerVersion; ///< "0.1.0"
  /// C++ namespace of the header ("a::b"). Empty: `tilec_kernels::<stem of
  /// sourceFile>`, sanitised.
  std::string nameSpace;
  std::vector<Function> functions;
  Image image;
};

/// Compiles of one source for several chips of one vendor, rendered into
/// one header: an image per chip, chosen when the header is first used on a
/// device, behind the same launch functions (docs/header.md, "Several
/// targets in one header").
struct MultiUnit {
  /// One per chip, in the order given; images are cubins or HSACOs. They
  /// must have the same namespace, functions and parameters.
  std::vector<Unit> units;
  /// CUDA: the PTX each cubin was assembled from (or empty). The newest
  /// non-arch-specific chip's is embedded too, for the driver to JIT on a
  /// chip no cubin runs on.
  std::vector<std::string> ptx;
};

/// Thrown by the renderers for a Unit that validate() rejects, and by
/// parseMetadataJSON for malformed input.
class HeaderError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Returns "" if `unit` can be rendered for `flavor`, else a message naming
/// the function, kernel or parameter at fault (lower case, no final period).
std::string validate(const Unit &unit, Flavor flavor);

/// The C++17 header for `flavor`. Deterministic: the same Unit gives the
/// same bytes. Throws HeaderError if validate() fails.
std::string renderHeader(const Unit &unit, Flavor flavor);
std::string renderCudaHeader(const Unit &unit); // CUDA driver API (cuda.h)
std::string renderHipHeader(const Unit &unit);  // HIP module API

/// Returns "" if `multi` can be rendered for `flavor`, else a message.
std::string validate(const MultiUnit &multi, Flavor flavor);
/// The one header of `multi`. Throws HeaderError if validate() fails.
std::string renderMultiTargetHeader(const MultiUnit &multi, Flavor flavor);
/// The metadata of `multi`: the first unit's document (functions, their
/// bindings and parameters are the same for every chip) plus `targets`, the
/// image and functions (launch configuration, resources) of every chip.
std::string renderMetadataJSON(const MultiUnit &multi);

/// The metadata JSON (fixed key order, two-space indent, final newline).
/// Describes everything but the image bytes. Does not validate.
std::string renderMetadataJSON(const Unit &unit);

/// Reads renderMetadataJSON's output back; `imageBytes` supplies the image.
/// Throws HeaderError with a message on malformed input.
Unit parseMetadataJSON(std::string_view json, std::string imageBytes);

/// Helpers the renderers use, public for tests and the driver.
/// A valid C identifier from `name`: bad characters become '_', a leading
/// digit or an empty name gets a '_' prefix, C++ keywords and reserved names
/// (`__x`, `_X`) get a '_' suffix or a 'u' prefix.
std::string sanitizeIdentifier(std::string_view name);
/// `tilec_kernels::<stem>` for "dir/stem.tile".
std::string defaultNamespace(std::string_view sourceFile);
/// Canonical dtype name ("half" -> "float16"), or "" if unknown.
std::string canonicalDType(std::string_view dtype);
std::string_view imageKindName(ImageKind kind); // "ptx", "cubin", "hsaco"

} // namespace tilec::header

#endif // TILEC_TARGET_HEADER_H
