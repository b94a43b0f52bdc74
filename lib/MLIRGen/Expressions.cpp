//===- Expressions.cpp - Evaluating expressions, at compile or run time ---===//
//
// An expression over compile-time values folds with Python's semantics
// (sema::foldBinary). Once a runtime scalar takes part (a block index, a loop
// variable, an element of a buffer) it emits arith/math ops instead, with
// TVM's promotion rules: a Python literal takes the other operand's type,
// integer indices are `index`, mixed floats widen. Runtime indices also carry
// an affine form, so differences such as `(bx + 1) * bm - bx * bm` fold back
// to compile-time constants.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "tilec/Dialect/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using llvm::SMLoc;
using llvm::SMRange;
using llvm::StringRef;
using llvm::Twine;

namespace tilec::mlirgen {

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

Type Elaborator::irType(DType t) {
  MLIRContext *ctx = &context;
  switch (t.getKind()) {
  case DType::Bool: return IntegerType::get(ctx, 1);
  case DType::Int8:
  case DType::UInt8: return IntegerType::get(ctx, 8);
  case DType::Int16:
  case DType::UInt16: return IntegerType::get(ctx, 16);
  case DType::Int32:
  case DType::UInt32: return IntegerType::get(ctx, 32);
  case DType::Int64:
  case DType::UInt64:
  // A device address travels as its 64 bits; only tile.make_tensor reads it
  // as an address (refusePointer keeps it out of arithmetic).
  case DType::Ptr: return IntegerType::get(ctx, 64);
  case DType::Float8E4M3: return Float8E4M3FNType::get(ctx);
  case DType::Float8E5M2: return Float8E5M2Type::get(ctx);
  case DType::Float16: return Float16Type::get(ctx);
  case DType::BFloat16: return BFloat16Type::get(ctx);
  case DType::Float32: return Float32Type::get(ctx);
  case DType::Float64: return Float64Type::get(ctx);
  }
  return {};
}

std::optional<DType> Elaborator::toDType(const Value &v) {
  // `T.ptr` is the element type of a pointer-table parameter only
  // (pointerTableDType); everywhere else a dtype names data.
  std::optional<DType> dt = pointerTableDType(v);
  if (dt && dt->isPointer())
    return std::nullopt;
  return dt;
}

std::optional<DType> Elaborator::pointerTableDType(const Value &v) {
  if (v.is(Value::DTypeV))
    return v.getDType();
  if (v.is(Value::Str))
    return DType::parse(v.getStr());
  return std::nullopt;
}

LogicalResult Elaborator::refusePointer(const Value &v, SMRange range) {
  if (!v.is(Value::Runtime) || !v.getRuntime().dtype.isPointer())
    return success();
  error(range, "this value is a device address read from a `T.ptr` table; "
               "its only use is as the first argument of `T.make_tensor`");
  return failure();
}

/// The dtype of an IR type (index counts as int32: the lowering narrows).
static std::optional<DType> dtypeOf(Type t) {
  if (t.isIndex())
    return DType::Int32;
  if (t.isInteger(1)) return DType::Bool;
  if (t.isInteger(8)) return DType::Int8;
  if (t.isInteger(16)) return DType::Int16;
  if (t.isInteger(32)) return DType::Int32;
  if (t.isInteger(64)) return DType::Int64;
  if (t.isF16()) return DType::Float16;
  if (t.isBF16()) return DType::BFloat16;
  if (t.isF32()) return DType::Float32;
  if (t.isF64()) return DType::Float64;
  if (llvm::isa<Float8E4M3FNType>(t)) return DType::Float8E4M3;
  if (llvm::isa<Float8E5M2Type>(t)) return DType::Float8E5M2;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Runtime values
//===----------------------------------------------------------------------===//

mlir::Value Elaborator::constIndex(int64_t v) {
  return arith::ConstantIndexOp::create(builder, builder.getUnknownLoc(), v);
}

Value Elaborator::wrapRuntime(mlir::Value v, DType dtype, bool isIndex) {
  auto rt = std::make_shared<RuntimeObject>();
  rt->value = v;
  rt->dtype = dtype;
  rt->isIndex = isIndex;
  if (isIndex) {
    sema::Affine a;
    a.terms[v.getAsOpaquePointer()] = 1;
    rt->affine = a;
  }
  return Value::runtime(rt);
}

FailureOr<Value> Elaborator::materialize(const Value &v, SMRange range) {
  if (v.is(Value::Symbol)) {
    if (!traced) {
      error(range, "the runtime dimension `" + v.getSymbol().name +
                       "` has no value outside a @T.prim_func");
      return failure();
    }
    auto it = traced->symbols.find(&v.getSymbol());
    if (it == traced->symbols.end() && eager) {
      // An eager factory's sizes are launch arguments from the start; one
      // used before (or without) a tensor shape naming it is still one.
      eagerSymbolArg(v.getSymbol(), range.Start);
      it = traced->symbols.find(&v.getSymbol());
    }
    if (it == traced->symbols.end()) {
      error(range, "runtime dimension `" + v.getSymbol().name +
                       "` is not part of any tensor parameter's shape");
      return failure();
    }
    Value w = wrapRuntime(it->second, DType::Int32, /*isIndex=*/true);
    w.getRuntime().hostExpr = v.getSymbol().name;
    return w;
  }
  return toScalar(v, range);
}

/// A constant index past the end of a static global tensor in an element
/// access reads or writes outside it (on-chip buffers are checked when the
/// subscript is formed; a copy's start may lie past the end, its elements
/// there read as zero).
LogicalResult Elaborator::checkElementInBounds(const sema::SubscriptObject &s) {
  const BufferObject &buf = s.base.getBuffer();
  if (buf.scope != MemScope::Global)
    return success();
  for (size_t k = 0; k < s.indices.size(); ++k) {
    const Value &ix = s.indices[k];
    std::optional<int64_t> dim = buf.staticDim(k);
    if (!ix.isIntLike() || !dim || ix.getInt() < *dim)
      continue;
    error(k < s.indexRanges.size() ? s.indexRanges[k] : SMRange(s.loc, s.loc),
          "index " + Twine(ix.getInt()) + " is out of bounds for dimension " +
              Twine(k) + " of `" + buf.name + "` (extent " + Twine(*dim) +
              ")");
    note(buf.loc, "`" + buf.name + "` declared here");
    return failure();
  }
  return success();
}

FailureOr<Value> Elaborator::toScalar(const Value &v, SMRange range) {
  switch (v.getKind()) {
  case Value::Bool:
  case Value::Int:
  case Value::Float:
  case Value::Runtime:
    return v;
  case Value::Symbol:
    return materialize(v, range);
  case Value::Subscript: {
    sema::SubscriptObject &s = v.getSubscript();
    BufferObject &buf = s.base.getBuffer();
    if (s.indices.size() != buf.shape.size() ||
        llvm::any_of(s.indices,
                     [](const Value &i) { return i.is(Value::Slice); })) {
      error(range, "`" + buf.name + "[...]` is a region of " +
                       Twine(buf.shape.size()) +
                       "-d buffer, not a single element");
      return failure();
    }
    if (failed(checkElementInBounds(s)))
      return failure();
    SmallVector<mlir::Value> idx;
    for (const Value &i : s.indices) {
      FailureOr<mlir::Value> iv = toIndex(i, range);
      if (failed(iv))
        return failure();
      idx.push_back(*iv);
    }
    if (failed(remapIndices(buf, idx, range)))
      return failure();
    auto load = memref::LoadOp::create(builder, loc(range.Start), buf.memref, idx);
    return wrapRuntime(load, buf.dtype, /*isIndex=*/false);
  }
  case Value::Buffer: {
    BufferObject &buf = v.getBuffer();
    if (buf.scope == MemScope::Var) {
      auto load = memref::LoadOp::create(builder, loc(range.Start), buf.memref,
                                         ValueRange{});
      return wrapRuntime(load, buf.dtype, /*isIndex=*/false);
    }
    error(range, "expected a scalar, but `" + buf.name + "` is a " +
                     spelling(buf.scope) + " buffer");
    return failure();
  }
  default:
    error(range, "expected a scalar, got a `" + v.typeName() + "` (`" +
                     v.repr() + "`)");
    return failure();
  }
}

FailureOr<mlir::Value> Elaborator::toIR(const Value &v, Type type,
                                        SMRange range) {
  Location l = loc(range.Start);
  if (v.isNumber()) {
    if (type.isIndex())
      return v.is(Value::Float) ? FailureOr<mlir::Value>(failure())
                                : FailureOr<mlir::Value>(constIndex(v.getInt()));
    if (auto it = llvm::dyn_cast<IntegerType>(type)) {
      if (v.is(Value::Float)) {
        error(range, "cannot use the float `" + v.repr() +
                         "` where an integer is expected");
        return failure();
      }
      return arith::ConstantOp::create(builder, l, type,
                                       builder.getIntegerAttr(type, v.getInt()))
          .getResult();
    }
    if (auto ft = llvm::dyn_cast<FloatType>(type))
      return arith::ConstantOp::create(builder, l, type,
                                       builder.getFloatAttr(type, v.getFloat()))
          .getResult();
  }
  FailureOr<Value> s = materialize(v, range);
  if (failed(s) || failed(refusePointer(*s, range)))
    return failure();
  if (!s->is(Value::Runtime))
    return toIR(*s, type, range);
  mlir::Value x = s->getRuntime().value;
  if (x.getType() == type)
    return x;
  if (type.isIndex()) {
    if (!x.getType().isSignlessInteger()) {
      error(range, "an index must be an integer, not `" +
                       s->getRuntime().dtype.name() + "`");
      return failure();
    }
    // An unsigned value zero-extends: uint32 3e9 (or uint8 200) sign-
    // extended to a negative index ran a loop 0 times.
    DType from = s->getRuntime().dtype;
    if (from.isInteger() && !from.isSigned() && !from.isBool())
      return arith::IndexCastUIOp::create(builder, l, type, x).getResult();
    return arith::IndexCastOp::create(builder, l, type, x).getResult();
  }
  std::optional<DType> to = dtypeOf(type);
  if (!to) {
    error(range, "unsupported type conversion");
    return failure();
  }
  FailureOr<Value> c = castTo(*s, *to, range);
  if (failed(c))
    return failure();
  return toIR(*c, type, range);
}

FailureOr<mlir::Value> Elaborator::toIndex(const Value &v, SMRange range) {
  if (v.is(Value::Float)) {
    error(range, "index must be an integer, not the float `" + v.repr() + "`");
    return failure();
  }
  return toIR(v, builder.getIndexType(), range);
}

FailureOr<Value> Elaborator::castTo(const Value &v, DType to, SMRange range) {
  if (v.isNumber()) {
    if (!traced) {
      if (to.isFloat())
        return Value::floating(v.getFloat());
      if (to.isBool())
        return Value::boolean(v.truthy());
      return Value::integer(v.is(Value::Float) ? int64_t(v.getFloat())
                                               : v.getInt());
    }
    FailureOr<mlir::Value> c =
        toIR(to.isFloat() || !v.is(Value::Float) ? v
             : Value::integer(int64_t(v.getFloat())),
             irType(to), range);
    if (failed(c))
      return failure();
    return wrapRuntime(*c, to, false);
  }
  FailureOr<Value> s = materialize(v, range);
  if (failed(s) || failed(refusePointer(*s, range)))
    return failure();
  if (!s->is(Value::Runtime))
    return castTo(*s, to, range);
  RuntimeObject &r = s->getRuntime();
  mlir::Value x = r.value;
  Type target = irType(to);
  Location l = loc(range.Start);
  if (x.getType() == target)
    return wrapRuntime(x, to, false);
  DType from = r.dtype;
  mlir::Value out;
  if (x.getType().isIndex()) {
    mlir::Value i64 = arith::IndexCastOp::create(builder, l, builder.getI64Type(), x);
    return castTo(wrapRuntime(i64, DType::Int64, false), to, range);
  }
  if (to.isBool()) {
    if (from.isFloat())
      out = arith::CmpFOp::create(builder, l, arith::CmpFPredicate::UNE, x,
                                  arith::ConstantOp::create(builder, l, x.getType(),
                                      builder.getFloatAttr(x.getType(), 0.0)));
    else
      out = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::ne, x,
                                  arith::ConstantOp::create(builder, l, x.getType(),
                                      builder.getIntegerAttr(x.getType(), 0)));
  } else if (from.isFloat() && to.isFloat()) {
    if (from.bits() < to.bits())
      out = arith::ExtFOp::create(builder, l, target, x);
    else if (from.bits() > to.bits() ||
             (from.bits() == to.bits() && from != to)) {
      if (from.bits() == to.bits()) // f16 <-> bf16: through f32
        x = arith::ExtFOp::create(builder, l, builder.getF32Type(), x);
      out = arith::TruncFOp::create(builder, l, target, x);
    }
  } else if (!from.isFloat() && to.isFloat()) {
    if (from.isSigned())
      out = arith::SIToFPOp::create(builder, l, target, x);
    else
      out = arith::UIToFPOp::create(builder, l, target, x);
  } else if (from.isFloat() && !to.isFloat()) {
    if (to.isSigned())
      out = arith::FPToSIOp::create(builder, l, target, x);
    else
      out = arith::FPToUIOp::create(builder, l, target, x);
  } else {
    unsigned fb = x.getType().getIntOrFloatBitWidth(), tb = to.bits();
    if (fb < tb)
      out = (from.isSigned() ? (mlir::Value)arith::ExtSIOp::create(builder, l, target, x)
                             : (mlir::Value)arith::ExtUIOp::create(builder, l, target, x));
    else if (fb > tb)
      out = arith::TruncIOp::create(builder, l, target, x);
    else
      out = x;
  }
  return wrapRuntime(out, to, false);
}

/// The common type two runtime operands are computed in.
static DType promote(DType a, DType b) {
  if (a.isFloat() || b.isFloat()) {
    if (!a.isFloat())
      return b;
    if (!b.isFloat())
      return a;
    return a.bits() >= b.bits() ? a : b;
  }
  return a.bits() >= b.bits() ? a : b;
}

static std::optional<sema::Affine> affineOf(const Value &v,
                                            const void *atom = nullptr) {
  if (v.isIntLike()) {
    sema::Affine a;
    a.constant = v.getInt();
    return a;
  }
  if (v.is(Value::Runtime) && v.getRuntime().affine)
    return v.getRuntime().affine;
  // Any other integer value (loaded from memory: `q_start = cu_seqlens[b]`)
  // is an atom of its own, so that `q_start + (bx + 1) * 64` minus
  // `q_start + bx * 64` is the constant 64.
  if (v.is(Value::Runtime) && v.getRuntime().dtype.isInteger() &&
      v.getRuntime().dtype != DType::Bool) {
    sema::Affine a;
    a.terms[atom ? atom : v.getRuntime().value.getAsOpaquePointer()] = 1;
    return a;
  }
  return std::nullopt;
}

/// The atom of an element read for affine folding: one per subscript
/// object, which each use of a name bound to `A[i]` loads anew (TileLang
/// reads `q_start = cu_seqlens[b]` as one expression too).
static const void *atomOf(const Value &v) {
  return v.is(Value::Subscript) ? (const void *)&v.getSubscript() : nullptr;
}

static std::string hostOf(const Value &v) {
  if (v.isIntLike())
    return std::to_string(v.getInt());
  if (v.is(Value::Runtime))
    return v.getRuntime().hostExpr;
  return "";
}

FailureOr<Value> Elaborator::runtimeBinary(BinaryOpLike op, const Value &lIn,
                                           const Value &rIn, SMRange range) {
  FailureOr<Value> lm = materialize(lIn, range);
  FailureOr<Value> rm = materialize(rIn, range);
  if (failed(lm) || failed(rm) || failed(refusePointer(*lm, range)) ||
      failed(refusePointer(*rm, range)))
    return failure();
  const Value &l = *lm, &r = *rm;
  Location lc = loc(range.Start);

  // Operand types: a Python literal adopts its partner's type.
  auto typeOf = [](const Value &v) -> std::optional<DType> {
    if (v.is(Value::Runtime))
      return v.getRuntime().dtype;
    return std::nullopt;
  };
  std::optional<DType> lt = typeOf(l), rt = typeOf(r);
  bool lIndex = l.is(Value::Runtime) && l.getRuntime().isIndex;
  bool rIndex = r.is(Value::Runtime) && r.getRuntime().isIndex;
  DType type = lt && rt ? promote(*lt, *rt) : lt ? *lt : *rt;
  // An int runtime operand meeting a float literal computes in float32.
  if (!type.isFloat() && ((l.is(Value::Float)) || r.is(Value::Float)))
    type = DType::Float32;
  // So does a narrower float in arithmetic: TileLang's `+ - * /` make a
  // Python float a float32 constant (TVM's FloatImm("float32")) and promote
  // float16 / bfloat16 / float8 to it, so `q * 0.0883883` with q in bf16 is
  // `bf16(float(q) * 0.0883883f)` (TileLang's CUDA: `(half_t)(((float)q) *
  // 9.016844e-02f)`), not a bf16 multiply by the literal rounded to bf16.
  // A comparison keeps the literal in q's type (TileLang's parser gives it
  // the other side's dtype). T.max / T.min keep it too: their result is
  // exact either way, only a use of it in further arithmetic could tell.
  bool arith = op == BinaryOpLike::Add || op == BinaryOpLike::Sub ||
               op == BinaryOpLike::Mul || op == BinaryOpLike::Div;
  if (arith && type.isFloat() && type.bits() < 32 &&
      (l.is(Value::Float) || r.is(Value::Float)))
    type = DType::Float32;
  bool useIndex = !type.isFloat() && (lIndex || rIndex) &&
                  (!lt || lIndex || !lt->isBool()) &&
                  (!rt || rIndex || !rt->isBool());
  if (useIndex && ((lt && !lIndex) || (rt && !rIndex)))
    useIndex = true; // mixing an int32 value into index math: index wins

  // Affine folding for index arithmetic.
  if (useIndex && (op == BinaryOpLike::Add || op == BinaryOpLike::Sub ||
                   op == BinaryOpLike::Mul)) {
    std::optional<sema::Affine> la = affineOf(l, atomOf(lIn)),
                                ra = affineOf(r, atomOf(rIn));
    if (la && ra) {
      std::optional<sema::Affine> res;
      if (op != BinaryOpLike::Mul) {
        sema::Affine a = *la;
        int64_t sign = op == BinaryOpLike::Add ? 1 : -1;
        for (auto &[k, c] : ra->terms)
          a.terms[k] += sign * c;
        a.constant += sign * ra->constant;
        for (auto it = a.terms.begin(); it != a.terms.end();)
          it = it->second == 0 ? a.terms.erase(it) : std::next(it);
        res = a;
      } else if (la->isConstant() || ra->isConstant()) {
        const sema::Affine &var = la->isConstant() ? *ra : *la;
        int64_t c = la->isConstant() ? la->constant : ra->constant;
        sema::Affine a;
        for (auto &[k, v] : var.terms)
          if (v * c != 0)
            a.terms[k] = v * c;
        a.constant = var.constant * c;
        res = a;
      }
      if (res && res->isConstant())
        return Value::integer(res->constant);
      if (res) {
        Type idx = builder.getIndexType();
        FailureOr<mlir::Value> a = toIR(l, idx, range), b = toIR(r, idx, range);
        if (failed(a) || failed(b))
          return failure();
        mlir::Value out =
            op == BinaryOpLike::Add ? (mlir::Value)arith::AddIOp::create(builder, lc, *a, *b)
            : op == BinaryOpLike::Sub ? (mlir::Value)arith::SubIOp::create(builder, lc, *a, *b)
                                      : (mlir::Value)arith::MulIOp::create(builder, lc, *a, *b);
        Value w = wrapRuntime(out, DType::Int32, true);
        w.getRuntime().affine = res;
        std::string hl = hostOf(l), hr = hostOf(r);
        if (!hl.empty() && !hr.empty())
          w.getRuntime().hostExpr = "(" + hl + " " +
                                    (op == BinaryOpLike::Add   ? "+"
                                     : op == BinaryOpLike::Sub ? "-"
                                                               : "*") +
                                    " " + hr + ")";
        noteHostIndex(w);
        return w;
      }
    }
  }

  // Device code that a constant operand makes undefined: LLVM folds it to
  // poison and the kernel silently computes nothing.
  if (!type.isFloat() && r.isIntLike()) {
    int64_t c = r.getInt();
    if (c == 0 && (op == BinaryOpLike::Div || op == BinaryOpLike::FloorDiv)) {
      error(range, "integer division by zero");
      return failure();
    }
    if (c == 0 && op == BinaryOpLike::Mod) {
      error(range, "integer modulo by zero");
      return failure();
    }
    if (op == BinaryOpLike::LShift || op == BinaryOpLike::RShift) {
      // Index arithmetic is 32-bit in kernels (int32, as its dtype says).
      unsigned width = useIndex ? 32 : type.bits();
      if (c < 0) {
        error(range, "negative shift count");
        return failure();
      }
      if (c >= int64_t(width)) {
        error(range, "shift count " + Twine(c) + " is too large for the " +
                         Twine(width) + "-bit " +
                         (useIndex ? std::string("int32") : type.name()) +
                         " operand (at most " + Twine(width - 1) + ")");
        return failure();
      }
    }
  }
  Type ty = useIndex ? (Type)builder.getIndexType() : irType(type);
  FailureOr<mlir::Value> a = toIR(l, ty, range), b = toIR(r, ty, range);
  if (failed(a) || failed(b))
    return failure();
  bool isF = type.isFloat() && !useIndex;
  bool isSigned = useIndex || type.isSigned();
  mlir::Value out;
  DType resultType = useIndex ? DType::Int32 : type;
  switch (op) {
  case BinaryOpLike::Add:
    out = isF ? (mlir::Value)arith::AddFOp::create(builder, lc, *a, *b)
              : (mlir::Value)arith::AddIOp::create(builder, lc, *a, *b);
    break;
  case BinaryOpLike::Sub:
    out = isF ? (mlir::Value)arith::SubFOp::create(builder, lc, *a, *b)
              : (mlir::Value)arith::SubIOp::create(builder, lc, *a, *b);
    break;
  case BinaryOpLike::Mul:
    out = isF ? (mlir::Value)arith::MulFOp::create(builder, lc, *a, *b)
              : (mlir::Value)arith::MulIOp::create(builder, lc, *a, *b);
    break;
  case BinaryOpLike::Div:
    // TVM divides integers with truncation; floats divide exactly.
    out = isF ? (mlir::Value)arith::DivFOp::create(builder, lc, *a, *b)
          : isSigned ? (mlir::Value)arith::DivSIOp::create(builder, lc, *a, *b)
                     : (mlir::Value)arith::DivUIOp::create(builder, lc, *a, *b);
    break;
  case BinaryOpLike::FloorDiv:
    if (isF)
      out = math::FloorOp::create(builder, lc,
                                  arith::DivFOp::create(builder, lc, *a, *b));
    else
      out = isSigned ? (mlir::Value)arith::FloorDivSIOp::create(builder, lc, *a, *b)
                     : (mlir::Value)arith::DivUIOp::create(builder, lc, *a, *b);
    break;
  case BinaryOpLike::Mod:
    if (isF) {
      mlir::Value q = math::FloorOp::create(builder, lc,
                                            arith::DivFOp::create(builder, lc, *a, *b));
      out = arith::SubFOp::create(builder, lc, *a,
                                  arith::MulFOp::create(builder, lc, q, *b));
    } else if (isSigned) {
      mlir::Value q = arith::FloorDivSIOp::create(builder, lc, *a, *b);
      out = arith::SubIOp::create(builder, lc, *a,
                                  arith::MulIOp::create(builder, lc, q, *b));
    } else {
      out = arith::RemUIOp::create(builder, lc, *a, *b);
    }
    break;
  case BinaryOpLike::Pow:
    if (isF) {
      out = math::PowFOp::create(builder, lc, *a, *b);
    } else if (r.isIntLike() && r.getInt() >= 0 && r.getInt() <= 64) {
      out = toIR(Value::integer(1), ty, range).value();
      for (int64_t k = 0; k < r.getInt(); ++k)
        out = arith::MulIOp::create(builder, lc, out, *a);
    } else {
      error(range, "integer `**` at run time needs a small constant exponent");
      return failure();
    }
    break;
  case BinaryOpLike::Max:
    out = isF ? (mlir::Value)arith::MaxNumFOp::create(builder, lc, *a, *b)
          : isSigned ? (mlir::Value)arith::MaxSIOp::create(builder, lc, *a, *b)
                     : (mlir::Value)arith::MaxUIOp::create(builder, lc, *a, *b);
    break;
  case BinaryOpLike::Min:
    out = isF ? (mlir::Value)arith::MinNumFOp::create(builder, lc, *a, *b)
          : isSigned ? (mlir::Value)arith::MinSIOp::create(builder, lc, *a, *b)
                     : (mlir::Value)arith::MinUIOp::create(builder, lc, *a, *b);
    break;
  case BinaryOpLike::And:
  case BinaryOpLike::BitAnd:
  case BinaryOpLike::Or:
  case BinaryOpLike::BitOr:
  case BinaryOpLike::BitXor:
  case BinaryOpLike::LShift:
  case BinaryOpLike::RShift:
    if (isF) {
      error(range, "bitwise and logical operators need integer or bool "
                   "operands, not `" + type.name() + "`");
      return failure();
    }
    if (op == BinaryOpLike::And || op == BinaryOpLike::BitAnd)
      out = arith::AndIOp::create(builder, lc, *a, *b);
    else if (op == BinaryOpLike::Or || op == BinaryOpLike::BitOr)
      out = arith::OrIOp::create(builder, lc, *a, *b);
    else if (op == BinaryOpLike::BitXor)
      out = arith::XOrIOp::create(builder, lc, *a, *b);
    else if (op == BinaryOpLike::LShift)
      out = arith::ShLIOp::create(builder, lc, *a, *b);
    else
      out = isSigned ? (mlir::Value)arith::ShRSIOp::create(builder, lc, *a, *b)
                     : (mlir::Value)arith::ShRUIOp::create(builder, lc, *a, *b);
    break;
  default: {
    if (isF) {
      arith::CmpFPredicate p =
          op == BinaryOpLike::Eq   ? arith::CmpFPredicate::OEQ
          : op == BinaryOpLike::Ne ? arith::CmpFPredicate::UNE
          : op == BinaryOpLike::Lt ? arith::CmpFPredicate::OLT
          : op == BinaryOpLike::Le ? arith::CmpFPredicate::OLE
          : op == BinaryOpLike::Gt ? arith::CmpFPredicate::OGT
                                   : arith::CmpFPredicate::OGE;
      out = arith::CmpFOp::create(builder, lc, p, *a, *b);
    } else {
      arith::CmpIPredicate p =
          op == BinaryOpLike::Eq   ? arith::CmpIPredicate::eq
          : op == BinaryOpLike::Ne ? arith::CmpIPredicate::ne
          : op == BinaryOpLike::Lt ? (isSigned ? arith::CmpIPredicate::slt : arith::CmpIPredicate::ult)
          : op == BinaryOpLike::Le ? (isSigned ? arith::CmpIPredicate::sle : arith::CmpIPredicate::ule)
          : op == BinaryOpLike::Gt ? (isSigned ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::ugt)
                                   : (isSigned ? arith::CmpIPredicate::sge : arith::CmpIPredicate::uge);
      out = arith::CmpIOp::create(builder, lc, p, *a, *b);
    }
    Value cmp = wrapRuntime(out, DType::Bool, false);
    // Conditions on sizes (`assert M % 128 == 0` before the kernel) are
    // checked by the launch header.
    std::string hl = hostOf(l), hr = hostOf(r);
    if (useIndex && !hl.empty() && !hr.empty())
      cmp.getRuntime().hostExpr =
          "(" + hl + " " +
          (op == BinaryOpLike::Eq   ? "=="
           : op == BinaryOpLike::Ne ? "!="
           : op == BinaryOpLike::Lt ? "<"
           : op == BinaryOpLike::Le ? "<="
           : op == BinaryOpLike::Gt ? ">"
                                    : ">=") +
          " " + hr + ")";
    return cmp;
  }
  }
  Value w = wrapRuntime(out, resultType, useIndex);
  // Host expressions for grid sizes: over the sizes, and over integer
  // scalar arguments (`T.ceildiv(max_seqlen, 64)` with `max_seqlen:
  // T.int32`), which the launch header has as well.
  std::string hl = hostOf(l), hr = hostOf(r);
  bool hostInteger = useIndex || (type.isInteger() && type != DType::Bool);
  if (hostInteger && !hl.empty() && !hr.empty()) {
    // Products of two sizes (`batch * heads`) are not affine but still
    // computable on the host.
    if (op == BinaryOpLike::Add || op == BinaryOpLike::Sub ||
        op == BinaryOpLike::Mul)
      w.getRuntime().hostExpr = "(" + hl + " " +
                                (op == BinaryOpLike::Add   ? "+"
                                 : op == BinaryOpLike::Sub ? "-"
                                                           : "*") +
                                " " + hr + ")";
    else if (op == BinaryOpLike::FloorDiv || op == BinaryOpLike::Div)
      w.getRuntime().hostExpr = "(" + hl + " / " + hr + ")";
    else if (op == BinaryOpLike::Mod)
      w.getRuntime().hostExpr = "(" + hl + " % " + hr + ")";
    else if (op == BinaryOpLike::Max || op == BinaryOpLike::Min)
      w.getRuntime().hostExpr = std::string(op == BinaryOpLike::Max ? "std::max" : "std::min") +
                                "<int64_t>(" + hl + ", " + hr + ")";
    if (op == BinaryOpLike::Add || op == BinaryOpLike::Sub ||
        op == BinaryOpLike::Mul)
      noteHostIndex(w);
  }
  return w;
}

//===----------------------------------------------------------------------===//
// Expression dispatch
//===----------------------------------------------------------------------===//

static BinaryOpLike runtimeOp(ast::BinOpKind k) {
  switch (k) {
  case ast::BinOpKind::Add: return BinaryOpLike::Add;
  case ast::BinOpKind::Sub: return BinaryOpLike::Sub;
  case ast::BinOpKind::Mul: return BinaryOpLike::Mul;
  case ast::BinOpKind::Div: return BinaryOpLike::Div;
  case ast::BinOpKind::FloorDiv: return BinaryOpLike::FloorDiv;
  case ast::BinOpKind::Mod: return BinaryOpLike::Mod;
  case ast::BinOpKind::Pow: return BinaryOpLike::Pow;
  case ast::BinOpKind::LShift: return BinaryOpLike::LShift;
  case ast::BinOpKind::RShift: return BinaryOpLike::RShift;
  case ast::BinOpKind::BitOr: return BinaryOpLike::BitOr;
  case ast::BinOpKind::BitXor: return BinaryOpLike::BitXor;
  case ast::BinOpKind::BitAnd: return BinaryOpLike::BitAnd;
  case ast::BinOpKind::MatMul: return BinaryOpLike::Mul; // rejected earlier
  }
  return BinaryOpLike::Add;
}

static sema::BinaryOp constOp(ast::BinOpKind k) {
  switch (k) {
  case ast::BinOpKind::Add: return sema::BinaryOp::Add;
  case ast::BinOpKind::Sub: return sema::BinaryOp::Sub;
  case ast::BinOpKind::Mul: return sema::BinaryOp::Mul;
  case ast::BinOpKind::MatMul: return sema::BinaryOp::MatMul;
  case ast::BinOpKind::Div: return sema::BinaryOp::Div;
  case ast::BinOpKind::FloorDiv: return sema::BinaryOp::FloorDiv;
  case ast::BinOpKind::Mod: return sema::BinaryOp::Mod;
  case ast::BinOpKind::Pow: return sema::BinaryOp::Pow;
  case ast::BinOpKind::LShift: return sema::BinaryOp::LShift;
  case ast::BinOpKind::RShift: return sema::BinaryOp::RShift;
  case ast::BinOpKind::BitOr: return sema::BinaryOp::BitOr;
  case ast::BinOpKind::BitXor: return sema::BinaryOp::BitXor;
  case ast::BinOpKind::BitAnd: return sema::BinaryOp::BitAnd;
  }
  return sema::BinaryOp::Add;
}

FailureOr<Value> Elaborator::evalBinary(ast::BinOpKind op, const Value &l,
                                        const Value &r, SMRange range) {
  if (l.isConstant() && r.isConstant() && !l.is(Value::Symbol) &&
      !r.is(Value::Symbol)) {
    sema::FoldResult res = sema::foldBinary(constOp(op), l, r);
    if (!res.value) {
      error(range, res.error);
      return failure();
    }
    return *res.value;
  }
  if (op == ast::BinOpKind::MatMul) {
    error(range, "`@` is not defined on buffers; use T.gemm");
    return failure();
  }
  if (!traced && (l.is(Value::Symbol) || r.is(Value::Symbol))) {
    // Symbolic shape arithmetic outside a kernel is kept for later.
    error(range, "arithmetic on the runtime dimension must happen inside "
                 "the @T.prim_func");
    return failure();
  }
  return runtimeBinary(runtimeOp(op), l, r, range);
}

FailureOr<Value> Elaborator::eval(const ast::Expr &e, Frame &frame) {
  using K = ast::Expr::Kind;
  switch (e.getKind()) {
  case K::Name:
    return evalName(llvm::cast<ast::NameExpr>(e), frame);
  case K::Int: {
    std::optional<int64_t> v = llvm::cast<ast::IntExpr>(e).getInt64();
    if (!v) {
      error(e.getRange(), "integer literal does not fit in 64 bits");
      return failure();
    }
    return Value::integer(*v);
  }
  case K::Float:
    return Value::floating(llvm::cast<ast::FloatExpr>(e).getValue());
  case K::String:
    return Value::string(llvm::cast<ast::StringExpr>(e).getValue().str());
  case K::Bool:
    return Value::boolean(llvm::cast<ast::BoolExpr>(e).getValue());
  case K::None:
    return Value::none();
  case K::Attribute:
    return evalAttribute(llvm::cast<ast::AttributeExpr>(e), frame);
  case K::Call:
    return evalCall(llvm::cast<ast::CallExpr>(e), frame);
  case K::Subscript:
    return evalSubscript(llvm::cast<ast::SubscriptExpr>(e), frame);
  case K::Slice:
    error(e.getRange(), "a slice is only allowed inside `[...]`");
    return failure();
  case K::Tuple:
  case K::List: {
    llvm::ArrayRef<ast::ExprPtr> elts =
        e.getKind() == K::Tuple ? llvm::cast<ast::TupleExpr>(e).getElts()
                                : llvm::cast<ast::ListExpr>(e).getElts();
    std::vector<Value> out;
    for (const ast::ExprPtr &x : elts) {
      if (auto *star = llvm::dyn_cast<ast::StarredExpr>(x.get())) {
        FailureOr<Value> v = eval(*star->getValue(), frame);
        if (failed(v))
          return failure();
        if (!v->isSequence()) {
          error(x->getRange(), "cannot unpack a `" + v->typeName() + "`");
          return failure();
        }
        out.insert(out.end(), v->getElements().begin(), v->getElements().end());
        continue;
      }
      FailureOr<Value> v = eval(*x, frame);
      if (failed(v))
        return failure();
      out.push_back(*v);
    }
    if (auto *l = llvm::dyn_cast<ast::ListExpr>(&e); l && l->isSet())
      return makeSet(std::move(out));
    return e.getKind() == K::Tuple ? Value::tuple(std::move(out))
                                   : Value::list(std::move(out));
  }
  case K::Dict: {
    auto &d = llvm::cast<ast::DictExpr>(e);
    std::vector<std::pair<Value, Value>> items;
    for (size_t k = 0; k < d.getKeys().size(); ++k) {
      FailureOr<Value> key = eval(*d.getKeys()[k], frame);
      FailureOr<Value> val = eval(*d.getValues()[k], frame);
      if (failed(key) || failed(val))
        return failure();
      bool replaced = false;
      for (auto &kv : items)
        if (kv.first == *key) {
          kv.second = *val;
          replaced = true;
        }
      if (!replaced)
        items.push_back({*key, *val});
    }
    return Value::dict(std::move(items));
  }
  case K::BinOp: {
    auto &b = llvm::cast<ast::BinOpExpr>(e);
    FailureOr<Value> l = eval(*b.getLHS(), frame);
    if (failed(l))
      return failure();
    FailureOr<Value> r = eval(*b.getRHS(), frame);
    if (failed(r))
      return failure();
    return evalBinary(b.getOp(), *l, *r, b.getRange());
  }
  case K::UnaryOp:
    return evalUnary(llvm::cast<ast::UnaryOpExpr>(e), frame);
  case K::BoolOp:
    return evalBoolOp(llvm::cast<ast::BoolOpExpr>(e), frame);
  case K::Compare:
    return evalCompare(llvm::cast<ast::CompareExpr>(e), frame);
  case K::IfExp:
    return evalIfExp(llvm::cast<ast::IfExpExpr>(e), frame);
  case K::Lambda: {
    auto fn = std::make_shared<sema::FunctionObject>();
    fn->lambda = &llvm::cast<ast::LambdaExpr>(e);
    fn->closure = frame.scope;
    return Value::function(fn);
  }
  case K::Starred:
    error(e.getRange(), "`*` unpacking is only allowed in calls and displays");
    return failure();
  case K::ListComp: {
    auto &lc = llvm::cast<ast::ListCompExpr>(e);
    if (lc.isSet() || lc.getValue())
      return evalDictOrSetComp(lc, frame);
    // Python 3: the comprehension's variables live in a scope of their own.
    Frame inner{std::make_shared<Scope>(frame.scope), Value(),
                frame.functionName};
    std::vector<Value> out;
    if (failed(evalComprehension(lc, 0, inner, out)))
      return failure();
    return Value::list(std::move(out));
  }
  }
  error(e.getRange(), "this expression is not supported in .tile files");
  return failure();
}

LogicalResult Elaborator::evalComprehension(const ast::ListCompExpr &lc,
                                            size_t k, Frame &frame,
                                            std::vector<Value> &out,
                                            std::vector<Value> *values) {
  if (k == lc.getGenerators().size()) {
    FailureOr<Value> v = eval(*lc.getElt(), frame);
    if (failed(v))
      return failure();
    if (values) {
      FailureOr<Value> x = eval(*lc.getValue(), frame);
      if (failed(x))
        return failure();
      values->push_back(*x);
    }
    if (out.size() >= (1u << 20)) {
      error(lc.getRange(), "comprehension is too long for compile-time "
                           "evaluation");
      return failure();
    }
    out.push_back(*v);
    return success();
  }
  const ast::Comprehension &gen = lc.getGenerators()[k];
  FailureOr<Value> iter = eval(*gen.iter, frame);
  if (failed(iter))
    return failure();
  std::vector<Value> items;
  if (iter->isSequence()) {
    items = iter->getElements();
  } else if (iter->is(Value::Dict)) {
    for (const auto &kv : iter->getItems())
      items.push_back(kv.first);
  } else if (iter->is(Value::Str)) {
    for (char c : iter->getStr())
      items.push_back(Value::string(std::string(1, c)));
  } else {
    error(gen.iter->getRange(),
          iter->is(Value::Loop)
              ? Twine("a comprehension iterates at compile time; it cannot "
                      "run over a device loop")
              : "cannot iterate over a `" + iter->typeName() + "`");
    return failure();
  }
  for (const Value &item : items) {
    if (failed(countStep(gen.range)))
      return failure();
    if (failed(assignTo(*gen.target, item, gen.iter->getRange(), frame)))
      return failure();
    bool keep = true;
    for (const ast::ExprPtr &cond : gen.ifs) {
      FailureOr<Value> c = eval(*cond, frame);
      if (failed(c))
        return failure();
      if (!c->isConstant()) {
        error(cond->getRange(), "a comprehension condition must be a "
                                "compile-time value");
        return failure();
      }
      if (!c->truthy()) {
        keep = false;
        break;
      }
    }
    if (keep && failed(evalComprehension(lc, k + 1, frame, out, values)))
      return failure();
  }
  return success();
}

/// Names every Python program has without an import.
static bool isPythonBuiltin(StringRef n) {
  return llvm::is_contained(
      {"range", "min", "max", "abs", "len", "int", "float", "bool", "str",
       "tuple", "list", "dict", "sum", "enumerate", "zip", "round", "print",
       "isinstance", "any", "all", "reversed", "sorted", "pow", "divmod",
       "set", "Ellipsis"},
      n);
}

FailureOr<Value> Elaborator::evalName(const ast::NameExpr &e, Frame &frame) {
  StringRef name = e.getName();
  if (Binding *b = frame.scope->lookup(name)) {
    if (!b->poison.empty()) {
      error(e.getRange(), b->poison);
      if (b->loc.isValid())
        note(b->loc, "defined here");
      return failure();
    }
    return b->value;
  }
  if (isPythonBuiltin(name))
    return Value::builtin(("py." + name).str());
  // Suggest a close name from every visible scope and the built-ins.
  std::vector<std::string> names;
  for (Scope *s = frame.scope.get(); s; s = s->getParent())
    for (auto &entry : s->getVars())
      if (!entry.getKey().starts_with("__"))
        names.push_back(entry.getKey().str());
  for (StringRef b : {"range", "min", "max", "abs", "len", "int", "float",
                      "bool", "str", "tuple", "list", "sum", "enumerate",
                      "zip", "round"})
    names.push_back(b.str());
  std::vector<StringRef> refs(names.begin(), names.end());
  std::string best = closestName(name, refs);
  error(e.getRange(), "name `" + name + "` is not defined" +
                          (best.empty() ? "" : "; did you mean `" + best + "`?"));
  return failure();
}

FailureOr<Value> Elaborator::evalUnary(const ast::UnaryOpExpr &e,
                                       Frame &frame) {
  FailureOr<Value> v = eval(*e.getOperand(), frame);
  if (failed(v))
    return failure();
  sema::UnaryOp op = e.getOp() == ast::UnaryOpKind::Neg      ? sema::UnaryOp::Neg
                     : e.getOp() == ast::UnaryOpKind::Pos    ? sema::UnaryOp::Pos
                     : e.getOp() == ast::UnaryOpKind::Invert ? sema::UnaryOp::Invert
                                                             : sema::UnaryOp::Not;
  if (v->isConstant() && !v->is(Value::Symbol)) {
    sema::FoldResult r = sema::foldUnary(op, *v);
    if (!r.value) {
      error(e.getRange(), r.error);
      return failure();
    }
    return *r.value;
  }
  FailureOr<Value> s = materialize(*v, e.getRange());
  if (failed(s) || failed(refusePointer(*s, e.getRange())))
    return failure();
  switch (op) {
  case sema::UnaryOp::Pos:
    return *s;
  case sema::UnaryOp::Neg: {
    RuntimeObject &r = s->getRuntime();
    if (r.dtype.isFloat() && !r.isIndex)
      return wrapRuntime(arith::NegFOp::create(builder, loc(e.getLoc()), r.value),
                         r.dtype, false);
    return runtimeBinary(BinaryOpLike::Sub, Value::integer(0), *s, e.getRange());
  }
  case sema::UnaryOp::Not: {
    FailureOr<Value> b = castTo(*s, DType::Bool, e.getRange());
    if (failed(b))
      return failure();
    return runtimeBinary(BinaryOpLike::BitXor, *b,
                         wrapRuntime(arith::ConstantOp::create(
                                         builder, loc(e.getLoc()),
                                         builder.getI1Type(),
                                         builder.getBoolAttr(true)),
                                     DType::Bool, false),
                         e.getRange());
  }
  case sema::UnaryOp::Invert:
    return runtimeBinary(BinaryOpLike::BitXor, *s, Value::integer(-1),
                         e.getRange());
  }
  return failure();
}

FailureOr<Value> Elaborator::evalBoolOp(const ast::BoolOpExpr &e,
                                        Frame &frame) {
  bool isAnd = e.getOp() == ast::BoolOpKind::And;
  Value acc;
  llvm::ArrayRef<ast::ExprPtr> values = e.getValues();
  for (size_t k = 0; k < values.size(); ++k) {
    FailureOr<Value> v = eval(*values[k], frame);
    if (failed(v))
      return failure();
    if (v->isConstant()) {
      // Python: `and` returns the first falsy operand, `or` the first truthy.
      acc = *v;
      if (isAnd ? !v->truthy() : v->truthy())
        return acc;
      continue;
    }
    // The first runtime operand decides whether the rest is evaluated.
    FailureOr<Value> b = castTo(*v, DType::Bool, values[k]->getRange());
    if (failed(b))
      return failure();
    return evalShortCircuit(e, k + 1, *b, frame);
  }
  return acc;
}

/// `a and b` / `a or b` where `a` is known only at run time: `b` is
/// evaluated under `a` (short-circuit), so `i < n and A[i] > 0` never reads
/// out of bounds.
FailureOr<Value> Elaborator::evalShortCircuit(const ast::BoolOpExpr &e,
                                              size_t k, const Value &acc,
                                              Frame &frame) {
  bool isAnd = e.getOp() == ast::BoolOpKind::And;
  if (k == e.getValues().size())
    return acc;
  const ast::Expr &x = *e.getValues()[k];
  auto rest = [&]() -> FailureOr<Value> {
    FailureOr<Value> v = eval(x, frame);
    if (failed(v))
      return failure();
    if (v->isConstant() && !v->is(Value::Symbol)) {
      if (isAnd ? !v->truthy() : v->truthy())
        return Value::boolean(!isAnd);
      return evalShortCircuit(e, k + 1, Value::boolean(isAnd), frame);
    }
    FailureOr<Value> s = toScalar(*v, x.getRange());
    if (failed(s))
      return failure();
    FailureOr<Value> b = castTo(*s, DType::Bool, x.getRange());
    if (failed(b))
      return failure();
    return evalShortCircuit(e, k + 1, *b, frame);
  };
  auto stop = [&]() -> FailureOr<Value> { return Value::boolean(!isAnd); };
  if (isAnd)
    return lazySelect(acc, e.getRange(), rest, stop);
  return lazySelect(acc, e.getRange(), stop, rest);
}

FailureOr<Value> Elaborator::evalCompare(const ast::CompareExpr &e,
                                         Frame &frame) {
  FailureOr<Value> left = eval(*e.getLeft(), frame);
  if (failed(left))
    return failure();
  Value lhs = *left;
  std::optional<Value> acc;
  for (size_t k = 0; k < e.getOps().size(); ++k) {
    FailureOr<Value> right = eval(*e.getComparators()[k], frame);
    if (failed(right))
      return failure();
    ast::CmpOpKind op = e.getOps()[k];
    Value result;
    if (lhs.isConstant() && right->isConstant() && !lhs.is(Value::Symbol) &&
        !right->is(Value::Symbol)) {
      sema::BinaryOp cop;
      switch (op) {
      case ast::CmpOpKind::Eq: cop = sema::BinaryOp::Eq; break;
      case ast::CmpOpKind::NotEq: cop = sema::BinaryOp::Ne; break;
      case ast::CmpOpKind::Lt: cop = sema::BinaryOp::Lt; break;
      case ast::CmpOpKind::LtE: cop = sema::BinaryOp::Le; break;
      case ast::CmpOpKind::Gt: cop = sema::BinaryOp::Gt; break;
      case ast::CmpOpKind::GtE: cop = sema::BinaryOp::Ge; break;
      case ast::CmpOpKind::Is: cop = sema::BinaryOp::Is; break;
      case ast::CmpOpKind::IsNot: cop = sema::BinaryOp::IsNot; break;
      case ast::CmpOpKind::In: cop = sema::BinaryOp::In; break;
      case ast::CmpOpKind::NotIn: cop = sema::BinaryOp::NotIn; break;
      }
      sema::FoldResult r = sema::foldBinary(cop, lhs, *right);
      if (!r.value) {
        error(e.getRange(), r.error);
        return failure();
      }
      result = *r.value;
      if (!result.truthy() && !acc)
        return result; // chained comparison short-circuits
    } else {
      BinaryOpLike rop;
      switch (op) {
      case ast::CmpOpKind::Eq: rop = BinaryOpLike::Eq; break;
      case ast::CmpOpKind::NotEq: rop = BinaryOpLike::Ne; break;
      case ast::CmpOpKind::Lt: rop = BinaryOpLike::Lt; break;
      case ast::CmpOpKind::LtE: rop = BinaryOpLike::Le; break;
      case ast::CmpOpKind::Gt: rop = BinaryOpLike::Gt; break;
      case ast::CmpOpKind::GtE: rop = BinaryOpLike::Ge; break;
      default:
        error(e.getOpRanges()[k], "`" + ast::getSpelling(op) +
                                      "` needs compile-time operands");
        return failure();
      }
      FailureOr<Value> r = runtimeBinary(rop, lhs, *right, e.getRange());
      if (failed(r))
        return failure();
      result = *r;
    }
    if (!acc) {
      acc = result;
    } else if (acc->isConstant() && result.isConstant()) {
      acc = Value::boolean(acc->truthy() && result.truthy());
    } else if (acc->isConstant()) {
      if (!acc->truthy())
        return *acc;
      acc = result;
    } else if (result.isConstant()) {
      if (!result.truthy())
        return result;
    } else {
      FailureOr<Value> r = runtimeBinary(BinaryOpLike::And, *acc, result, e.getRange());
      if (failed(r))
        return failure();
      acc = *r;
    }
    lhs = *right;
  }
  return *acc;
}

/// The type two branch values meet in: runtime operands promote, a literal
/// takes its partner's type (float32 / index when both are literals).
static std::pair<DType, bool> branchType(const Value &a, const Value &b) {
  std::optional<DType> t;
  bool index = false;
  for (const Value *v : {&a, &b})
    if (v->is(Value::Runtime)) {
      DType d = v->getRuntime().dtype;
      t = !t ? d
          : (t->isFloat() != d.isFloat()) ? (t->isFloat() ? *t : d)
          : (t->bits() >= d.bits() ? *t : d);
      index |= v->getRuntime().isIndex;
    }
  if (!t) {
    bool isFloat = a.is(Value::Float) || b.is(Value::Float);
    return {isFloat ? DType(DType::Float32) : DType(DType::Int32), !isFloat};
  }
  if (t->isFloat())
    index = false;
  else if (a.is(Value::Float) || b.is(Value::Float))
    return {DType::Float32, false};
  return {*t, index};
}

FailureOr<Value> Elaborator::lazySelect(const Value &cond, SMRange range,
                                        llvm::function_ref<FailureOr<Value>()> thenFn,
                                        llvm::function_ref<FailureOr<Value>()> elseFn) {
  FailureOr<Value> c = castTo(cond, DType::Bool, range);
  if (failed(c))
    return failure();
  Location l = loc(range.Start);
  // Each branch is evaluated inside its own region, so a load guarded by
  // the condition (`T.if_then_else(i < n, A[i], 0)`) only runs when it is
  // in bounds, as the `?:` TileLang emits would. The result type is known
  // only afterwards, so the branches are built in a result-less scf.if and
  // moved into the final one.
  auto tmp = scf::IfOp::create(builder, l, c->getRuntime().value,
                               /*withElseRegion=*/true);
  Value vals[2];
  Block *blocks[2] = {tmp.thenBlock(), tmp.elseBlock()};
  {
    OpBuilder::InsertionGuard guard(builder);
    unsigned depth = regionDepth++;
    for (int k = 0; k < 2; ++k) {
      builder.setInsertionPoint(blocks[k]->getTerminator());
      FailureOr<Value> v = k == 0 ? thenFn() : elseFn();
      if (failed(v)) {
        regionDepth = depth;
        return failure();
      }
      FailureOr<Value> s = materialize(*v, range);
      if (failed(s)) {
        regionDepth = depth;
        return failure();
      }
      vals[k] = *s;
    }
    regionDepth = depth;
  }
  auto [type, isIndex] = branchType(vals[0], vals[1]);
  Type ty = isIndex ? (Type)builder.getIndexType() : irType(type);
  mlir::Value ir[2];
  for (int k = 0; k < 2; ++k) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(blocks[k]->getTerminator());
    FailureOr<mlir::Value> v = toIR(vals[k], ty, range);
    if (failed(v))
      return failure();
    ir[k] = *v;
  }
  auto result = scf::IfOp::create(builder, l, TypeRange{ty},
                                  c->getRuntime().value, /*withElseRegion=*/true);
  for (int k = 0; k < 2; ++k) {
    mlir::Region &dst = k == 0 ? result.getThenRegion() : result.getElseRegion();
    mlir::Region &src = k == 0 ? tmp.getThenRegion() : tmp.getElseRegion();
    dst.front().erase();
    dst.takeBody(src);
    Block &b = dst.front();
    b.getTerminator()->erase();
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(&b);
    scf::YieldOp::create(builder, l, ir[k]);
  }
  tmp.erase();
  return wrapRuntime(result.getResult(0), type, isIndex);
}

