//===- Primitives.cpp - TileLang's T.* primitives --------------------------===//
//
// Each T.* primitive binds its arguments with TileLang's keyword names and
// defaults, checks them (buffer scopes, dtypes, ranks, tile shapes) with
// messages at the user's source position, and emits its tile-dialect op.
// Shape checks here are the user-facing ones; the op verifiers repeat the
// structural part as a safety net for IR built by other means.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "tilec/Dialect/TileDialect.h"
#include "tilec/Dialect/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <cmath>
#include <limits>

using namespace mlir;
using llvm::SMLoc;
using llvm::SMRange;
using llvm::StringRef;
using llvm::Twine;

namespace tilec::mlirgen {

/// A tensor dimension as the user wrote it: an integer, a symbol's name, or
/// the host expression of a size computed from symbols.
static std::string dimText(const Value &d) {
  if (d.is(Value::Symbol))
    return d.getSymbol().name;
  if (d.is(Value::Runtime) && !d.getRuntime().hostExpr.empty())
    return d.getRuntime().hostExpr;
  return d.repr();
}

static std::string shapeText(const std::vector<Value> &shape) {
  std::string s = "[";
  for (size_t k = 0; k < shape.size(); ++k)
    s += (k ? ", " : "") + dimText(shape[k]);
  return s + "]";
}

/// Whether `v` is a size the device can recompute from the launch's
/// symbols: integer arithmetic (+ - * / %) over symbol names, as the
/// kernel outliner reads a tensor's `tile.shape`.
static bool isSymbolicSize(const Value &v) {
  if (!v.is(Value::Runtime) || !v.getRuntime().isIndex)
    return false;
  const std::string &e = v.getRuntime().hostExpr;
  return !e.empty() && llvm::all_of(e, [](char c) {
    return llvm::isAlnum(c) || llvm::is_contained(StringRef("_ +-*/%()"), c);
  });
}

LogicalResult Elaborator::requireKernel(const CallArgs &args) {
  if (traced && kernelDepth > 0)
    return success();
  error(args.range, "`" + args.callee + "` must be used inside a `with "
                                        "T.Kernel(...)` block of a @T.prim_func");
  return failure();
}

FailureOr<std::shared_ptr<BufferObject>>
Elaborator::toBuffer(const Arg &arg, const Twine &role) {
  if (arg.value.is(Value::Buffer)) {
    // A T.ptr table holds addresses, not data (PointerTensors.cpp).
    if (arg.value.getBuffer().dtype.isPointer()) {
      error(arg.range, role + ": `" + arg.value.getBuffer().name +
                           "` is a table of device addresses (`T.ptr`); "
                           "index one element and pass it to "
                           "`T.make_tensor`");
      return failure();
    }
    return arg.value.getBufferPtr();
  }
  if (arg.value.is(Value::Subscript)) {
    sema::SubscriptObject &s = arg.value.getSubscript();
    error(arg.range, role + " must be a whole buffer here, not a region of `" +
                         s.base.getBuffer().name + "`");
    return failure();
  }
  error(arg.range, role + " must be a buffer, got `" + arg.value.repr() + "`");
  return failure();
}

/// Parses a shape argument: an int or a tuple/list of ints (and, for
/// tensors, T.dynamic symbols).
static std::optional<std::vector<Value>>
shapeOf(const Value &v, bool allowSymbols, bool allowSizes = false) {
  std::vector<Value> dims;
  if (v.isIntLike())
    dims.push_back(Value::integer(v.getInt()));
  else if (v.isSequence())
    dims = v.getElements();
  else if ((v.is(Value::Symbol) && allowSymbols) ||
           (allowSizes && isSymbolicSize(v)))
    dims.push_back(v);
  else
    return std::nullopt;
  for (Value &d : dims) {
    if (d.is(Value::Bool))
      d = Value::integer(d.getInt());
    if (!(d.is(Value::Int) || (allowSymbols && d.is(Value::Symbol)) ||
          (allowSizes && isSymbolicSize(d))))
      return std::nullopt;
  }
  return dims;
}

FailureOr<Value> Elaborator::allocate(MemScope scope, CallArgs &args) {
  if (failed(requireKernel(args)))
    return failure();
  FailureOr<std::vector<std::optional<Arg>>> bound =
      bindArgs(args, {"shape", "dtype", "scope"}, 2);
  if (failed(bound))
    return failure();
  return allocateBound(scope, args, *(*bound)[0], *(*bound)[1]);
}

FailureOr<Value> Elaborator::allocateBound(MemScope scope, CallArgs &args,
                                           const Arg &shapeArg,
                                           const Arg &dtypeArg) {
  std::optional<std::vector<Value>> shape = shapeOf(shapeArg.value, false);
  if (!shape || shape->empty()) {
    bool symbolic = shapeArg.value.isSequence() &&
                    llvm::any_of(shapeArg.value.getElements(), [](const Value &d) {
                      return d.is(Value::Symbol);
                    });
    bool runtime = shapeArg.value.isSequence() &&
                   !shapeArg.value.isConstant();
    std::string hint = constHint(shapeArg.value);
    error(shapeArg.range,
          "shape of `" + args.callee + "` must be " +
              (!hint.empty() ? "known at compile time"
               : symbolic    ? "known at compile time, not a T.dynamic dimension"
               : runtime     ? "known at compile time"
                             : "a tuple of integers") +
              ", got `" + shapeArg.value.repr() + "`" + hint);
    return failure();
  }
  SmallVector<int64_t> dims;
  for (size_t k = 0; k < shape->size(); ++k) {
    int64_t d = (*shape)[k].getInt();
    if (d <= 0) {
      error(shapeArg.range, "dimension " + Twine(k) + " of `" + args.callee +
                                "` must be positive, got " + Twine(d));
      return failure();
    }
    dims.push_back(d);
  }
  if (std::string why = elementCountProblem("`" + args.callee + "`", *shape);
      !why.empty()) {
    error(shapeArg.range, why);
    return failure();
  }
  FailureOr<DType> dt = requireDType(dtypeArg);
  if (failed(dt))
    return failure();
  tile::MemorySpace space = scope == MemScope::Shared ? tile::MemorySpace::shared
                            : scope == MemScope::Fragment
                                ? tile::MemorySpace::fragment
                                : tile::MemorySpace::local;
  std::string name = pendingName.empty() ? "buf" : pendingName;
  auto type = tile::getBufferType(dims, irType(*dt), space);
  auto op = tile::AllocOp::create(builder, loc(args.range.Start), type, name);
  auto buf = std::make_shared<BufferObject>();
  buf->name = name;
  buf->scope = scope;
  buf->dtype = *dt;
  buf->shape = *shape;
  buf->memref = op.getResult();
  buf->loc = args.range.Start;
  return Value::buffer(buf);
}

/// Whether two IR values compute the same thing: the same value, or the
/// same side-effect-free op (or element read, which TileLang's slices treat
/// as one expression too: `X[s : s + 64]` with `s = idx[b]`) on operands
/// that compute the same things.
static bool sameValue(mlir::Value a, mlir::Value b, unsigned depth = 0) {
  if (a == b)
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!x || !y || depth > 16 || x->getName() != y->getName() ||
      x->getAttrDictionary() != y->getAttrDictionary() ||
      x->getNumOperands() != y->getNumOperands() ||
      x->getNumResults() != 1 || y->getNumResults() != 1 ||
      x->getNumRegions() || y->getNumRegions())
    return false;
  if (!isa<memref::LoadOp>(x) && !isMemoryEffectFree(x))
    return false;
  for (auto [p, q] : llvm::zip(x->getOperands(), y->getOperands()))
    if (!sameValue(p, q, depth + 1))
      return false;
  return true;
}

namespace {
/// `constant + sum(coeff * atom)` over IR values.
struct Linear {
  SmallVector<std::pair<mlir::Value, int64_t>> terms;
  int64_t constant = 0;
  void add(mlir::Value atom, int64_t c) {
    for (auto &[v, k] : terms)
      if (sameValue(v, atom)) {
        k += c;
        return;
      }
    terms.push_back({atom, c});
  }
};
} // namespace

/// `v` as a linear form, looking through additions, subtractions,
/// multiplications by constants and integer casts.
static void linearize(mlir::Value v, int64_t scale, Linear &out,
                      unsigned depth = 0) {
  Operation *def = v.getDefiningOp();
  if (std::optional<int64_t> c = getConstantIntValue(v)) {
    out.constant += scale * *c;
    return;
  }
  if (def && depth < 32) {
    if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>(def))
      return linearize(def->getOperand(0), scale, out, depth + 1);
    if (isa<arith::AddIOp, arith::SubIOp>(def)) {
      linearize(def->getOperand(0), scale, out, depth + 1);
      linearize(def->getOperand(1),
                isa<arith::SubIOp>(def) ? -scale : scale, out, depth + 1);
      return;
    }
    if (isa<arith::MulIOp>(def)) {
      if (std::optional<int64_t> c = getConstantIntValue(def->getOperand(1)))
        return linearize(def->getOperand(0), scale * *c, out, depth + 1);
      if (std::optional<int64_t> c = getConstantIntValue(def->getOperand(0)))
        return linearize(def->getOperand(1), scale * *c, out, depth + 1);
    }
  }
  out.add(v, scale);
}

/// `hi - lo` when both are run-time integers whose difference is a
/// constant though they are outside the affine index arithmetic (`x[s :
/// s + 64]` with `s` loaded from memory, `x[c * n + k * 64 : c * n + (k +
/// 1) * 64]` with `n` a run-time size).
static std::optional<int64_t> constantDifference(const Value &hi,
                                                 const Value &lo) {
  if (!hi.is(Value::Runtime) || !lo.is(Value::Runtime) ||
      hi.getRuntime().dtype.isFloat() || lo.getRuntime().dtype.isFloat())
    return std::nullopt;
  Linear d;
  linearize(hi.getRuntime().value, 1, d);
  linearize(lo.getRuntime().value, -1, d);
  for (auto &[v, k] : d.terms)
    if (k != 0)
      return std::nullopt;
  return d.constant;
}

FailureOr<Region> Elaborator::toRegion(const Arg &arg, const Twine &roleIn) {
  std::string roleStr = roleIn.str();
  StringRef role = roleStr;
  Region r;
  r.range = arg.range;
  auto fullDims = [&](BufferObject &b, size_t from) -> LogicalResult {
    for (size_t d = from; d < b.shape.size(); ++d) {
      if (!b.shape[d].is(Value::Int)) {
        error(arg.range, role + ": dimension " + Twine(d) + " of `" + b.name +
                             "` is the runtime dimension `" +
                             dimText(b.shape[d]) +
                             "`; index or slice it with compile-time extents");
        return failure();
      }
      r.offsets.push_back(Value::integer(0));
      r.extents.push_back(b.shape[d].getInt());
    }
    return success();
  };
  if (arg.value.is(Value::Buffer)) {
    r.buffer = arg.value.getBufferPtr();
    if (failed(refuseReshapeView(*r.buffer, arg.range, role)))
      return failure();
    if (failed(fullDims(*r.buffer, 0)))
      return failure();
    return r;
  }
  if (!arg.value.is(Value::Subscript)) {
    error(arg.range, role + " must be a buffer or a buffer region, got `" +
                         arg.value.repr() + "`");
    return failure();
  }
  sema::SubscriptObject &s = arg.value.getSubscript();
  r.buffer = s.base.getBufferPtr();
  BufferObject &b = *r.buffer;
  if (failed(refuseReshapeView(b, arg.range, role)))
    return failure();
  r.allPoints = s.indices.size() == b.shape.size() &&
                llvm::none_of(s.indices, [](const Value &v) { return v.is(Value::Slice); });
  for (size_t d = 0; d < s.indices.size(); ++d) {
    const Value &ix = s.indices[d];
    if (!ix.is(Value::Slice)) {
      r.offsets.push_back(ix);
      r.extents.push_back(r.allPoints ? -1 : 1);
      continue;
    }
    const auto &p = ix.getSliceParts();
    if (p[2] && !(p[2]->isIntLike() && p[2]->getInt() == 1)) {
      error(arg.range, role + ": strided slices of `" + b.name +
                           "` are not supported");
      return failure();
    }
    Value lo = p[0] ? *p[0] : Value::integer(0);
    Value hi;
    if (p[1]) {
      hi = *p[1];
    } else if (b.shape[d].is(Value::Int)) {
      hi = b.shape[d];
    } else {
      error(arg.range, role + ": dimension " + Twine(d) + " of `" + b.name +
                           "` is the runtime dimension `" +
                           dimText(b.shape[d]) +
                           "`; give the slice an explicit end");
      return failure();
    }
    FailureOr<Value> ext = evalBinary(ast::BinOpKind::Sub, hi, lo, arg.range);
    if (failed(ext))
      return failure();
    if (!ext->isIntLike())
      if (std::optional<int64_t> diff = constantDifference(hi, lo))
        ext = Value::integer(*diff);
    if (!ext->isIntLike()) {
      error(arg.range, role + ": the extent of slice " + Twine(d) + " of `" +
                           b.name + "` is not a compile-time constant");
      return failure();
    }
    if (ext->getInt() <= 0) {
      error(arg.range, role + ": slice " + Twine(d) + " of `" + b.name +
                           "` is empty (extent " + Twine(ext->getInt()) + ")");
      return failure();
    }
    r.offsets.push_back(lo);
    r.extents.push_back(ext->getInt());
  }
  if (failed(fullDims(b, s.indices.size())))
    return failure();
  return r;
}

