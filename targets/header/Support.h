//===- Support.h - Shared pieces of the header renderers --------*- C++ -*-===//
//
// Internal to TilecHeader: the dtype table, identifier and expression
// handling, the names chosen for one Function's C++ parameters, and a small
// line writer. The CUDA and HIP renderers differ only in the runtime calls
// they emit; everything here is what they agree on, so the two headers take
// the same arguments in the same order with the same checks.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TARGETS_HEADER_SUPPORT_H
#define TILEC_TARGETS_HEADER_SUPPORT_H

#include "tilec/Target/Header.h"

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::header::detail {

/// What the renderers need to know about an element type.
struct DTypeInfo {
  std::string_view name;       ///< canonical, "float16"
  unsigned bytes;              ///< storage size
  std::string_view hostType;   ///< launch-function type of a Scalar param
  std::string_view deviceType; ///< what the kernel receives
  std::string_view convert;    ///< host->device helper in the header, or ""
  std::string_view tmaType;    ///< CUtensorMapDataType enumerator suffix
};

/// The table entry for a canonical or alias name, or nullptr.
const DTypeInfo *lookupDType(std::string_view name);

/// Whether `dtype` (canonical or alias) is a signed or unsigned integer.
bool isIntegerDType(std::string_view dtype);

bool isIdentifier(std::string_view text);

/// One token of a C++ expression as the renderers understand it.
struct ExprToken {
  enum Kind { Identifier, Number, Punct } kind;
  std::string text;
};

/// Splits `expr` into tokens; returns false (and a message) if it holds a
/// character outside the arithmetic/comparison subset we accept. Keeps
/// generated code from being broken, or extended, by a bad expression.
bool tokenizeExpr(std::string_view expr, std::vector<ExprToken> &tokens,
                  std::string &error);

/// Checks `expr` is non-empty, tokenizes, and that every identifier is in
/// `symbols`. Returns "" or a message.
std::string checkExpr(std::string_view expr,
                      const std::set<std::string> &symbols);

/// `expr` with each identifier replaced through `names` (symbol -> C name).
std::string rewriteExpr(std::string_view expr,
                        const std::map<std::string, std::string> &names);

/// The C++ names of one Function's parameters: sanitised, never clashing
/// with the generated `stream` parameter, `tilec_` locals or each other.
struct ParamNames {
  std::vector<std::string> cNames;            ///< per param
  std::map<std::string, std::string> symbols; ///< symbol name -> C name
  std::set<std::string> symbolSet;            ///< original symbol names
};
ParamNames nameParams(const Function &function);

/// The C++ name of a Function (sanitised; names the header itself uses get
/// a '_' suffix).
std::string functionName(const Function &function);

/// Namespace components of the Unit ("a::b" -> {"a", "b"}), sanitised.
std::vector<std::string> namespaceParts(const Unit &unit);

/// Entries in first-use order over all functions, and the largest dynamic
/// shared size / cluster size each is launched with.
struct EntryTable {
  std::vector<std::string> entries;
  std::vector<unsigned> maxDynamicShared;
  std::vector<unsigned> maxClusterSize;
  unsigned indexOf(const std::string &entry) const;
};
EntryTable collectEntries(const Unit &unit);

/// A C/C++ string literal for `text`.
std::string quote(std::string_view text);

/// `text` made safe for a `//` comment: one line, no trailing backslash.
std::string commentText(std::string_view text);

/// The `.tile` source lines of `function`'s signature for the doc comment:
/// `m = T.dynamic("m")` per symbol, `@T.prim_func`, then
/// `def matmul(A: T.Tensor((m, 1024), "float16"),` one param per line.
std::vector<std::string> tileSignature(const Function &function);

/// `T.Tensor((m, 1024), "float16")`, `T.float32` or `T.dynamic("m")`.
std::string tileType(const Param &param);

/// The dense row-major globalDims/globalStrides of a TensorMap whose lists
/// are empty, from the tensor's shape and dtype (innermost first).
void completeTensorMap(const Function &function, TensorMap &map);

/// Appends lines with the current indent.
class Writer {
public:
  Writer &line(std::string_view text = {});
  void indent() { depth += 2; }
  void dedent() { depth -= 2; }
  std::string take() { return std::move(out); }

private:
  std::string out;
  unsigned depth = 0;
};

/// Spellings of the runtime API the common writers need.
struct Api {
  std::string_view result;    ///< "CUresult"
  std::string_view success;   ///< "CUDA_SUCCESS"
  std::string_view invalid;   ///< "CUDA_ERROR_INVALID_VALUE"
  std::string_view devicePtr; ///< "CUdeviceptr"
  std::string_view stream;    ///< "CUstream"
  bool integerPointers;       ///< CUdeviceptr is an integer, hip's a void*
  /// How generated code names the namespace of the status helpers
  /// (writeStatusHelpers): "detail::", or the outer namespace's
  /// "::a::b::detail::" from inside one target of a multi-target header.
  std::string status = "detail::";
  std::string_view errorName; ///< "cuGetErrorName" / "hipGetErrorName"
};

extern const Api cudaApi;
extern const Api hipApi;

/// `return <status>reject("<fn>: " format, args...);`: an argument check
/// failed. `format` is a printf format written by the renderer; user text
/// goes through `args` (already C++ expressions, e.g. quoted strings).
std::string rejectStatement(const Api &api, const Function &function,
                            std::string_view format,
                            const std::vector<std::string> &args = {});
/// `return <status>runtimeError(tilec_err, "<fn>: <what>");`.
std::string runtimeErrorStatement(const Api &api, const Function &function,
                                  std::string_view what);

/// The per-thread status behind lastError()/statusString(), and reject(),
/// runtimeError(), succeed(), inside `namespace detail`.
void writeStatusHelpers(Writer &w, const Api &api);
/// The public lastError() and statusString().
void writeStatusApi(Writer &w, const Api &api);

/// What differs when a body is one target of a multi-target header.
struct BodyOptions {
  /// CUDA: PTX to JIT-compile when the device takes no cubin embedded
  /// (CUDA_ERROR_NO_BINARY_FOR_GPU); empty: none.
  std::string ptxFallback;
  bool multiTarget = false;
};
/// Everything inside the header's namespace for one image: kTarget, the
/// image, the module table, load()/unload() and the launch functions.
void writeCudaBody(Writer &w, const Unit &unit, const Api &api,
                   const BodyOptions &options);
void writeHipBody(Writer &w, const Unit &unit, const Api &api,
                  const BodyOptions &options);
/// Whether the CUDA header needs CUDA 12 (clusters, TMA).
bool needsCuda12(const Unit &unit);
/// The preprocessor check that refuses a CUDA older than 12 (for kernels
/// that needsCuda12), preceded by a blank line.
void writeCuda12Check(Writer &w);
/// TILEC_GENERATED_<NS>_<SUFFIX>.
std::string includeGuard(const Unit &unit, std::string_view suffix);

/// Hex dump of `bytes` as array initialiser lines (16 per line), plus a
/// trailing 0x00 when `nulTerminate`.
void writeImageBytes(Writer &w, std::string_view bytes, bool nulTerminate);

/// The comment block documenting `function`: its .tile signature, the C++
/// arguments, the checks, the kernels it launches and the return codes.
void writeFunctionDoc(Writer &w, const Function &function,
                      const ParamNames &names, const Api &api);

/// `NAME(CUdeviceptr A, ..., CUstream stream = nullptr)`.
std::string launchSignature(const Function &function, const ParamNames &names,
                            const Api &api);

/// Argument checks common to both flavours: pointers not null and aligned,
/// symbols in [1, INT32_MAX], the Function's checks.
void writeArgumentChecks(Writer &w, const Function &function,
                         const ParamNames &names, const Api &api);

/// `const std::int64_t tilec_gridK[3] = {...};` and its range check
/// (detail::gridInRange, plus cluster divisibility).
void writeGrid(Writer &w, const Function &function, unsigned k,
               const ParamNames &names, const Api &api);

/// Locals holding symbols, converted scalars and Value args as the kernels
/// take them (range-checked), and `(void)` for unused scalars.
void writeDeviceValues(Writer &w, const Function &function,
                       const ParamNames &names, const Api &api);

/// The name of the variable whose address is passed to kernel `k` for its
/// argument `a`.
std::string kernelArgVariable(const Function &function, const ParamNames &names,
                              unsigned k, unsigned a);

/// `void *tilec_argsK[] = {&A, ...};` (or a null pointer when empty).
void writeKernelArgArray(Writer &w, const Function &function,
                         const ParamNames &names, unsigned k);

/// The inline helpers every header has (grid range, half conversions if
/// `function`s need them) inside `namespace detail`.
void writeCommonHelpers(Writer &w, const Unit &unit,
                        std::string_view maxGridYZ);

/// The file's opening comment lines (without the guard).
void writeBanner(Writer &w, const Unit &unit,
                 const std::vector<std::string_view> &runtimeLines);

} // namespace tilec::header::detail

#endif // TILEC_TARGETS_HEADER_SUPPORT_H