FailureOr<Value> Elaborator::evalIfExp(const ast::IfExpExpr &e, Frame &frame) {
  FailureOr<Value> c = eval(*e.getTest(), frame);
  if (failed(c))
    return failure();
  if (c->isConstant())
    return eval(c->truthy() ? *e.getBody() : *e.getOrElse(), frame);
  FailureOr<Value> cs = toScalar(*c, e.getTest()->getRange());
  if (failed(cs))
    return failure();
  return lazySelect(
      *cs, e.getRange(), [&] { return eval(*e.getBody(), frame); },
      [&] { return eval(*e.getOrElse(), frame); });
}

//===----------------------------------------------------------------------===//
// Attributes, subscripts, calls
//===----------------------------------------------------------------------===//

FailureOr<Value> Elaborator::evalAttribute(const ast::AttributeExpr &e,
                                           Frame &frame) {
  FailureOr<Value> base = eval(*e.getValue(), frame);
  if (failed(base))
    return failure();
  StringRef attr = e.getAttr();
  if (base->is(Value::Builtin)) {
    std::string q = base->getBuiltin() + "." + attr.str();
    if (q == "tilelang.language")
      return Value::builtin("T");
    FailureOr<std::optional<Value>> special =
        moduleAttribute(base->getBuiltin(), attr, e.getAttrRange());
    if (failed(special))
      return failure();
    if (*special)
      return **special;
    if (base->getBuiltin() == "T.GemmWarpPolicy") {
      if (attr == "Square" || attr == "FullRow" || attr == "FullCol")
        return Value::enumMember("T.GemmWarpPolicy", attr.str());
      error(e.getAttrRange(), "`T.GemmWarpPolicy` has no member `" + attr +
                                  "` (expected Square, FullRow or FullCol)");
      return failure();
    }
    // @tilelang.autotune(supply_type=...): the runner's input distribution.
    if (base->getBuiltin() == "tilelang.TensorSupplyType") {
      if (llvm::is_contained({"Auto", "Integer", "Uniform", "Normal", "Randn",
                              "Zero", "One"},
                             attr))
        return Value::enumMember("tilelang.TensorSupplyType", attr.str());
      error(e.getAttrRange(), "`tilelang.TensorSupplyType` has no member `" +
                                  attr + "` (expected Auto, Integer, Uniform, "
                                         "Normal, Randn, Zero or One)");
      return failure();
    }
    if (base->getBuiltin() == "T") {
      // TileLang's T.ptr / T.handle: a device address (TVM's `handle`).
      if (attr == "ptr" || attr == "handle")
        return Value::dtype(DType::Ptr);
      if (std::optional<DType> dt = DType::parse(attr))
        return Value::dtype(*dt);
      if (attr == "float8_e4m3fn" || attr == "float8_e4m3")
        return Value::dtype(DType::Float8E4M3);
      if (isSubByteDType(attr)) {
        error(e.getAttrRange(), "dtype `T." + attr +
                                    "` is not supported yet by tilec: it "
                                    "needs packed sub-byte storage (see "
                                    "docs/language.md, section 11)");
        return failure();
      }
    }
    if (std::optional<llvm::ArrayRef<StringRef>> known =
            moduleNames(base->getBuiltin());
        known && !llvm::is_contained(*known, attr)) {
      std::string shown = base->getBuiltin() == "T" ? "T" : base->getBuiltin();
      std::string best = closestName(attr, *known);
      error(e.getAttrRange(),
            "`" + shown + "." + attr + "` is not " +
                (base->getBuiltin() == "T" ? Twine("a TileLang primitive")
                                           : "defined in `" + shown + "`") +
                (best.empty() ? "" : "; did you mean `" + shown + "." + best + "`?"));
      return failure();
    }
    if (base->getBuiltin() == "math") {
      if (attr == "pi")
        return Value::floating(3.14159265358979323846);
      if (attr == "e")
        return Value::floating(2.71828182845904523536);
      if (attr == "inf")
        return Value::floating(std::numeric_limits<double>::infinity());
    }
    return Value::builtin(q);
  }
  if (base->is(Value::Buffer)) {
    BufferObject &b = base->getBuffer();
    if (attr == "shape")
      return Value::tuple(b.shape);
    if (attr == "dtype")
      return Value::dtype(b.dtype);
    // The storage of a tensor parameter, for `T.Tensor(shape, dtype, X.data)`.
    if (attr == "data" && b.scope == MemScope::Global) {
      auto d = std::make_shared<BufferObject>(b);
      d->isData = true;
      return Value::buffer(d);
    }
    error(e.getAttrRange(), "buffer `" + b.name + "` has no attribute `" +
                                attr +
                                "` (expected shape, dtype or, on a "
                                "tensor, data)");
    return failure();
  }
  if (base->is(Value::Runtime) && attr == "dtype")
    return Value::dtype(base->getRuntime().dtype);
  if (base->is(Value::Enum) && attr == "value" &&
      base->getEnum().enumName == "tilelang.PassConfigKey")
    return Value::string(passConfigKeyValue(base->getEnum().member));
  if (base->is(Value::DTypeV) && attr == "bits")
    return Value::integer(base->getDType().bits());
  if (base->is(Value::Instance) || base->is(Value::Class))
    return objectAttribute(*base, attr, e.getAttrRange());
  error(e.getAttrRange(), "`" + base->typeName() + "` has no attribute `" +
                              attr + "`");
  return failure();
}