/// Extents with the unit dimensions dropped: what two boxes must agree on.
static SmallVector<int64_t> squeeze(llvm::ArrayRef<int64_t> e) {
  SmallVector<int64_t> out;
  for (int64_t x : e)
    if (x != 1)
      out.push_back(x);
  return out;
}

/// Gives a region written `A[i, j]` the extents of the other side, aligned
/// to its trailing dimensions (TileLang's reading of a tile origin).
static bool inferExtents(Region &r, llvm::ArrayRef<int64_t> other) {
  SmallVector<int64_t> e(other.begin(), other.end());
  while (e.size() > r.extents.size() && !e.empty() && e.front() == 1)
    e.erase(e.begin());
  if (e.size() > r.extents.size())
    return false;
  size_t lead = r.extents.size() - e.size();
  for (size_t k = 0; k < r.extents.size(); ++k)
    r.extents[k] = k < lead ? 1 : e[k - lead];
  return true;
}

/// Reconciles the two sides of a copy-like op; reports a mismatch.
static std::string reconcile(Region &src, Region &dst) {
  if (src.allPoints && dst.allPoints)
    return "cannot infer the tile to copy: both `" + src.buffer->name +
           "[...]` and `" + dst.buffer->name +
           "[...]` name single elements; slice one of them";
  if (src.allPoints && !inferExtents(src, dst.extents))
    return "the tile " + dst.text() + " of `" + dst.buffer->name +
           "` has more dimensions than `" + src.buffer->name + "`";
  if (dst.allPoints && !inferExtents(dst, src.extents))
    return "the tile " + src.text() + " of `" + src.buffer->name +
           "` has more dimensions than `" + dst.buffer->name + "`";
  if (squeeze(src.extents) != squeeze(dst.extents))
    return "shape mismatch: the source tile of `" + src.buffer->name +
           "` is " + src.text() + " but the destination tile of `" +
           dst.buffer->name + "` is " + dst.text();
  return "";
}

/// On-chip boxes must lie inside their buffers when offsets are known.
static std::string checkInBounds(const Region &r) {
  if (r.buffer->scope == MemScope::Global)
    return "";
  for (size_t d = 0; d < r.extents.size(); ++d) {
    std::optional<int64_t> dim = r.buffer->staticDim(d);
    if (!dim)
      continue;
    int64_t off = r.offsets[d].isIntLike() ? r.offsets[d].getInt() : 0;
    if (off + r.extents[d] > *dim)
      return "the tile " + r.text() + " at offset " + std::to_string(off) +
             " overruns dimension " + std::to_string(d) + " of `" +
             r.buffer->name + "` (extent " + std::to_string(*dim) + ")";
  }
  return "";
}

static DType promoteScalar(DType a, DType b) {
  if (a.isFloat() != b.isFloat())
    return a.isFloat() ? a : b;
  return a.bits() >= b.bits() ? a : b;
}

/// Loops whose constant bounds the kernel cannot run as written: an index
/// that does not fit in the 32 bits kernels count loops with (it would wrap:
/// T.serial(1 << 31) ran 0 times, T.serial((1 << 32) + 5) 5 times), and
/// T.unroll / T.vectorized loops too long to unroll. Empty when fine.
static std::pair<std::string, int>
loopRangeProblem(StringRef name, const sema::LoopSpec &spec) {
  const Value *bounds[] = {&spec.start, &spec.stop, &spec.step};
  for (int k = 0; k < 3; ++k) {
    const Value *v = bounds[k];
    if (v->isIntLike() && (v->getInt() > INT32_MAX || v->getInt() < INT32_MIN))
      return {("`" + name + "` bound " + Twine(v->getInt()) +
              " does not fit in a 32-bit loop index (" + Twine(INT32_MIN) +
              " to " + Twine(INT32_MAX) + ")")
                  .str(),
              k};
  }
  if (!spec.start.isIntLike() || !spec.stop.isIntLike() ||
      !spec.step.isIntLike())
    return {"", -1};
  int64_t start = spec.start.getInt(), stop = spec.stop.getInt();
  int64_t step = spec.step.getInt();
  int64_t trips = stop > start ? (stop - start + step - 1) / step : 0;
  // The index after the last iteration must not wrap either.
  if (trips > 0 && start + trips * step > INT32_MAX)
    return {("`" + name + "` counts past " + Twine(INT32_MAX) +
             ", the largest 32-bit loop index, after its last iteration")
                .str(),
            -1};
  constexpr int64_t kMaxUnroll = 4096;
  if ((name == "T.unroll" || name == "T.vectorized") && trips > kMaxUnroll)
    return {("`" + name + "` of " + Twine(trips) +
             " iterations is unrolled in full, more than the " +
             Twine(kMaxUnroll) + " tilec unrolls; use T.serial")
                .str(),
            -1};
  return {"", -1};
}