FailureOr<Value> Elaborator::evalSubscript(const ast::SubscriptExpr &e,
                                           Frame &frame) {
  FailureOr<Value> base = eval(*e.getValue(), frame);
  if (failed(base))
    return failure();
  std::vector<Value> indices;
  for (const ast::ExprPtr &ix : e.getIndices()) {
    if (auto *sl = llvm::dyn_cast<ast::SliceExpr>(ix.get())) {
      std::optional<Value> parts[3];
      const ast::Expr *exprs[3] = {sl->getLower(), sl->getUpper(), sl->getStep()};
      for (int k = 0; k < 3; ++k) {
        if (!exprs[k])
          continue;
        FailureOr<Value> v = eval(*exprs[k], frame);
        if (failed(v))
          return failure();
        parts[k] = *v;
      }
      indices.push_back(Value::slice(parts[0], parts[1], parts[2]));
      continue;
    }
    FailureOr<Value> v = eval(*ix, frame);
    if (failed(v))
      return failure();
    indices.push_back(*v);
  }

  if (base->is(Value::Builtin)) {
    StringRef b = base->getBuiltin();
    // `Optional[float]`, `Callable[..., Any]`: annotations only.
    if (b.starts_with("typing."))
      return *base;
    // `T.Tensor[(M, N), "float16"]`: the subscript form of T.Tensor(...).
    if (b == "T.Tensor" || b == "T.Buffer") {
      CallArgs args;
      args.range = e.getRange();
      args.callee = b.str();
      for (size_t k = 0; k < indices.size(); ++k)
        args.positional.push_back(Arg{indices[k], e.getIndices()[k]->getRange()});
      return callPrimitive(b, args);
    }
  }

  if (base->is(Value::Buffer)) {
    BufferObject &buf = base->getBuffer();
    if (indices.size() > buf.shape.size()) {
      error(e.getRange(), "too many indices for `" + buf.name + "`: it has " +
                              Twine(buf.shape.size()) + " dimension" +
                              (buf.shape.size() == 1 ? "" : "s") + ", got " +
                              Twine(indices.size()));
      note(buf.loc, "`" + buf.name + "` declared here");
      return failure();
    }
    for (size_t k = 0; k < indices.size(); ++k) {
      Value &ix = indices[k];
      if (ix.is(Value::Slice))
        continue;
      if (ix.is(Value::Float) || ix.is(Value::Str) || ix.isSequence()) {
        error(e.getIndices()[k]->getRange(),
              "buffer index must be an integer, not a `" + ix.typeName() + "`");
        return failure();
      }
      if (!ix.isIntLike()) {
        FailureOr<Value> s = materialize(ix, e.getIndices()[k]->getRange());
        if (failed(s))
          return failure();
        ix = *s;
      }
      if (ix.isIntLike()) {
        std::optional<int64_t> dim = buf.staticDim(k);
        if (ix.getInt() < 0 || (dim && ix.getInt() >= *dim &&
                                buf.scope != MemScope::Global)) {
          error(e.getIndices()[k]->getRange(),
                "index " + Twine(ix.getInt()) + " is out of bounds for "
                "dimension " + Twine(k) + " of `" + buf.name + "`" +
                (dim ? " (extent " + Twine(*dim) + ")" : Twine("")));
          note(buf.loc, "`" + buf.name + "` declared here");
          return failure();
        }
      }
    }
    auto sub = std::make_shared<sema::SubscriptObject>();
    sub->base = *base;
    sub->indices = std::move(indices);
    for (const auto &ix : e.getIndices())
      sub->indexRanges.push_back(ix->getRange());
    sub->loc = e.getLoc();
    return Value::subscript(sub);
  }

  // Compile-time sequences and dicts.
  if (indices.size() != 1) {
    error(e.getRange(), "`" + base->typeName() + "` takes a single index");
    return failure();
  }
  const Value &ix = indices[0];
  if (base->is(Value::Dict)) {
    for (const auto &kv : base->getItems())
      if (kv.first == ix)
        return kv.second;
    error(e.getIndices()[0]->getRange(), "key " + ix.repr() + " is not in the dict");
    return failure();
  }
  if (base->isSequence() || base->is(Value::Str)) {
    int64_t n = base->is(Value::Str) ? base->getStr().size()
                                     : base->getElements().size();
    auto at = [&](int64_t i) {
      return base->is(Value::Str)
                 ? Value::string(std::string(1, base->getStr()[i]))
                 : base->getElements()[i];
    };
    if (ix.is(Value::Slice)) {
      const auto &p = ix.getSliceParts();
      for (const auto &part : p)
        if (part && !part->isIntLike() && !part->isNone()) {
          error(e.getIndices()[0]->getRange(), "slice bounds must be integers");
          return failure();
        }
      int64_t step = p[2] && p[2]->isIntLike() ? p[2]->getInt() : 1;
      if (step == 0) {
        error(e.getIndices()[0]->getRange(), "slice step cannot be zero");
        return failure();
      }
      auto norm = [&](const std::optional<Value> &v, int64_t dflt) {
        if (!v || v->isNone())
          return dflt;
        int64_t x = v->getInt();
        if (x < 0)
          x += n;
        return std::clamp<int64_t>(x, step > 0 ? 0 : -1, step > 0 ? n : n - 1);
      };
      int64_t lo = norm(p[0], step > 0 ? 0 : n - 1);
      int64_t hi = norm(p[1], step > 0 ? n : -1);
      std::vector<Value> out;
      for (int64_t i = lo; step > 0 ? i < hi : i > hi; i += step)
        out.push_back(at(i));
      if (base->is(Value::Str)) {
        std::string s;
        for (const Value &c : out)
          s += c.getStr();
        return Value::string(s);
      }
      return base->is(Value::Tuple) ? Value::tuple(out) : Value::list(out);
    }
    if (!ix.isIntLike()) {
      error(e.getIndices()[0]->getRange(),
            "`" + base->typeName() + "` indices must be integers, not `" +
                ix.typeName() + "`");
      return failure();
    }
    int64_t i = ix.getInt() < 0 ? ix.getInt() + n : ix.getInt();
    if (i < 0 || i >= n) {
      error(e.getIndices()[0]->getRange(),
            "`" + base->typeName() + "` index " + Twine(ix.getInt()) +
                " is out of range (length " + Twine(n) + ")");
      return failure();
    }
    return at(i);
  }
  error(e.getValue()->getRange(),
        "`" + base->typeName() + "` is not subscriptable");
  return failure();
}

FailureOr<CallArgs> Elaborator::evalCallArgs(const ast::CallExpr &e,
                                             Frame &frame) {
  CallArgs args;
  args.range = e.getRange();
  for (const ast::ExprPtr &a : e.getArgs()) {
    if (auto *star = llvm::dyn_cast<ast::StarredExpr>(a.get())) {
      FailureOr<Value> v = eval(*star->getValue(), frame);
      if (failed(v))
        return failure();
      if (!v->isSequence()) {
        error(a->getRange(), "`*` needs a tuple or list, not a `" +
                                 v->typeName() + "`");
        return failure();
      }
      for (const Value &x : v->getElements())
        args.positional.push_back(Arg{x, a->getRange()});
      continue;
    }
    FailureOr<Value> v = eval(*a, frame);
    if (failed(v))
      return failure();
    args.positional.push_back(Arg{*v, a->getRange()});
  }
  for (const ast::Keyword &kw : e.getKeywords()) {
    FailureOr<Value> v = eval(*kw.value, frame);
    if (failed(v))
      return failure();
    if (kw.isDoubleStar()) {
      if (!v->is(Value::Dict)) {
        error(kw.range, "`**` needs a dict, not a `" + v->typeName() + "`");
        return failure();
      }
      for (const auto &[k, x] : v->getItems()) {
        if (!k.is(Value::Str)) {
          error(kw.range, "keywords must be strings");
          return failure();
        }
        args.keywords.push_back({k.getStr(), Arg{x, kw.range}});
      }
      continue;
    }
    for (const auto &existing : args.keywords)
      if (existing.first == kw.name) {
        error(kw.nameRange, "keyword argument `" + kw.name + "` repeated");
        return failure();
      }
    args.keywords.push_back({kw.name.str(), Arg{*v, kw.range}});
  }
  return args;
}