FailureOr<Value> Elaborator::callPrimitive(StringRef name, CallArgs &args) {
  auto &pos = args.positional;
  auto bind = [&](llvm::ArrayRef<StringRef> names, unsigned required) {
    return bindArgs(args, names, required);
  };
  SMLoc at = args.range.Start;
  FailureOr<std::optional<Value>> frontend = callFrontendPrimitive(name, args);
  if (failed(frontend))
    return failure();
  if (*frontend)
    return **frontend;
  FailureOr<std::optional<Value>> hopper = callHopperPrimitive(name, args);
  if (failed(hopper))
    return failure();
  if (*hopper)
    return **hopper;
  FailureOr<std::optional<Value>> async = callAsyncCopyPrimitive(name, args);
  if (failed(async))
    return failure();
  if (*async)
    return **async;

  //===------------------------------------------------------------------===//
  // Types, symbols, integer helpers
  //===------------------------------------------------------------------===//
  if (name == "T.im2col" || name == "T.c2d_im2col")
    return im2col(args);
  if (name == "T.Tensor" || name == "T.Buffer") {
    auto b = bind({"shape", "dtype", "data"}, 1);
    if (failed(b))
      return failure();
    // An eager factory's tensors may also have sizes computed from its
    // symbols (`(M, N // 128)`): the device recomputes them from the
    // launch's arguments.
    std::optional<std::vector<Value>> shape =
        shapeOf((*b)[0]->value, true, /*allowSizes=*/eager != nullptr);
    if (!shape) {
      error((*b)[0]->range, "tensor shape must be a tuple of integers and "
                            "T.dynamic dimensions" +
                                Twine(eager ? " (or integer arithmetic on them)"
                                            : "") +
                                ", got `" +
                                (*b)[0]->value.repr() + "`");
      return failure();
    }
    for (const Value &d : *shape) {
      if (!d.is(Value::Runtime))
        continue;
      // Every name in a computed size must be a launch symbol (not, say, a
      // scalar parameter): the device rebuilds the size from those alone.
      const std::string &e = d.getRuntime().hostExpr;
      std::string id = nonSymbolIn(e);
      if (!id.empty()) {
        error((*b)[0]->range, "tensor dimension `" + e + "` uses `" + id +
                                  "`, which is not a T.const / T.dynamic "
                                  "size; a computed dimension may only use "
                                  "those");
        return failure();
      }
    }
    for (const Value &d : *shape)
      if (d.is(Value::Int) && d.getInt() <= 0) {
        error((*b)[0]->range, "tensor dimensions must be positive, got " +
                                  shapeText(*shape));
        return failure();
      }
    if (std::string why = elementCountProblem(
            "a tensor", *shape, options.indexBits != IndexBits::Bits32);
        !why.empty()) {
      error((*b)[0]->range, why);
      return failure();
    }
    DType dt = DType::Float32;
    if ((*b)[1]) {
      // `T.ptr` elements: a table of device addresses (PointerTensors.cpp).
      std::optional<DType> ptr = pointerTableDType((*b)[1]->value);
      FailureOr<DType> d = ptr && ptr->isPointer() ? FailureOr<DType>(*ptr)
                                                   : requireDType(*(*b)[1]);
      if (failed(d))
        return failure();
      dt = *d;
    }
    // With `data` (a parameter's `.data`), a view of its storage.
    if ((*b)[2] && !(*b)[2]->value.isNone())
      return tensorView(*shape, dt, *(*b)[2], args);
    auto t = std::make_shared<sema::TensorTypeObject>();
    t->shape = *shape;
    t->dtype = dt;
    return Value::tensorType(t);
  }
  if (name == "T.dynamic" || name == "T.symbolic") {
    auto b = bind({"name", "dtype"}, 1);
    if (failed(b))
      return failure();
    if (!(*b)[0]->value.is(Value::Str) || (*b)[0]->value.getStr().empty() ||
        !llvm::all_of((*b)[0]->value.getStr(),
                      [](char c) { return llvm::isAlnum(c) || c == '_'; }) ||
        llvm::isDigit((*b)[0]->value.getStr()[0])) {
      error((*b)[0]->range, "`" + args.callee +
                                "` needs a C identifier as its name, e.g. "
                                "T.dynamic(\"m\")");
      return failure();
    }
    auto sym = std::make_shared<sema::SymbolObject>();
    sym->name = (*b)[0]->value.getStr();
    sym->loc = at;
    if ((*b)[1]) {
      FailureOr<DType> d = requireDType(*(*b)[1]);
      if (failed(d))
        return failure();
      if (!d->isInteger()) {
        error((*b)[1]->range, "a runtime dimension must have an integer dtype");
        return failure();
      }
      if (d->bits() == 64 && options.indexBits == IndexBits::Bits32) {
        error((*b)[1]->range,
              "a 64-bit T.dynamic size needs 64-bit index arithmetic, which "
              "-findex-bits=32 rules out");
        return failure();
      }
      sym->dtype = *d;
    }
    return Value::symbol(sym);
  }
  if (name == "T.ceildiv") {
    auto b = bind({"a", "b"}, 2);
    if (failed(b))
      return failure();
    // An element read (`T.ceildiv(seqlens[bx], block_N)`) is its value, as
    // is a T.alloc_var (`T.ceildiv(l_num_input, BLOCK_SIZE)`).
    for (std::optional<Arg> &a : *b)
      if (a->value.is(Value::Subscript) ||
          (a->value.is(Value::Buffer) &&
           a->value.getBuffer().scope == MemScope::Var)) {
        FailureOr<Value> s = toScalar(a->value, a->range);
        if (failed(s))
          return failure();
        a->value = *s;
      }
    const Value &x = (*b)[0]->value, &y = (*b)[1]->value;
    for (const Arg *a : {&*(*b)[0], &*(*b)[1]}) {
      const Value &v = a->value;
      bool intLike = v.isIntLike() || v.is(Value::Symbol) ||
                     (v.is(Value::Runtime) && !v.getRuntime().dtype.isFloat());
      if (!intLike) {
        // TileLang's tuned examples leave sizes at a `None` default that
        // the autotuner or the caller fills in.
        error(a->range, "`T.ceildiv` needs integers, got `" + v.repr() + "`" +
                            (v.isNone() ? "; a factory parameter left at its "
                                          "`None` default needs a value "
                                          "(-D name=<value>)"
                                        : ""));
        return failure();
      }
    }
    if (x.isIntLike() && y.isIntLike()) {
      if (y.getInt() == 0) {
        error((*b)[1]->range, "`T.ceildiv` by zero");
        return failure();
      }
      sema::FoldResult r = sema::foldBinary(
          sema::BinaryOp::FloorDiv,
          Value::integer(x.getInt() + y.getInt() - 1), y);
      return *r.value;
    }
    FailureOr<Value> sum = evalBinary(ast::BinOpKind::Add, x, y, args.range);
    if (failed(sum))
      return failure();
    FailureOr<Value> num = evalBinary(ast::BinOpKind::Sub, *sum, Value::integer(1), args.range);
    if (failed(num))
      return failure();
    return evalBinary(ast::BinOpKind::FloorDiv, *num, y, args.range);
  }
  if (name == "T.Kernel") {
    error(args.range, "`T.Kernel` must be used as `with T.Kernel(...) as "
                      "(bx, by):`");
    return failure();
  }
  if (name == "T.get_thread_binding" || name == "T.get_block_binding") {
    if (failed(requireKernel(args)))
      return failure();
    auto b = bind({"dim"}, 0);
    if (failed(b))
      return failure();
    int64_t dim = 0;
    if ((*b)[0]) {
      FailureOr<int64_t> d = requireInt(*(*b)[0], "`dim`");
      if (failed(d))
        return failure();
      dim = *d;
    }
    if (dim < 0 || dim > 2) {
      error(args.range, "`dim` must be 0, 1 or 2");
      return failure();
    }
    if (name == "T.get_thread_binding" && blockDims.size() > 1) {
      // threads=(x, y, z) launched as x*y*z: component `dim` of the
      // linear index.
      if (unsigned(dim) >= blockDims.size()) {
        error(args.range, "the kernel's block has only " +
                              Twine(blockDims.size()) + " dimensions");
        return failure();
      }
      Value tid = wrapRuntime(tile::ThreadIdOp::create(builder, loc(at), 0),
                              DType::Int32, true);
      int64_t below = 1;
      for (int64_t d = 0; d < dim; ++d)
        below *= blockDims[d];
      FailureOr<Value> q =
          below == 1 ? FailureOr<Value>(tid)
                     : runtimeBinary(BinaryOpLike::FloorDiv, tid,
                                     Value::integer(below), args.range);
      if (failed(q))
        return failure();
      if (unsigned(dim) + 1 == blockDims.size())
        return *q;
      return runtimeBinary(BinaryOpLike::Mod, *q,
                           Value::integer(blockDims[dim]), args.range);
    }
    if (name == "T.get_thread_binding")
      return wrapRuntime(tile::ThreadIdOp::create(builder, loc(at), dim),
                         DType::Int32, true);
    Block *blk = builder.getInsertionBlock();
    Operation *op = blk->getParentOp();
    while (op && !isa<tile::KernelOp>(op))
      op = op->getParentOp();
    auto kernel = cast<tile::KernelOp>(op);
    if (unsigned(dim) >= kernel.getBlockIndices().size()) {
      error(args.range, "the kernel has only " +
                            Twine(kernel.getBlockIndices().size()) +
                            " grid dimension(s)");
      return failure();
    }
    return wrapRuntime(kernel.getBlockIndices()[dim], DType::Int32, true);
  }

  //===------------------------------------------------------------------===//
  // Memory
  //===------------------------------------------------------------------===//
  if (name == "T.alloc_shared")
    return allocate(MemScope::Shared, args);
  if (name == "T.alloc_fragment")
    return allocate(MemScope::Fragment, args);
  if (name == "T.alloc_local")
    return allocate(MemScope::Local, args);
  if (name == "T.alloc_reducer") {
    // A fragment each thread accumulates its own partials into; the kind
    // and replication travel on the alloc for the layout inference and
    // tile.finalize_reducer (docs/language.md, section 8.2).
    if (failed(requireKernel(args)))
      return failure();
    auto b = bind({"shape", "dtype", "op", "replication"}, 2);
    if (failed(b))
      return failure();
    tile::ReduceKind kind = tile::ReduceKind::sum;
    if (const std::optional<Arg> &op = (*b)[2]) {
      std::optional<tile::ReduceKind> k;
      if (op->value.is(Value::Str))
        k = llvm::StringSwitch<std::optional<tile::ReduceKind>>(
                op->value.getStr())
                .Case("sum", tile::ReduceKind::sum)
                .Case("max", tile::ReduceKind::max)
                .Case("min", tile::ReduceKind::min)
                .Default(std::nullopt);
      if (!k) {
        error(op->range, "`op` of `T.alloc_reducer` must be \"sum\", "
                         "\"max\" or \"min\", got `" +
                             op->value.repr() + "`");
        return failure();
      }
      kind = *k;
    }
    // TileLang leaves an unspecified replication to the compiler: tilec
    // picks "all", which needs no particular loop layout.
    tile::ReducerReplication rep = tile::ReducerReplication::all;
    if (const std::optional<Arg> &r = (*b)[3]; r && !r->value.isNone()) {
      std::optional<tile::ReducerReplication> k;
      if (r->value.is(Value::Str))
        k = llvm::StringSwitch<std::optional<tile::ReducerReplication>>(
                r->value.getStr())
                .Case("all", tile::ReducerReplication::all)
                .Case("none", tile::ReducerReplication::none)
                .Default(std::nullopt);
      if (!k) {
        error(r->range, "`replication` of `T.alloc_reducer` must be "
                        "\"all\" or \"none\", got `" +
                            r->value.repr() + "`");
        return failure();
      }
      rep = *k;
    }
    FailureOr<Value> buf =
        allocateBound(MemScope::Fragment, args, *(*b)[0], *(*b)[1]);
    if (failed(buf))
      return failure();
    auto alloc = buf->getBuffer().memref.getDefiningOp<tile::AllocOp>();
    alloc.setReducerAttr(
        tile::ReducerAttr::get(builder.getContext(), kind, rep));
    return buf;
  }
  if (name == "T.finalize_reducer") {
    if (failed(requireKernel(args)))
      return failure();
    auto b = bind({"reducer", "batch"}, 1);
    if (failed(b))
      return failure();
    FailureOr<std::shared_ptr<BufferObject>> buf =
        toBuffer(*(*b)[0], "the buffer of `T.finalize_reducer`");
    if (failed(buf))
      return failure();
    auto alloc = (*buf)->memref.getDefiningOp<tile::AllocOp>();
    if (!alloc || !alloc.getReducerAttr() || !(*buf)->storageShape.empty()) {
      error((*b)[0]->range, "`T.finalize_reducer` needs a buffer from "
                            "`T.alloc_reducer`; `" +
                                (*buf)->name + "` is not a reducer");
      note((*buf)->loc, "`" + (*buf)->name + "` declared here");
      return failure();
    }
    tile::FinalizeReducerOp::create(builder, loc(at), (*buf)->memref);
    return Value::none();
  }
  if (name == "T.alloc_var") {
    if (failed(requireKernel(args)))
      return failure();
    auto b = bind({"dtype", "init", "scope"}, 1);
    if (failed(b))
      return failure();
    FailureOr<DType> dt = requireDType(*(*b)[0]);
    if (failed(dt))
      return failure();
    std::string nm = pendingName.empty() ? "var" : pendingName;
    auto type = tile::getBufferType({}, irType(*dt), tile::MemorySpace::local);
    auto op = tile::AllocOp::create(builder, loc(at), type, nm);
    auto buf = std::make_shared<BufferObject>();
    buf->name = nm;
    buf->scope = MemScope::Var;
    buf->dtype = *dt;
    buf->memref = op.getResult();
    buf->loc = at;
    if ((*b)[1]) {
      FailureOr<Value> s = toScalar((*b)[1]->value, (*b)[1]->range);
      if (failed(s))
        return failure();
      FailureOr<mlir::Value> v = toIR(*s, irType(*dt), (*b)[1]->range);
      if (failed(v))
        return failure();
      memref::StoreOp::create(builder, loc(at), *v, buf->memref, ValueRange{});
    }
    return Value::buffer(buf);
  }
  if (name == "T.alloc_barrier") {
    if (failed(requireKernel(args)))
      return failure();
    auto b = bind({"arrive_count"}, 1);
    if (failed(b))
      return failure();
    SmallVector<int64_t> counts;
    const Value &v = (*b)[0]->value;
    std::vector<Value> items = v.isSequence() ? v.getElements() : std::vector<Value>{v};
    for (const Value &c : items) {
      if (!c.isIntLike() || c.getInt() <= 0) {
        error((*b)[0]->range, "`arrive_count` must be positive integers");
        return failure();
      }
      counts.push_back(c.getInt());
    }
    auto op = tile::AllocBarrierOp::create(builder, loc(at), counts);
    auto buf = std::make_shared<BufferObject>();
    buf->name = pendingName.empty() ? "barrier" : pendingName;
    buf->scope = MemScope::Shared;
    buf->dtype = DType::Int64;
    buf->shape = {Value::integer(counts.size())};
    buf->memref = op.getResult();
    buf->loc = at;
    return Value::buffer(buf);
  }

  //===------------------------------------------------------------------===//
  // Data movement
  //===------------------------------------------------------------------===//
  if (name == "T.copy" || name == "T.async_copy" || name == "T.tma_copy") {
    if (failed(requireKernel(args)))
      return failure();
    bool tma = name == "T.tma_copy";
    auto b = tma ? bind({"src", "dst", "barrier", "eviction_policy"}, 2)
                 : bind({"src", "dst", "coalesced_width", "disable_tma",
                         "eviction_policy", "loop_layout"},
                        2);
    if (failed(b))
      return failure();
    FailureOr<Region> src = toRegion(*(*b)[0], "the source of `" + args.callee + "`");
    if (failed(src))
      return failure();
    FailureOr<Region> dst = toRegion(*(*b)[1], "the destination of `" + args.callee + "`");
    if (failed(dst))
      return failure();
    std::string problem = reconcile(*src, *dst);
    if (problem.empty())
      problem = checkInBounds(*src);
    if (problem.empty())
      problem = checkInBounds(*dst);
    if (!problem.empty()) {
      error(args.range, "`" + args.callee + "`: " + problem);
      note(src->buffer->loc, "`" + src->buffer->name + "` declared here");
      if (dst->buffer != src->buffer)
        note(dst->buffer->loc, "`" + dst->buffer->name + "` declared here");
      return failure();
    }
    bool bothGlobal = src->buffer->scope == MemScope::Global &&
                      dst->buffer->scope == MemScope::Global;
    for (const Region *r : {&*src, &*dst})
      if (!r->buffer->indexMap.isNone() && !bothGlobal) {
        error(args.range, "`" + args.callee + "` between `" +
                              r->buffer->name + "`, a global tensor with a "
                              "`T.Layout` index map, and on-chip memory is "
                              "not supported yet; the map is honored by "
                              "element accesses and global-to-global copies");
        return failure();
      }
    if (bothGlobal && !tma) {
      if (failed(emitGlobalCopy(*src, *dst, args.range)))
        return failure();
      return Value::none();
    }
    SmallVector<mlir::Value> so, doffs;
    for (const Value &o : src->offsets) {
      FailureOr<mlir::Value> v = toIndex(o, (*b)[0]->range);
      if (failed(v))
        return failure();
      so.push_back(*v);
    }
    for (const Value &o : dst->offsets) {
      FailureOr<mlir::Value> v = toIndex(o, (*b)[1]->range);
      if (failed(v))
        return failure();
      doffs.push_back(*v);
    }
    if (tma) {
      if (failed(emitTmaCopy(*src, *dst, so, doffs, (*b)[2], args)))
        return failure();
      return Value::none();
    }
    auto op = tile::CopyOp::create(builder, loc(at), src->buffer->memref, so,
                                   src->extents, dst->buffer->memref, doffs,
                                   dst->extents);
    if ((*b)[2]) {
      FailureOr<int64_t> w = requireInt(*(*b)[2], "`coalesced_width`");
      if (failed(w))
        return failure();
      op.setCoalescedWidthAttr(builder.getI64IntegerAttr(*w));
    }
    if ((*b)[3] && (*b)[3]->value.truthy())
      op.setDisableTma(true);
    return Value::none();
  }
  if (name == "T.Persistent")
    return persistentLoop(args);
  if (name == "T.gemm_sp") {
    error(args.range, "`" + name + "` is not supported yet for target " +
                          options.target + " in this version of tilec");
    return failure();
  }
  if (name == "T.clear" || name == "T.fill") {
    if (failed(requireKernel(args)))
      return failure();
    auto b = name == "T.clear" ? bind({"buffer"}, 1) : bind({"buffer", "value"}, 2);
    if (failed(b))
      return failure();
    // A region of a shared buffer or a fragment is filled element-wise.
    const Value &target = (*b)[0]->value;
    std::optional<Region> box;
    if (target.is(Value::Subscript)) {
      MemScope scope = target.getSubscript().base.getBuffer().scope;
      if (scope == MemScope::Shared || scope == MemScope::Fragment) {
        FailureOr<Region> r =
            toRegion(*(*b)[0], "the buffer of `" + name + "`");
        if (failed(r))
          return failure();
        box = *r;
      }
    }
    FailureOr<std::shared_ptr<BufferObject>> buf =
        box ? FailureOr<std::shared_ptr<BufferObject>>(box->buffer)
            : toBuffer(*(*b)[0], "the buffer of `" + name + "`");
    if (failed(buf))
      return failure();
    if ((*buf)->scope == MemScope::Global) {
      error((*b)[0]->range, "`" + name + "` of the global tensor `" +
                                (*buf)->name + "` is not supported; fill a "
                                "fragment and T.copy it out");
      return failure();
    }
    Value v = name == "T.clear" ? Value::integer(0) : (*b)[1]->value;
    SMRange vr = name == "T.clear" ? args.range : (*b)[1]->range;
    FailureOr<Value> s = toScalar(v, vr);
    if (failed(s))
      return failure();
    FailureOr<mlir::Value> iv = toIR(*s, irType((*buf)->dtype), vr);
    if (failed(iv))
      return failure();
    if (box) {
      if (failed(emitRegionFill(*box, *iv, args.range)))
        return failure();
      return Value::none();
    }
    tile::FillOp::create(builder, loc(at), (*buf)->memref, *iv);
    return Value::none();
  }

  //===------------------------------------------------------------------===//
  // Compute
  //===------------------------------------------------------------------===//
  // T.wgmma_gemm: T.gemm's operands, issued on wgmma and left in flight
  // (an async tile.gemm; HopperPrimitives.cpp checks the target).
  if (name == "T.gemm" || name == "T.wgmma_gemm") {
    if (failed(requireKernel(args)))
      return failure();
    bool async = name == "T.wgmma_gemm";
    if (async && failed(requireWgmmaTarget(args)))
      return failure();
    auto b = async ? bind({"A", "B", "C", "transpose_A", "transpose_B",
                           "policy", "clear_accum"},
                          3)
                   : bind({"A", "B", "C", "transpose_A", "transpose_B",
                           "policy", "clear_accum", "k_pack", "wg_wait"},
                          3);
    if (failed(b))
      return failure();
    std::shared_ptr<BufferObject> bufs[3];
    const char *roles[3] = {"A", "B", "C"};
    // A region of a buffer (`Q_s[:, 256:]`, a ring's stage `A_s[k % 2, :,
    // :]`): its matrix spans the buffer's last two dimensions at constant
    // offsets; a leading index may be a run-time value.
    std::optional<Region> regions[3];
    int64_t shapes[3][2] = {};
    for (int k = 0; k < 3; ++k) {
      const Arg &arg = *(*b)[k];
      std::string role =
          ("operand " + Twine(roles[k]) + " of `" + name + "`").str();
      if (arg.value.is(Value::Subscript)) {
        FailureOr<Region> r = toRegion(arg, role);
        if (failed(r))
          return failure();
        const BufferObject &buf = *r->buffer;
        size_t rank = r->extents.size();
        auto regionError = [&](const Twine &why) {
          error(arg.range, role + ": " + why);
          note(buf.loc, "`" + buf.name + "` declared here with shape " +
                            shapeText(buf.shape));
          return failure();
        };
        if (buf.scope == MemScope::Global)
          return regionError("`" + buf.name +
                             "` is a global tensor (T.copy "
                             "it into T.alloc_shared first)");
        if (r->allPoints)
          return regionError("`" + buf.name +
                             "[...]` names one element; "
                             "slice the matrix, as in `" +
                             buf.name + "[:, :]`");
        if (rank < 2 || rank > 3 ||
            (rank == 3 && buf.scope != MemScope::Shared))
          return regionError(
              "a region must be 2-d, or one tile of a 3-d shared buffer "
              "(`" +
              buf.name + "[stage, :, :]`)");
        if (rank == 3 && r->extents[0] != 1)
          return regionError("the matrix of a region of the 3-d `" + buf.name +
                             "` spans its last two dimensions; index the "
                             "first, as in `" +
                             buf.name + "[stage, :, :]`");
        for (size_t d = rank - 2; d < rank; ++d)
          if (!r->offsets[d].isIntLike())
            return regionError("the offset of slice " + Twine(d) + " of `" +
                               buf.name +
                               "` is not a compile-time constant "
                               "(tilec addresses a gemm region from a "
                               "constant origin)");
        if (std::string why = checkInBounds(*r); !why.empty())
          return regionError(why);
        shapes[k][0] = r->extents[rank - 2];
        shapes[k][1] = r->extents[rank - 1];
        bool whole = rank == 2 && r->offsets[0].getInt() == 0 &&
                     r->offsets[1].getInt() == 0 &&
                     buf.staticDim(0) == shapes[k][0] &&
                     buf.staticDim(1) == shapes[k][1];
        bufs[k] = r->buffer;
        if (!whole)
          regions[k] = std::move(*r);
        continue;
      }
      FailureOr<std::shared_ptr<BufferObject>> x = toBuffer(arg, role);
      if (failed(x))
        return failure();
      bufs[k] = *x;
      if (bufs[k]->shape.size() != 2) {
        error((*b)[k]->range, "operand " + Twine(roles[k]) + " of `T.gemm` must be "
                              "2-d, but `" + bufs[k]->name + "` has shape " +
                              shapeText(bufs[k]->shape));
        note(bufs[k]->loc, "`" + bufs[k]->name + "` declared here");
        return failure();
      }
      if (bufs[k]->scope == MemScope::Global) {
        error((*b)[k]->range, "operand " + Twine(roles[k]) + " of `T.gemm` must be "
                              "in shared memory or a fragment; `" +
                              bufs[k]->name + "` is a global tensor (T.copy "
                              "it into T.alloc_shared first)");
        return failure();
      }
      shapes[k][0] = bufs[k]->shape[0].getInt();
      shapes[k][1] = bufs[k]->shape[1].getInt();
    }
    for (int k = 0; k < 3; ++k)
      if (bufs[k] && failed(refuseFragmentView(*bufs[k], (*b)[k]->range,
                                               "`T.gemm`")))
        return failure();
    if (bufs[2]->scope != MemScope::Fragment) {
      error((*b)[2]->range, "`T.gemm` accumulates into a fragment "
                            "(T.alloc_fragment); `" + bufs[2]->name +
                            "` is in " + spelling(bufs[2]->scope) + " memory");
      note(bufs[2]->loc, "`" + bufs[2]->name + "` declared here");
      return failure();
    }
    bool ta = (*b)[3] && (*b)[3]->value.truthy();
    bool tb = (*b)[4] && (*b)[4]->value.truthy();
    int64_t a0 = shapes[0][0], a1 = shapes[0][1];
    int64_t b0 = shapes[1][0], b1 = shapes[1][1];
    int64_t c0 = shapes[2][0], c1 = shapes[2][1];
    auto operandText = [&](int k) {
      return regions[k] ? "[" + std::to_string(shapes[k][0]) + ", " +
                              std::to_string(shapes[k][1]) + "] (a region)"
                        : shapeText(bufs[k]->shape);
    };
    int64_t M = ta ? a1 : a0, Ka = ta ? a0 : a1;
    int64_t Kb = tb ? b1 : b0, N = tb ? b0 : b1;
    auto fail = [&](const Twine &msg) {
      error(args.range, msg);
      for (auto &x : bufs)
        note(x->loc, "`" + x->name + "` declared here with shape " +
                         shapeText(x->shape));
      return failure();
    };
    if (Ka != Kb)
      return fail("`T.gemm` K extents disagree: A `" + bufs[0]->name + "` " +
                  operandText(0) + (ta ? " (transposed)" : "") +
                  " has K = " + Twine(Ka) + " but B `" + bufs[1]->name + "` " +
                  operandText(1) + (tb ? " (transposed)" : "") +
                  " has K = " + Twine(Kb));
    if (c0 != M || c1 != N)
      return fail("`T.gemm` accumulator `" + bufs[2]->name + "` is " +
                  operandText(2) + " but A x B is [" + Twine(M) + ", " +
                  Twine(N) + "]");
    DType da = bufs[0]->dtype, db = bufs[1]->dtype, dc = bufs[2]->dtype;
    auto isF8 = [](DType t) {
      return t == DType::Float8E4M3 || t == DType::Float8E5M2;
    };
    bool okIn = (da == db || (isF8(da) && isF8(db))) &&
                (da == DType::Float16 || da == DType::BFloat16 ||
                 da == DType::Float32 || isF8(da) || da == DType::Int8);
    if (!okIn)
      return fail("`T.gemm` operands must share one of float16, bfloat16, "
                  "float32, float8 or int8; got A " + da.name() + " and B " +
                  db.name());
    bool okAcc = da == DType::Int8 ? dc == DType::Int32
                                   : (dc == DType::Float32 || dc == DType::Float16);
    if (!okAcc)
      return fail("`T.gemm` cannot accumulate " + da.name() + " products into " +
                  dc.name() + " (use " +
                  (da == DType::Int8 ? "int32" : "float32") + ")");
    if (async && dc != DType::Float32)
      return fail("`T.wgmma_gemm` accumulates in float32 (wgmma's "
                  "accumulator), not " + dc.name());
    tile::GemmWarpPolicy policy = tile::GemmWarpPolicy::square;
    if ((*b)[5]) {
      const Value &p = (*b)[5]->value;
      if (!p.is(Value::Enum) || p.getEnum().enumName != "T.GemmWarpPolicy") {
        error((*b)[5]->range, "`policy` must be a T.GemmWarpPolicy member, got `" +
                                  p.repr() + "`");
        return failure();
      }
      StringRef m = p.getEnum().member;
      policy = m == "FullRow"   ? tile::GemmWarpPolicy::full_row
               : m == "FullCol" ? tile::GemmWarpPolicy::full_col
                                : tile::GemmWarpPolicy::square;
    }
    bool clear = (*b)[6] && (*b)[6]->value.truthy();
    int64_t kPack = 1, wgWait = 0;
    if (!async && (*b)[7]) {
      FailureOr<int64_t> v = requireInt(*(*b)[7], "`k_pack`");
      if (failed(v))
        return failure();
      kPack = *v;
    }
    if (!async && (*b)[8]) {
      FailureOr<int64_t> v = requireInt(*(*b)[8], "`wg_wait`");
      if (failed(v))
        return failure();
      wgWait = *v;
    }
    if (kPack <= 0) {
      error((*b)[7]->range, "`k_pack` must be positive");
      return failure();
    }
    SmallVector<mlir::Value> offsets[3];
    for (int k = 0; k < 3; ++k)
      if (regions[k])
        for (const Value &o : regions[k]->offsets) {
          FailureOr<mlir::Value> v = toIndex(o, (*b)[k]->range);
          if (failed(v))
            return failure();
          offsets[k].push_back(*v);
        }
    auto extentsOf = [&](int k) -> DenseI64ArrayAttr {
      if (!regions[k])
        return nullptr;
      return builder.getDenseI64ArrayAttr({shapes[k][0], shapes[k][1]});
    };
    auto op = tile::GemmOp::create(
        builder, loc(at), bufs[0]->memref, offsets[0], extentsOf(0),
        bufs[1]->memref, offsets[1], extentsOf(1), bufs[2]->memref, offsets[2],
        extentsOf(2), ta, tb, policy, clear, kPack, 0, false);
    op->setAttr("wg_wait", builder.getI64IntegerAttr(wgWait));
    op.setAsync(async);
    return Value::none();
  }

  if (name.starts_with("T.reduce_")) {
    StringRef kindName = name.drop_front(strlen("T.reduce_"));
    std::optional<tile::ReduceKind> kind =
        llvm::StringSwitch<std::optional<tile::ReduceKind>>(kindName)
            .Case("sum", tile::ReduceKind::sum)
            .Case("max", tile::ReduceKind::max)
            .Case("min", tile::ReduceKind::min)
            .Case("abssum", tile::ReduceKind::abssum)
            .Case("absmax", tile::ReduceKind::absmax)
            .Default(std::nullopt);
    if (!kind) {
      error(args.range, "unknown reduction `" + name + "` (expected reduce_sum, "
                        "reduce_max, reduce_min, reduce_abssum or reduce_absmax)");
      return failure();
    }
    if (failed(requireKernel(args)))
      return failure();
    auto b = bind({"buffer", "out", "dim", "clear"}, 2);
    if (failed(b))
      return failure();
    FailureOr<std::shared_ptr<BufferObject>> src = toBuffer(*(*b)[0], "the input of `" + name + "`");
    FailureOr<std::shared_ptr<BufferObject>> dst =
        failed(src) ? FailureOr<std::shared_ptr<BufferObject>>(failure())
                    : toBuffer(*(*b)[1], "the output of `" + name + "`");
    if (failed(src) || failed(dst))
      return failure();
    for (auto *x : {&*src, &*dst})
      if ((*x)->scope == MemScope::Global) {
        error(args.range, "`" + name + "` works on fragments and shared "
                          "buffers; `" + (*x)->name + "` is a global tensor");
        return failure();
      }
    int64_t rank = (*src)->shape.size();
    int64_t dim = -1;
    if ((*b)[2]) {
      FailureOr<int64_t> d = requireInt(*(*b)[2], "`dim`");
      if (failed(d))
        return failure();
      dim = *d;
    }
    if (dim < -rank || dim >= rank) {
      error((*b)[2] ? (*b)[2]->range : args.range,
            "`dim` " + Twine(dim) + " is out of range for the " + Twine(rank) +
                "-d buffer `" + (*src)->name + "`");
      return failure();
    }
    if (dim < 0)
      dim += rank;
    std::vector<Value> expect = (*src)->shape;
    expect.erase(expect.begin() + dim);
    std::vector<Value> keep = (*src)->shape;
    keep[dim] = Value::integer(1);
    if ((*dst)->shape != expect && (*dst)->shape != keep &&
        !(expect.empty() && (*dst)->shape.size() == 1 &&
          (*dst)->shape[0] == Value::integer(1))) {
      error(args.range, "`" + name + "` over dim " + Twine(dim) + " of `" +
                            (*src)->name + "` " + shapeText((*src)->shape) +
                            " gives " + shapeText(expect) + ", but `" +
                            (*dst)->name + "` is " + shapeText((*dst)->shape));
      note((*dst)->loc, "`" + (*dst)->name + "` declared here");
      return failure();
    }
    // Each element is converted to the output's dtype (TileLang's
    // reductions cast the same way): float16 may reduce into float32.
    if ((*src)->dtype.isFloat() != (*dst)->dtype.isFloat()) {
      error(args.range, "`" + name + "` input `" + (*src)->name + "` is " +
                            (*src)->dtype.name() + " but output `" +
                            (*dst)->name + "` is " + (*dst)->dtype.name());
      return failure();
    }
    bool clear = !(*b)[3] || (*b)[3]->value.truthy();
    // The SIMT lowering reduces fragments into fragments: a shared buffer
    // on either side goes through a fragment of its shape, as a user would
    // write it (TileLang reduces shared buffers directly; the generated
    // kernels' `T.reduce_sum(A_shared, ...)` was a located error).
    auto throughFragment = [&](const BufferObject &buf) -> mlir::Value {
      auto type = cast<MemRefType>(buf.memref.getType());
      auto fragType = tile::getBufferType(type.getShape(),
                                          type.getElementType(),
                                          tile::MemorySpace::fragment);
      Operation *kernel = builder.getInsertionBlock()->getParentOp();
      while (kernel && !isa<tile::KernelOp>(kernel))
        kernel = kernel->getParentOp();
      OpBuilder top(builder.getContext());
      top.setInsertionPointToStart(
          cast<tile::KernelOp>(kernel).getBody());
      return tile::AllocOp::create(top, loc(at), fragType,
                                   buf.name + "_reduce")
          .getResult();
    };
    auto copyWhole = [&](mlir::Value from, mlir::Value to) {
      auto type = cast<MemRefType>(from.getType());
      SmallVector<mlir::Value> zeros(
          type.getRank(), arith::ConstantIndexOp::create(builder, loc(at), 0));
      tile::CopyOp::create(builder, loc(at), from, zeros, type.getShape(), to,
                           zeros, type.getShape());
    };
    mlir::Value srcMem = (*src)->memref, dstMem = (*dst)->memref;
    if ((*src)->scope == MemScope::Shared) {
      srcMem = throughFragment(**src);
      copyWhole((*src)->memref, srcMem);
    }
    if ((*dst)->scope == MemScope::Shared) {
      dstMem = throughFragment(**dst);
      if (!clear)
        copyWhole((*dst)->memref, dstMem);
    }
    tile::ReduceOp::create(builder, loc(at), *kind, srcMem, dstMem, dim,
                           clear);
    if (dstMem != (*dst)->memref)
      copyWhole(dstMem, (*dst)->memref);
    return Value::none();
  }

  if (name == "T.cumsum" || name == "T.cummax") {
    if (failed(requireKernel(args)))
      return failure();
    auto b = bind({"src", "dst", "dim", "reverse"}, 1);
    if (failed(b))
      return failure();
    FailureOr<std::shared_ptr<BufferObject>> src = toBuffer(*(*b)[0], "the input of `" + name + "`");
    if (failed(src))
      return failure();
    std::shared_ptr<BufferObject> dst = *src;
    if ((*b)[1] && !(*b)[1]->value.isNone()) {
      FailureOr<std::shared_ptr<BufferObject>> d = toBuffer(*(*b)[1], "the output of `" + name + "`");
      if (failed(d))
        return failure();
      dst = *d;
    }
    int64_t rank = (*src)->shape.size(), dim = 0;
    if ((*b)[2]) {
      FailureOr<int64_t> d = requireInt(*(*b)[2], "`dim`");
      if (failed(d))
        return failure();
      dim = *d;
    }
    if (dim < -rank || dim >= rank) {
      error(args.range, "`dim` " + Twine(dim) + " is out of range for `" +
                            (*src)->name + "`");
      return failure();
    }
    if (dim < 0)
      dim += rank;
    if (dst->shape != (*src)->shape) {
      error(args.range, "`" + name + "` output `" + dst->name + "` " +
                            shapeText(dst->shape) + " must have the shape of `" +
                            (*src)->name + "` " + shapeText((*src)->shape));
      return failure();
    }
    bool reverse = (*b)[3] && (*b)[3]->value.truthy();
    tile::ScanOp::create(builder, loc(at),
                         name == "T.cumsum" ? tile::ScanKind::sum : tile::ScanKind::max,
                         (*src)->memref, dst->memref, dim, reverse);
    return Value::none();
  }

  if (name == "T.atomic_add") {
    if (failed(requireKernel(args)))
      return failure();
    // `use_tma` asks TileLang for a TMA bulk reduction of a tile; the sum
    // is the same, tilec adds with element atomics.
    auto b = bind({"dst", "value", "memory_order", "return_prev", "use_tma"}, 2);
    if (failed(b))
      return failure();
    const Value &d = (*b)[0]->value;
    auto isElement = [](const Value &v) {
      return v.is(Value::Subscript) &&
             v.getSubscript().indices.size() ==
                 v.getSubscript().base.getBuffer().shape.size() &&
             llvm::none_of(v.getSubscript().indices,
                           [](const Value &i) { return i.is(Value::Slice); });
    };
    const Value &val = (*b)[1]->value;
    bool tileValue = (val.is(Value::Buffer) &&
                      val.getBuffer().scope != MemScope::Var) ||
                     (val.is(Value::Subscript) && !isElement(val));
    if (tileValue || !isElement(d)) {
      // A tile into a tile (`T.atomic_add(C[by * 64, bx * 64], C_local)`):
      // element atomics over the box.
      if ((*b)[3] && (*b)[3]->value.truthy()) {
        error((*b)[3]->range, "`return_prev` needs the element form of "
                              "`T.atomic_add`");
        return failure();
      }
      FailureOr<Region> dst = toRegion(*(*b)[0], "the destination of `T.atomic_add`");
      if (failed(dst))
        return failure();
      FailureOr<Region> src = toRegion(*(*b)[1], "the value of `T.atomic_add`");
      if (failed(src))
        return failure();
      std::string problem = reconcile(*src, *dst);
      if (problem.empty())
        problem = checkInBounds(*src);
      if (!problem.empty()) {
        error(args.range, "`T.atomic_add`: " + problem);
        return failure();
      }
      if (dst->buffer->scope != MemScope::Global &&
          dst->buffer->scope != MemScope::Shared) {
        error((*b)[0]->range, "`T.atomic_add` needs a global or shared "
                              "destination; `" + dst->buffer->name + "` is a " +
                              spelling(dst->buffer->scope) + " buffer");
        return failure();
      }
      if (failed(emitTileAtomicAdd(*src, *dst, args.range)))
        return failure();
      return Value::none();
    }
    BufferObject &buf = d.getSubscript().base.getBuffer();
    if (buf.scope != MemScope::Global && buf.scope != MemScope::Shared) {
      error((*b)[0]->range, "`T.atomic_add` needs a global or shared "
                            "destination; `" + buf.name + "` is a " +
                            spelling(buf.scope) + " buffer");
      return failure();
    }
    if (failed(checkElementInBounds(d.getSubscript())))
      return failure();
    SmallVector<mlir::Value> idx;
    for (const Value &i : d.getSubscript().indices) {
      FailureOr<mlir::Value> v = toIndex(i, (*b)[0]->range);
      if (failed(v))
        return failure();
      idx.push_back(*v);
    }
    FailureOr<Value> s = toScalar((*b)[1]->value, (*b)[1]->range);
    if (failed(s))
      return failure();
    FailureOr<mlir::Value> v = toIR(*s, irType(buf.dtype), (*b)[1]->range);
    if (failed(v))
      return failure();
    if (failed(remapIndices(buf, idx, (*b)[0]->range)))
      return failure();
    if ((*b)[3] && (*b)[3]->value.truthy()) {
      // `return_prev=True`: the element's value before the add.
      bool isFloat = buf.dtype.isFloat();
      auto rmw = memref::AtomicRMWOp::create(
          builder, loc(at),
          isFloat ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi,
          *v, buf.memref, idx);
      return wrapRuntime(rmw.getResult(), buf.dtype, /*isIndex=*/false);
    }
    tile::AtomicAddOp::create(builder, loc(at), buf.memref, idx, *v);
    return Value::none();
  }

  //===------------------------------------------------------------------===//
  // Loops
  //===------------------------------------------------------------------===//
  if (name == "T.Parallel") {
    auto spec = std::make_shared<sema::LoopSpec>();
    spec->kind = sema::LoopSpec::Parallel;
    spec->loc = at;
    for (auto &kw : args.keywords) {
      // TileLang merges `annotations` into the loop's attributes, hints
      // for its lowering passes (e.g. cp.async without commit/wait);
      // tilec's lowering takes none of them, but the dict must still be
      // one a Python caller could have passed.
      if (kw.first == "annotations" && !kw.second.value.is(Value::Dict) &&
          !kw.second.value.isNone()) {
        error(kw.second.range, "`annotations` of `T.Parallel` must be a "
                               "dict, got `" +
                                   kw.second.value.repr() + "`");
        return failure();
      }
      if (kw.first != "coalesced_width" && kw.first != "loop_layout" &&
          kw.first != "prefer_async" && kw.first != "annotations") {
        error(kw.second.range, "`T.Parallel` got an unexpected keyword "
                               "argument `" + kw.first + "`");
        return failure();
      }
    }
    if (pos.empty()) {
      error(args.range, "`T.Parallel` needs at least one extent");
      return failure();
    }
    for (const Arg &a : pos) {
      if (!a.value.isIntLike() || a.value.getInt() <= 0) {
        error(a.range, "`T.Parallel` extents must be positive compile-time "
                       "integers, got " +
                           (a.value.isConstant() ? "`" + a.value.repr() + "`"
                                                 : std::string("a runtime value")) +
                           constHint(a.value));
        return failure();
      }
      spec->extents.push_back(a.value.getInt());
    }
    // Loop indices are 32-bit in kernels: a larger space would wrap.
    int64_t total = 1;
    for (int64_t extent : spec->extents)
      if (__builtin_mul_overflow(total, extent, &total) || total > INT32_MAX) {
        error(args.range, "`T.Parallel` has more iterations than the " +
                              Twine(INT32_MAX) +
                              " a 32-bit loop index can count");
        return failure();
      }
    return Value::loop(spec);
  }
  if (name == "T.Pipelined" || name == "T.serial" || name == "T.unroll" ||
      name == "T.vectorized") {
    bool pipelined = name == "T.Pipelined";
    auto b = pipelined
                 ? bind({"start", "stop", "num_stages", "order", "stage", "sync", "group"}, 1)
                 : bind({"start", "stop", "step", "explicit", "unroll_factor"}, 1);
    if (failed(b))
      return failure();
    auto spec = std::make_shared<sema::LoopSpec>();
    spec->kind = pipelined ? sema::LoopSpec::Pipelined
                 : name == "T.unroll"     ? sema::LoopSpec::Unroll
                 : name == "T.vectorized" ? sema::LoopSpec::Vectorized
                                          : sema::LoopSpec::Serial;
    spec->loc = at;
    bool hasStop = (*b)[1] && !(*b)[1]->value.isNone();
    spec->start = hasStop ? (*b)[0]->value : Value::integer(0);
    spec->stop = hasStop ? (*b)[1]->value : (*b)[0]->value;
    spec->step = Value::integer(1);
    if (!pipelined && (*b)[2])
      spec->step = (*b)[2]->value;
    // A T.alloc_var bound is read once, where the loop starts (TileLang's
    // loop extent is the variable's value there).
    for (Value *v : {&spec->start, &spec->stop, &spec->step})
      if (v->is(Value::Buffer) && v->getBuffer().scope == MemScope::Var) {
        FailureOr<Value> s = toScalar(*v, args.range);
        if (failed(s))
          return failure();
        *v = *s;
      }
    for (const Value *v : {&spec->start, &spec->stop, &spec->step})
      if (!(v->isIntLike() || v->is(Value::Runtime) || v->is(Value::Symbol) ||
            v->is(Value::Subscript))) {
        error(args.range, "`" + name + "` bounds must be integers, got `" +
                              v->repr() + "`");
        return failure();
      }
    if (spec->step.isIntLike() && spec->step.getInt() <= 0) {
      error(args.range, "`" + name + "` step must be positive");
      return failure();
    }
    if (spec->kind == sema::LoopSpec::Serial && wideLoopTrips(*spec)) {
      if (*wideLoopTrips(*spec) > kMaxWideTrips) {
        error(args.range, "`T.serial` of " + Twine(*wideLoopTrips(*spec)) +
                              " iterations is more than the " +
                              Twine(kMaxWideTrips) + " tilec can count");
        return failure();
      }
      spec->wide = true;
    } else if (auto [why, bound] = loopRangeProblem(name, *spec);
               !why.empty()) {
      // Point at the bound that does not fit, else at the call.
      const std::optional<Arg> *at = nullptr;
      if (bound == 0 && hasStop)
        at = &(*b)[0];
      else if (bound == 1)
        at = hasStop ? &(*b)[1] : &(*b)[0];
      else if (bound == 2)
        at = &(*b)[2];
      error(at && *at ? (*at)->range : args.range, why);
      return failure();
    }
    if (pipelined) {
      if ((*b)[2]) {
        FailureOr<int64_t> n = requireInt(*(*b)[2], "`num_stages`");
        if (failed(n))
          return failure();
        if (*n < 0) {
          error((*b)[2]->range, "`num_stages` must not be negative");
          return failure();
        }
        spec->numStages = *n;
      }
      auto ints = [&](const Arg &a, std::vector<int64_t> &out) -> LogicalResult {
        if (!a.value.isSequence()) {
          error(a.range, "expected a list of integers");
          return failure();
        }
        for (const Value &v : a.value.getElements()) {
          if (!v.isIntLike()) {
            error(a.range, "expected a list of integers");
            return failure();
          }
          out.push_back(v.getInt());
        }
        return success();
      };
      if ((*b)[3] && !(*b)[3]->value.isNone()) {
        if (failed(ints(*(*b)[3], spec->order)))
          return failure();
        spec->orderRange = (*b)[3]->range;
      }
      if ((*b)[4] && !(*b)[4]->value.isNone()) {
        if (failed(ints(*(*b)[4], spec->stage)))
          return failure();
        spec->stageRange = (*b)[4]->range;
      }
      // TileLang's schedules: `order` a permutation of the statement (or
      // group) positions, `stage` non-negative. Its warp-specialized form
      // marks statements with -1; tilec has no such schedule yet.
      for (auto [list, what, range] :
           {std::tuple{&spec->order, "order", spec->orderRange},
            std::tuple{&spec->stage, "stage", spec->stageRange}})
        for (int64_t v : *list)
          if (v < 0) {
            error(range, "negative `" + Twine(what) + "` entry " + Twine(v) +
                             " (TileLang's warp-specialized schedules) is "
                             "not supported");
            return failure();
          }
      for (size_t i = 0; i < spec->order.size(); ++i)
        for (size_t j = 0; j < i; ++j)
          if (spec->order[i] == spec->order[j]) {
            error(spec->orderRange,
                  "duplicate entry " + Twine(spec->order[i]) +
                      " in `order`: each statement needs its own position");
            return failure();
          }
      if (!spec->order.empty() && !spec->stage.empty() &&
          spec->order.size() != spec->stage.size()) {
        error(args.range, "`order` has " + Twine(spec->order.size()) +
                              " entries but `stage` has " +
                              Twine(spec->stage.size()));
        return failure();
      }
      if ((*b)[6] && !(*b)[6]->value.isNone()) {
        spec->groupRange = (*b)[6]->range;
        if (!(*b)[6]->value.isSequence()) {
          error((*b)[6]->range, "`group` must be a list of lists of integers");
          return failure();
        }
        for (const Value &g : (*b)[6]->value.getElements()) {
          std::vector<int64_t> grp;
          if (failed(ints(Arg{g, (*b)[6]->range}, grp)))
            return failure();
          spec->group.push_back(grp);
        }
        if (!spec->order.empty() && spec->order.size() != spec->group.size()) {
          error(args.range, "`order` and `stage` need one entry per `group`");
          return failure();
        }
      }
    }
    return Value::loop(spec);
  }

  //===------------------------------------------------------------------===//
  // Scheduling and layouts
  //===------------------------------------------------------------------===//
  if (name == "T.use_swizzle") {
    if (failed(requireKernel(args)))
      return failure();
    auto b = bind({"panel_size", "order", "enable"}, 1);
    if (failed(b))
      return failure();
    FailureOr<int64_t> panel = requireInt(*(*b)[0], "`panel_size`");
    if (failed(panel))
      return failure();
    if (*panel <= 0) {
      error((*b)[0]->range, "`panel_size` must be positive, got " + Twine(*panel));
      return failure();
    }
    tile::SwizzleOrder order = tile::SwizzleOrder::row;
    if ((*b)[1]) {
      const Value &o = (*b)[1]->value;
      if (!o.is(Value::Str) || (o.getStr() != "row" && o.getStr() != "col")) {
        error((*b)[1]->range, "`order` must be \"row\" or \"col\", got `" +
                                  o.repr() + "`");
        return failure();
      }
      order = o.getStr() == "col" ? tile::SwizzleOrder::col : tile::SwizzleOrder::row;
    }
    bool enable = !(*b)[2] || (*b)[2]->value.truthy();
    tile::UseSwizzleOp::create(builder, loc(at), *panel, order, enable);
    return Value::none();
  }
  if (name == "T.annotate_layout") {
    if (failed(requireKernel(args)))
      return failure();
    auto b = bind({"layout_map"}, 1);
    if (failed(b))
      return failure();
    if (!(*b)[0]->value.is(Value::Dict)) {
      error((*b)[0]->range, "`T.annotate_layout` takes a dict {buffer: layout}");
      return failure();
    }
    for (const auto &[k, v] : (*b)[0]->value.getItems()) {
      if (!k.is(Value::Buffer) || !v.is(Value::Layout)) {
        error((*b)[0]->range, "`T.annotate_layout` maps buffers to layouts; "
                              "got `" + k.repr() + ": " + v.repr() + "`");
        return failure();
      }
      BufferObject &buf = k.getBuffer();
      if (failed(refuseReshapeView(buf, (*b)[0]->range, "`T.annotate_layout`")) ||
          failed(refuseFragmentView(buf, (*b)[0]->range, "`T.annotate_layout`")))
        return failure();
      if (v.getLayout().constructor == "index_map") {
        if (failed(annotateIndexMap(buf, v.getLayout(), (*b)[0]->range)))
          return failure();
        continue;
      }
      // make_swizzled_layout, the one other layout constructor: tilec
      // chooses the swizzle (#tile.any_swizzle).
      if (buf.scope != MemScope::Shared) {
        error((*b)[0]->range, "`T.annotate_layout` of a swizzled layout "
                              "applies to shared buffers; `" +
                                  buf.name + "` is " + spelling(buf.scope));
        return failure();
      }
      tile::AnnotateLayoutOp::create(
          builder, loc(at), buf.memref,
          tile::AnySwizzleAttr::get(builder.getContext()));
    }
    return Value::none();
  }
  if (name == "T.make_swizzled_layout" ||
      name == "tilelang.layout.make_swizzled_layout") {
    auto b = bind({"buffer"}, 1);
    if (failed(b))
      return failure();
    FailureOr<std::shared_ptr<BufferObject>> buf = toBuffer(*(*b)[0], "the buffer of `make_swizzled_layout`");
    if (failed(buf))
      return failure();
    auto lay = std::make_shared<sema::LayoutObject>();
    lay->constructor = "make_swizzled_layout";
    return Value::layout(lay);
  }
  // TileLang's swizzle for shared tiles that ldmatrix reads; like
  // make_swizzled_layout it leaves tilec to choose the swizzle (the choice
  // never changes what a program computes). `is_smooth=True` asks for
  // TileLang's unswizzled layout of its ladder transforms instead.
  if (name == "tilelang.cuda.intrinsics.make_mma_swizzle_layout") {
    auto b = bind({"shared_buf", "is_smooth"}, 1);
    if (failed(b))
      return failure();
    FailureOr<std::shared_ptr<BufferObject>> buf = toBuffer(
        *(*b)[0], "the buffer of `make_mma_swizzle_layout`");
    if (failed(buf))
      return failure();
    if ((*b)[1] && !(*b)[1]->value.isNone() &&
        !((*b)[1]->value.isConstant() && !(*b)[1]->value.truthy())) {
      error((*b)[1]->range, "`make_mma_swizzle_layout` with `is_smooth` "
                            "other than False is not supported yet by tilec");
      return failure();
    }
    auto lay = std::make_shared<sema::LayoutObject>();
    lay->constructor = "make_swizzled_layout";
    return Value::layout(lay);
  }
  if (name == "T.Layout") {
    // An index map; T.annotate_layout decides where it can be honored.
    auto b = bind({"shape", "forward_fn"}, 2);
    if (failed(b))
      return failure();
    auto lay = std::make_shared<sema::LayoutObject>();
    lay->constructor = "index_map";
    lay->args = {(*b)[0]->value, (*b)[1]->value};
    return Value::layout(lay);
  }
  if (name == "T.Fragment") {
    error(args.range, "`T.Fragment` with a layout function is not supported "
                      "yet: tilec infers fragment layouts itself (a "
                      "`T.Layout` index map is honored on global tensors)");
    return failure();
  }

  //===------------------------------------------------------------------===//
  // Debugging and synchronization
  //===------------------------------------------------------------------===//
  if (name == "T.print") {
    if (failed(requireKernel(args)))
      return failure();
    auto b = bind({"obj", "msg"}, 1);
    if (failed(b))
      return failure();
    std::string msg;
    if ((*b)[1]) {
      if (!(*b)[1]->value.is(Value::Str)) {
        error((*b)[1]->range, "`msg` must be a string");
        return failure();
      }
      msg = (*b)[1]->value.getStr();
    }
    mlir::Value v;
    const Value &obj = (*b)[0]->value;
    if (obj.is(Value::Buffer) && obj.getBuffer().scope != MemScope::Var) {
      if (failed(
              refuseReshapeView(obj.getBuffer(), (*b)[0]->range, "`T.print`")) ||
          failed(refuseFragmentView(obj.getBuffer(), (*b)[0]->range,
                                    "`T.print`")))
        return failure();
      v = obj.getBuffer().memref;
    } else {
      FailureOr<Value> s = toScalar(obj, (*b)[0]->range);
      if (failed(s))
        return failure();
      FailureOr<mlir::Value> iv = s->is(Value::Runtime)
                                      ? FailureOr<mlir::Value>(s->getRuntime().value)
                                      : toIR(*s, s->is(Value::Float)
                                                     ? (Type)builder.getF32Type()
                                                     : (Type)builder.getI32Type(),
                                             (*b)[0]->range);
      if (failed(iv))
        return failure();
      v = *iv;
    }
    tile::PrintOp::create(builder, loc(at), v, msg);
    return Value::none();
  }
  if (name == "T.device_assert") {
    if (failed(requireKernel(args)))
      return failure();
    auto b = bind({"condition", "msg"}, 1);
    if (failed(b))
      return failure();
    std::string msg = (*b)[1] && (*b)[1]->value.is(Value::Str) ? (*b)[1]->value.getStr() : "";
    const Value &c = (*b)[0]->value;
    if (c.isConstant()) {
      if (!c.truthy()) {
        error((*b)[0]->range, "`T.device_assert` condition is always false" +
                                  (msg.empty() ? Twine("") : ": " + msg));
        return failure();
      }
      return Value::none();
    }
    FailureOr<Value> s = toScalar(c, (*b)[0]->range);
    if (failed(s))
      return failure();
    FailureOr<Value> cond = castTo(*s, DType::Bool, (*b)[0]->range);
    if (failed(cond))
      return failure();
    tile::DeviceAssertOp::create(builder, loc(at), cond->getRuntime().value, msg);
    return Value::none();
  }
  if (name == "T.sync_grid") {
    // A barrier of every thread of every block (TileLang's
    // cooperative_groups grid sync): the kernel needs a cooperative launch,
    // which its tile.kernel records for the launch header.
    if (failed(requireKernel(args)) || failed(bind({}, 0)))
      return failure();
    if (StringRef(options.target).starts_with("gfx")) {
      error(args.range, "`T.sync_grid` is not supported yet for target " +
                            options.target + " in this version of tilec");
      return failure();
    }
    Operation *kernel = builder.getInsertionBlock()->getParentOp();
    while (kernel && !isa<tile::KernelOp>(kernel)) {
      if (isa<tile::ParallelOp, tile::PipelinedOp>(kernel)) {
        error(args.range, "`T.sync_grid` inside a T.Parallel or T.Pipelined "
                          "loop is not supported; call it where every "
                          "thread of the block runs");
        return failure();
      }
      kernel = kernel->getParentOp();
    }
    if (!kernel) {
      error(args.range, "`T.sync_grid` must be inside a T.Kernel block");
      return failure();
    }
    kernel->setAttr("tile.cooperative", builder.getUnitAttr());
    auto op = tile::BarrierOp::create(builder, loc(at));
    op->setAttr("tile.grid_sync", builder.getUnitAttr());
    return Value::none();
  }
  if (name == "T.sync_threads" || name == "T.syncthreads") {
    // TileLang's `T.sync_threads(barrier_id, arrive_count)` is `bar.sync id,
    // count`: a barrier among the `count` threads that reach it. tilec
    // numbers the barriers of thread ranges itself (tile-lower-simt's
    // thread guards), so the count is checked against the threads that do
    // reach it and the id is only checked to be a hardware barrier.
    if (failed(requireKernel(args)))
      return failure();
    auto b = bind({"barrier_id", "arrive_count"}, 0);
    if (failed(b))
      return failure();
    std::optional<int64_t> count;
    for (int k = 0; k < 2; ++k) {
      if (!(*b)[k] || (*b)[k]->value.isNone())
        continue;
      FailureOr<int64_t> v =
          requireInt(*(*b)[k], k == 0 ? "`barrier_id`" : "`arrive_count`");
      if (failed(v))
        return failure();
      if (k == 0 && (*v < 0 || *v > 15)) {
        error((*b)[k]->range, "`barrier_id` must be a hardware barrier, 0 "
                              "to 15, not " + Twine(*v));
        return failure();
      }
      if (k == 1 && *v <= 0) {
        error((*b)[k]->range, "`arrive_count` must be positive, not " +
                                  Twine(*v));
        return failure();
      }
      if (k == 1)
        count = *v;
    }
    auto op = tile::BarrierOp::create(builder, loc(at));
    if (count)
      op->setAttr("tile.arrive_count", builder.getI64IntegerAttr(*count));
    return Value::none();
  }
  if (name == "T.barrier_wait") {
    if (failed(requireKernel(args)) || failed(bind({}, 0)))
      return failure();
    tile::BarrierOp::create(builder, loc(at));
    return Value::none();
  }

  //===------------------------------------------------------------------===//
  // Scalar math
  //===------------------------------------------------------------------===//
  if (name == "T.infinity" || name == "T.max_value" || name == "T.min_value") {
    auto b = bind({"dtype"}, 1);
    if (failed(b))
      return failure();
    FailureOr<DType> dt = requireDType(*(*b)[0]);
    if (failed(dt))
      return failure();
    double v;
    if (name == "T.infinity") {
      if (!dt->isFloat()) {
        error((*b)[0]->range, "`T.infinity` needs a float dtype, not " + dt->name());
        return failure();
      }
      v = std::numeric_limits<double>::infinity();
    } else if (dt->isFloat()) {
      const llvm::fltSemantics &sem = llvm::cast<FloatType>(irType(*dt)).getFloatSemantics();
      llvm::APFloat big = llvm::APFloat::getLargest(sem, name == "T.min_value");
      v = big.convertToDouble();
    } else {
      unsigned bits = dt->bits();
      if (dt->isBool())
        v = name == "T.max_value" ? 1 : 0;
      else if (dt->isSigned())
        v = name == "T.max_value" ? double((uint64_t(1) << (bits - 1)) - 1)
                                  : -double(uint64_t(1) << (bits - 1));
      else
        v = name == "T.max_value" ? double(~uint64_t(0) >> (64 - bits)) : 0;
      Value iv = Value::integer(int64_t(v));
      return traced && kernelDepth > 0 ? castTo(iv, *dt, args.range)
                                       : FailureOr<Value>(iv);
    }
    Value fv = Value::floating(v);
    return traced && kernelDepth > 0 ? castTo(fv, *dt, args.range)
                                     : FailureOr<Value>(fv);
  }
  if (name == "T.cast" || name == "T.Cast") {
    auto b = name == "T.cast" ? bind({"value", "dtype"}, 2) : bind({"dtype", "value"}, 2);
    if (failed(b))
      return failure();
    const Arg &dtArg = name == "T.cast" ? *(*b)[1] : *(*b)[0];
    const Arg &vArg = name == "T.cast" ? *(*b)[0] : *(*b)[1];
    FailureOr<DType> dt = requireDType(dtArg);
    if (failed(dt))
      return failure();
    return castTo(vArg.value, *dt, args.range);
  }
  if (name == "T.if_then_else" || name == "T.Select") {
    auto b = bind({"cond", "true_value", "false_value"}, 3);
    if (failed(b))
      return failure();
    const Value &c = (*b)[0]->value;
    if (c.isConstant())
      return c.truthy() ? (*b)[1]->value : (*b)[2]->value;
    FailureOr<Value> cs = toScalar(c, (*b)[0]->range);
    FailureOr<Value> ts = failed(cs) ? FailureOr<Value>(failure())
                                     : materialize((*b)[1]->value, (*b)[1]->range);
    FailureOr<Value> fs = failed(ts) ? FailureOr<Value>(failure())
                                     : materialize((*b)[2]->value, (*b)[2]->range);
    if (failed(fs))
      return failure();
    FailureOr<Value> cond = castTo(*cs, DType::Bool, (*b)[0]->range);
    if (failed(cond))
      return failure();
    // The result type: the runtime operands' common type, else float32
    // for float literals and int32 for int literals.
    std::optional<DType> t;
    bool index = false;
    for (const Value *v : {&*ts, &*fs})
      if (v->is(Value::Runtime)) {
        t = t ? promoteScalar(*t, v->getRuntime().dtype) : v->getRuntime().dtype;
        index |= v->getRuntime().isIndex;
      }
    if (!t)
      t = (ts->is(Value::Float) || fs->is(Value::Float)) ? DType::Float32 : DType::Int32;
    if (index && !t->isFloat()) {
      FailureOr<mlir::Value> a = toIndex(*ts, (*b)[1]->range), bb = toIndex(*fs, (*b)[2]->range);
      if (failed(a) || failed(bb))
        return failure();
      return wrapRuntime(arith::SelectOp::create(builder, loc(at),
                                                 cond->getRuntime().value, *a, *bb),
                         DType::Int32, true);
    }
    FailureOr<mlir::Value> a = toIR(*ts, irType(*t), (*b)[1]->range);
    FailureOr<mlir::Value> bb = toIR(*fs, irType(*t), (*b)[2]->range);
    if (failed(a) || failed(bb))
      return failure();
    return wrapRuntime(arith::SelectOp::create(builder, loc(at),
                                               cond->getRuntime().value, *a, *bb),
                       *t, false);
  }
  if (name == "T.max" || name == "T.min") {
    if (pos.size() != 2 || !args.keywords.empty()) {
      error(args.range, "`" + name + "` takes two arguments");
      return failure();
    }
    return callPythonBuiltin(name.drop_front(2), args);
  }
  if (name == "T.clamp") {
    auto b = bind({"x", "lo", "hi"}, 3);
    if (failed(b))
      return failure();
    FailureOr<Value> lo = runtimeBinary(BinaryOpLike::Max, (*b)[0]->value, (*b)[1]->value, args.range);
    if (failed(lo))
      return failure();
    return runtimeBinary(BinaryOpLike::Min, *lo, (*b)[2]->value, args.range);
  }

  // Unary float math.
  static const char *kUnary[] = {"exp", "exp2", "log", "log2", "log10",
                                 "sqrt", "rsqrt", "tanh", "sigmoid", "abs",
                                 "floor", "ceil", "sin", "cos", "erf",
                                 "trunc", "round", "fabs", "exp10"};
  StringRef fn = name.drop_front(2);
  bool unary = llvm::is_contained(kUnary, fn);
  if (unary || fn == "pow") {
    unsigned n = unary ? 1 : 2;
    if (pos.size() != n || !args.keywords.empty()) {
      error(args.range, "`" + name + "` takes " + Twine(n) + " argument" +
                            (n == 1 ? "" : "s"));
      return failure();
    }
    if (llvm::all_of(pos, [](const Arg &a) { return a.value.isNumber(); })) {
      double x = pos[0].value.getFloat();
      double r;
      if (fn == "abs" || fn == "fabs") {
        if (pos[0].value.isIntLike() && fn == "abs")
          return Value::integer(std::llabs(pos[0].value.getInt()));
        r = std::fabs(x);
      } else if (fn == "exp") r = std::exp(x);
      else if (fn == "exp2") r = std::exp2(x);
      else if (fn == "exp10") r = std::pow(10.0, x);
      else if (fn == "log") r = std::log(x);
      else if (fn == "log2") r = std::log2(x);
      else if (fn == "log10") r = std::log10(x);
      else if (fn == "sqrt") r = std::sqrt(x);
      else if (fn == "rsqrt") r = 1.0 / std::sqrt(x);
      else if (fn == "tanh") r = std::tanh(x);
      else if (fn == "sigmoid") r = 1.0 / (1.0 + std::exp(-x));
      else if (fn == "floor") r = std::floor(x);
      else if (fn == "ceil") r = std::ceil(x);
      else if (fn == "sin") r = std::sin(x);
      else if (fn == "cos") r = std::cos(x);
      else if (fn == "erf") r = std::erf(x);
      else if (fn == "trunc") r = std::trunc(x);
      else if (fn == "round") r = std::nearbyint(x);
      else r = std::pow(x, pos[1].value.getFloat());
      return Value::floating(r);
    }
    FailureOr<Value> xs = materialize(pos[0].value, pos[0].range);
    if (failed(xs))
      return failure();
    if (fn == "abs" && xs->is(Value::Runtime) && !xs->getRuntime().dtype.isFloat()) {
      FailureOr<mlir::Value> iv = xs->getRuntime().isIndex
                                      ? toIndex(*xs, pos[0].range)
                                      : FailureOr<mlir::Value>(xs->getRuntime().value);
      if (failed(iv))
        return failure();
      return wrapRuntime(math::AbsIOp::create(builder, loc(at), *iv),
                         xs->getRuntime().dtype, xs->getRuntime().isIndex);
    }
    DType t = xs->is(Value::Runtime) && xs->getRuntime().dtype.isFloat() &&
                      !xs->getRuntime().isIndex
                  ? xs->getRuntime().dtype
                  : DType(DType::Float32);
    if (!unary && pos[1].value.is(Value::Runtime) &&
        pos[1].value.getRuntime().dtype.isFloat())
      t = promoteScalar(t, pos[1].value.getRuntime().dtype);
    FailureOr<mlir::Value> x = toIR(*xs, irType(t), pos[0].range);
    if (failed(x))
      return failure();
    Location l = loc(at);
    mlir::Value r;
    if (fn == "exp") r = math::ExpOp::create(builder, l, *x);
    else if (fn == "exp2") r = math::Exp2Op::create(builder, l, *x);
    else if (fn == "exp10")
      r = math::PowFOp::create(builder, l,
                               arith::ConstantOp::create(builder, l, irType(t),
                                   builder.getFloatAttr(irType(t), 10.0)), *x);
    else if (fn == "log") r = math::LogOp::create(builder, l, *x);
    else if (fn == "log2") r = math::Log2Op::create(builder, l, *x);
    else if (fn == "log10") r = math::Log10Op::create(builder, l, *x);
    else if (fn == "sqrt") r = math::SqrtOp::create(builder, l, *x);
    else if (fn == "rsqrt") r = math::RsqrtOp::create(builder, l, *x);
    else if (fn == "tanh") r = math::TanhOp::create(builder, l, *x);
    else if (fn == "abs" || fn == "fabs") r = math::AbsFOp::create(builder, l, *x);
    else if (fn == "floor") r = math::FloorOp::create(builder, l, *x);
    else if (fn == "ceil") r = math::CeilOp::create(builder, l, *x);
    else if (fn == "sin") r = math::SinOp::create(builder, l, *x);
    else if (fn == "cos") r = math::CosOp::create(builder, l, *x);
    else if (fn == "erf") r = math::ErfOp::create(builder, l, *x);
    else if (fn == "trunc") r = math::TruncOp::create(builder, l, *x);
    else if (fn == "round") r = math::RoundEvenOp::create(builder, l, *x);
    else if (fn == "sigmoid") {
      // 1 / (1 + exp(-x))
      Type ty = irType(t);
      mlir::Value one = arith::ConstantOp::create(builder, l, ty, builder.getFloatAttr(ty, 1.0));
      mlir::Value e = math::ExpOp::create(builder, l, arith::NegFOp::create(builder, l, *x));
      r = arith::DivFOp::create(builder, l, one, arith::AddFOp::create(builder, l, one, e));
    } else {
      FailureOr<mlir::Value> y = toIR(pos[1].value, irType(t), pos[1].range);
      if (failed(y))
        return failure();
      r = math::PowFOp::create(builder, l, *x, *y);
    }
    return wrapRuntime(r, t, false);
  }

  if (isNotSupportedYet(name.drop_front(2))) {
    error(args.range, "`" + name + "` is not supported yet by tilec (see "
                      "docs/language.md, section 11)");
    return failure();
  }
  error(args.range, "`" + name + "` is not a TileLang primitive that tilec "
                    "knows");
  return failure();
}