FailureOr<Value> Elaborator::evalCall(const ast::CallExpr &e, Frame &frame) {
  const ast::Expr *callee = e.getCallee();
  // Methods on values: `x.astype("float32")`, `d.items()`.
  if (auto *attr = llvm::dyn_cast<ast::AttributeExpr>(callee)) {
    FailureOr<Value> self = eval(*attr->getValue(), frame);
    if (failed(self))
      return failure();
    // A method of a compile-time object (Classes.cpp).
    if (self->is(Value::Instance) || self->is(Value::Class)) {
      FailureOr<Value> m =
          objectAttribute(*self, attr->getAttr(), attr->getAttrRange());
      if (failed(m))
        return failure();
      FailureOr<CallArgs> args = evalCallArgs(e, frame);
      if (failed(args))
        return failure();
      args->callee = attr->getAttr().str();
      return callValue(*m, *args);
    }
    if (!self->is(Value::Builtin)) {
      FailureOr<CallArgs> args = evalCallArgs(e, frame);
      if (failed(args))
        return failure();
      args->callee = "." + attr->getAttr().str();
      StringRef m = attr->getAttr();
      if (m == "astype") {
        if (args->positional.size() != 1) {
          error(e.getRange(), "`astype` takes one dtype");
          return failure();
        }
        FailureOr<DType> dt = requireDType(args->positional[0]);
        if (failed(dt))
          return failure();
        return castTo(*self, *dt, e.getRange());
      }
      if (self->is(Value::Dict) && (m == "items" || m == "keys" || m == "values")) {
        std::vector<Value> out;
        for (const auto &kv : self->getItems())
          out.push_back(m == "items"  ? Value::tuple({kv.first, kv.second})
                        : m == "keys" ? kv.first
                                      : kv.second);
        return Value::list(out);
      }
      if (self->is(Value::Dict) && m == "get" && !args->positional.empty()) {
        for (const auto &kv : self->getItems())
          if (kv.first == args->positional[0].value)
            return kv.second;
        return args->positional.size() > 1 ? args->positional[1].value
                                           : Value::none();
      }
      FailureOr<std::optional<Value>> r =
          callMethod(*self, m, *args, attr->getAttrRange());
      if (failed(r))
        return failure();
      if (*r)
        return **r;
      error(attr->getAttrRange(), "`" + self->typeName() +
                                      "` has no method `" + m + "`");
      return failure();
    }
  }
  FailureOr<Value> fn = eval(*callee, frame);
  if (failed(fn))
    return failure();
  // T.if_then_else evaluates only the chosen side, like the `?:` it is.
  if (fn->is(Value::Builtin) && fn->getBuiltin() == "T.if_then_else" &&
      e.getArgs().size() == 3 && e.getKeywords().empty() &&
      llvm::none_of(e.getArgs(), [](const ast::ExprPtr &a) {
        return llvm::isa<ast::StarredExpr>(a.get());
      })) {
    FailureOr<Value> c = eval(*e.getArgs()[0], frame);
    if (failed(c))
      return failure();
    if (c->isConstant() && !c->is(Value::Symbol))
      return eval(c->truthy() ? *e.getArgs()[1] : *e.getArgs()[2], frame);
    FailureOr<Value> cs = toScalar(*c, e.getArgs()[0]->getRange());
    if (failed(cs))
      return failure();
    return lazySelect(
        *cs, e.getRange(), [&] { return eval(*e.getArgs()[1], frame); },
        [&] { return eval(*e.getArgs()[2], frame); });
  }
  FailureOr<CallArgs> args = evalCallArgs(e, frame);
  if (failed(args))
    return failure();
  if (fn->is(Value::Builtin)) {
    args->callee = fn->getBuiltin();
    if (StringRef(args->callee).starts_with("py."))
      args->callee = args->callee.substr(3);
  } else if (fn->is(Value::Function) && fn->getFunction().def) {
    args->callee = fn->getFunction().def->getName().str();
  } else {
    args->callee = fn->repr();
  }
  return callValue(*fn, *args);
}

FailureOr<Value> Elaborator::callValue(const Value &callee, CallArgs &args) {
  if (callee.is(Value::Function))
    return callFunction(callee.getFunction(), args);
  if (callee.is(Value::Class))
    return instantiateClass(callee, args);
  if (callee.is(Value::Builtin))
    return callBuiltin(callee.getBuiltin(), args);
  if (callee.is(Value::DTypeV)) {
    // `T.float32(x)`: a typed constant or a cast.
    if (args.positional.size() != 1) {
      error(args.range, "`" + callee.repr() + "(...)` takes one value");
      return failure();
    }
    return castTo(args.positional[0].value, callee.getDType(), args.range);
  }
  error(args.range, "a `" + callee.typeName() + "` is not callable");
  return failure();
}

} // namespace tilec::mlirgen