//===----------------------------------------------------------------------===//
// with T.Kernel(...) as (bx, by):
//===----------------------------------------------------------------------===//

Flow Elaborator::execWith(const ast::WithStmt &s, Frame &frame) {
  // `with T.Kernel(...) as bx, iket.range("name"):`: trace scopes after the
  // kernel are accepted (they record nothing, see TileLangModules.cpp).
  for (size_t k = 1; k < s.getItems().size(); ++k) {
    const ast::WithItem &extra = s.getItems()[k];
    FailureOr<Value> v = extra.target ? FailureOr<Value>(Value::none())
                                      : eval(*extra.context, frame);
    if (failed(v))
      return Flow::Error;
    if (!v->is(Value::Builtin) ||
        v->getBuiltin() != "tilelang.tools.cuda.iket.range") {
      error(extra.context->getRange(),
            "`with` takes one T.Kernel(...) here (and iket.range scopes)");
      return Flow::Error;
    }
  }
  const ast::WithItem &item = s.getItems()[0];
  auto *call = llvm::dyn_cast<ast::CallExpr>(item.context.get());
  FailureOr<Value> callee = call ? eval(*call->getCallee(), frame)
                                 : FailureOr<Value>(Value::none());
  if (failed(callee))
    return Flow::Error;
  if (call && callee->is(Value::Builtin) && callee->getBuiltin() == "T.ws") {
    FailureOr<CallArgs> wsArgs = evalCallArgs(*call, frame);
    if (failed(wsArgs))
      return Flow::Error;
    return execWs(s, *wsArgs, frame);
  }
  if (!call || !callee->is(Value::Builtin) || callee->getBuiltin() != "T.Kernel") {
    // TileLang's other scopes (Blackwell's T.ClusterKernel, the T.WS*
    // warp-specialization API) are known: say they are not supported yet.
    if (call && callee->is(Value::Builtin) &&
        StringRef(callee->getBuiltin()).starts_with("T.") &&
        isNotSupportedYet(StringRef(callee->getBuiltin()).drop_front(2))) {
      error(call->getCallee()->getRange(),
            "`" + callee->getBuiltin() +
                "` is not supported yet by tilec (see docs/language.md, "
                "section 11)");
      return Flow::Error;
    }
    error(item.context->getRange(), "only `with T.Kernel(...)` is supported "
                                    "in .tile files");
    return Flow::Error;
  }
  if (!traced) {
    error(item.context->getRange(), "`T.Kernel` must be inside a @T.prim_func");
    return Flow::Error;
  }
  if (kernelDepth > 0) {
    error(item.context->getRange(), "`T.Kernel` blocks cannot be nested");
    return Flow::Error;
  }
  FailureOr<CallArgs> args = evalCallArgs(*call, frame);
  if (failed(args))
    return Flow::Error;
  args->callee = "T.Kernel";
  int64_t threads = 128;
  SmallVector<int64_t, 3> dims;
  for (auto &[kw, arg] : args->keywords) {
    if (kw == "threads") {
      Value t = arg.value;
      if (t.isSequence() && t.getElements().size() > 1) {
        // A 2-d or 3-d block: the same threads in one dimension.
        if (t.getElements().size() > 3) {
          error(arg.range, "`threads` takes 1 to 3 extents, got " +
                               Twine(t.getElements().size()));
          return Flow::Error;
        }
        int64_t product = 1;
        dims.clear();
        for (const Value &d : t.getElements()) {
          if (!d.isIntLike() || d.getInt() <= 0) {
            error(arg.range, "`threads` extents must be positive integers, "
                             "got `" + t.repr() + "`" + constHint(t));
            return Flow::Error;
          }
          product *= d.getInt();
          dims.push_back(d.getInt());
        }
        t = Value::integer(product);
      } else if (t.isSequence()) {
        t = t.getElements().empty() ? t : t.getElements()[0];
      }
      if (!t.isIntLike() || t.getInt() <= 0 || t.getInt() > 1024) {
        error(arg.range, "`threads` must be an integer in 1..1024, got `" +
                             t.repr() + "`" + constHint(t));
        return Flow::Error;
      }
      threads = t.getInt();
    } else if (kw == "is_cpu" || kw == "prelude") {
      if (arg.value.truthy()) {
        error(arg.range, "`T.Kernel(" + kw + "=...)` is not supported by tilec");
        return Flow::Error;
      }
    } else {
      error(arg.range, "`T.Kernel` got an unexpected keyword argument `" + kw +
                           "` (expected `threads`)");
      return Flow::Error;
    }
  }
  auto &grid = args->positional;
  // TileLang's `with T.Kernel():` binds no block index: a grid of one
  // block (KernelLaunch with no blockIdx frames).
  if (grid.empty() && !item.target)
    grid.push_back(Arg{Value::integer(1), call->getRange()});
  if (grid.empty() || grid.size() > 3) {
    error(call->getRange(), "`T.Kernel` takes 1 to 3 grid extents, got " +
                                Twine(grid.size()));
    return Flow::Error;
  }
  SmallVector<mlir::Value> extents;
  SmallVector<Attribute> hostExprs;
  for (const Arg &g : grid) {
    Value v = g.value;
    if (v.is(Value::Symbol)) {
      FailureOr<Value> m = materialize(v, g.range);
      if (failed(m))
        return Flow::Error;
      v = *m;
    }
    if (v.isIntLike()) {
      if (v.getInt() <= 0) {
        error(g.range, "grid extent must be positive, got " + Twine(v.getInt()));
        return Flow::Error;
      }
      // The launch limits of CUDA (and HIP): a grid beyond them never runs.
      size_t axis = &g - grid.data();
      int64_t limit = axis == 0 ? int64_t(INT32_MAX) : 65535;
      if (v.getInt() > limit) {
        error(g.range, "grid extent " + Twine(v.getInt()) + " along " +
                           StringRef(&"xyz"[axis], 1) + " is more than the " +
                           Twine(limit) + " blocks a launch may have there");
        return Flow::Error;
      }
      hostExprs.push_back(builder.getStringAttr(std::to_string(v.getInt())));
    } else if (v.is(Value::Runtime) && !v.getRuntime().hostExpr.empty()) {
      hostExprs.push_back(builder.getStringAttr(v.getRuntime().hostExpr));
    } else {
      error(g.range, "grid extent must be computable from the kernel's "
                     "arguments (integers and T.dynamic dimensions)");
      return Flow::Error;
    }
    FailureOr<mlir::Value> iv = toIndex(v, g.range);
    if (failed(iv))
      return Flow::Error;
    extents.push_back(*iv);
  }

  std::vector<const ast::NameExpr *> names;
  if (item.target) {
    if (auto *n = llvm::dyn_cast<ast::NameExpr>(item.target.get()))
      names.push_back(n);
    else if (auto *t = llvm::dyn_cast<ast::TupleExpr>(item.target.get()))
      for (const ast::ExprPtr &e : t->getElts()) {
        auto *n = llvm::dyn_cast<ast::NameExpr>(e.get());
        if (!n) {
          error(e->getRange(), "block index names must be plain names");
          return Flow::Error;
        }
        names.push_back(n);
      }
    else {
      error(item.target->getRange(), "block index names must be plain names");
      return Flow::Error;
    }
    if (names.size() != grid.size()) {
      error(item.target->getRange(),
            "`T.Kernel` has " + Twine(grid.size()) + " grid dimension" +
                (grid.size() == 1 ? "" : "s") + " but binds " +
                Twine(names.size()) + " block index name" +
                (names.size() == 1 ? "" : "s"));
      return Flow::Error;
    }
  }

  auto kernel = tile::KernelOp::create(builder, loc(call->getLoc()), extents, threads);
  kernel->setAttr("tile.grid_host", builder.getArrayAttr(hostExprs));
  ++traced->kernelCount;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(kernel.getBody()->getTerminator());
  unsigned depth = regionDepth++;
  ++kernelDepth;
  SmallVector<int64_t, 3> savedDims = blockDims;
  blockDims = dims;
  if (!dims.empty())
    kernel->setAttr("tile.block_dims", builder.getDenseI64ArrayAttr(dims));
  for (size_t k = 0; k < names.size(); ++k)
    frame.scope->bind(names[k]->getName(),
                      {wrapRuntime(kernel.getBlockIndices()[k], DType::Int32, true),
                       names[k]->getLoc(), regionDepth, ""});
  Flow f = execBlock(s.getBody(), frame);
  --kernelDepth;
  blockDims = savedDims;
  regionDepth = depth;
  poisonRegionBindings(*frame.scope, depth,
                       "belongs to the T.Kernel block above and cannot be "
                       "used after it");
  if (f == Flow::Break || f == Flow::Continue || f == Flow::Return) {
    error(s.getRange(), "`break`, `continue` and `return` cannot leave a "
                        "T.Kernel block");
    return Flow::Error;
  }
  return f;
}

} // namespace tilec::mlirgen
