//===- Quantize.cpp - tilelang.quantize's expression builders ------------===//
//
// TileLang's dequantizing kernels build their unpacking expressions with
// helpers of `tilelang.quantize` (quantization.py): a factory of the storage
// type returns `f_convert(nbit, val, pos, dtype)`, which extracts the
// `pos`-th `nbit`-bit field of the packed `val` and converts it. They are
// TIR expression builders, so in tilec they build the same expression from
// tilec's operators, with TVM's types made explicit where TVM would promote
// (a uint32 or int32 shift widens the storage value first):
//
//   _tir_packed_to_unsigned_convert(t, n)(nbit, val, pos, dtype):
//       ((val >> S(pos * nbit)) & S(2^nbit - 1)).astype(dtype), S = t + n
//   ..._with_zeros(t, n)(nbit, val, pos, zero, dtype): the field - zero
//   _tir_packed_to_signed_convert(t, n)(nbit, val, pos, dtype):
//       ((u32(val) >> u32(pos) * nbit) & (2^nbit - 1)).astype(dtype)
//       - 2^(nbit - 1)                       (an offset-binary field)
//   _tir_packed_int_to_int_convert(t, n)(nbit, val, pos, dtype):
//       the field, sign-extended from nbit bits in int32, as dtype
//
// The LOP3 / MXFP helpers (get_lop3_intrin_group, get_mxfp_intrin_group)
// return CUDA source for T.call_extern, which tilec has no way to run.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

using namespace mlir;
using llvm::SMRange;
using llvm::StringRef;
using llvm::Twine;

namespace tilec::mlirgen {

FailureOr<Value> Elaborator::callQuantize(StringRef name, CallArgs &args) {
  StringRef fn = name.drop_front(StringRef("tilelang.quantize.").size());
  bool convert = fn.consume_back(".f_convert");
  bool zeros = fn == "_tir_packed_to_unsigned_convert_with_zeros";
  if (!llvm::is_contained(
          {StringRef("_tir_packed_to_unsigned_convert"),
           StringRef("_tir_packed_to_signed_convert"),
           StringRef("_tir_packed_int_to_int_convert"),
           StringRef("_tir_packed_to_unsigned_convert_with_zeros")},
          fn)) {
    error(args.range,
          "`tilelang.quantize." + fn + "` is not available in .tile files");
    return failure();
  }

  if (!convert) {
    // The factory: (storage_type="uint", storage_nbit=8) -> f_convert.
    auto b = bindArgs(args, {"storage_type", "storage_nbit"}, 0);
    if (failed(b))
      return failure();
    Value type = (*b)[0] ? (*b)[0]->value : Value::string("uint");
    Value bits = (*b)[1] ? (*b)[1]->value : Value::integer(8);
    SMRange at = (*b)[0] ? (*b)[0]->range : args.range;
    if (!type.is(Value::Str) || !bits.is(Value::Int) ||
        !DType::parse(type.getStr() + std::to_string(bits.getInt())) ||
        (type.getStr() != "int" && type.getStr() != "uint")) {
      error(at, "`" + fn +
                    "` takes a storage type \"int\" or \"uint\" and "
                    "its bits (8, 16, 32 or 64), got " +
                    type.repr() + ", " + bits.repr());
      return failure();
    }
    auto f = std::make_shared<sema::FunctionObject>();
    auto bound = std::make_shared<sema::PartialObject>();
    bound->callee = Value::builtin(name.str() + ".f_convert");
    bound->args = {type, bits};
    f->partial = bound;
    return Value::function(f);
  }

  std::vector<StringRef> names = {"storage_type", "storage_nbit", "nbit", "val",
                                  "pos"};
  if (zeros)
    names.push_back("zero");
  names.push_back("dtype");
  auto b = bindArgs(args, names, unsigned(names.size()));
  if (failed(b))
    return failure();
  const Arg &nbitArg = *(*b)[2], &valArg = *(*b)[3], &posArg = *(*b)[4];
  const Arg &dtypeArg = *(*b)[names.size() - 1];
  DType storage = *DType::parse((*b)[0]->value.getStr() +
                                std::to_string((*b)[1]->value.getInt()));
  FailureOr<int64_t> nbit = requireInt(nbitArg, "`nbit`");
  if (failed(nbit))
    return failure();
  if (*nbit < 1 || *nbit >= int64_t(storage.bits()) || *nbit > 16) {
    error(nbitArg.range, "`nbit` must be between 1 and " +
                             Twine(std::min<unsigned>(storage.bits() - 1, 16)) +
                             " for " + storage.name() + " storage, got " +
                             Twine(*nbit));
    return failure();
  }
  FailureOr<DType> to = requireDType(dtypeArg);
  if (failed(to))
    return failure();
  FailureOr<Value> val = toScalar(valArg.value, valArg.range);
  if (failed(val))
    return failure();
  // TileLang asserts val.dtype == storage_dtype.
  std::optional<DType> valType =
      val->is(Value::Runtime) ? std::optional<DType>(val->getRuntime().dtype)
                              : std::nullopt;
  if (!valType || *valType != storage) {
    error(valArg.range,
          "`" + fn + "` unpacks a " + storage.name() + " value, got `" +
              (valType ? valType->name().str() : val->repr()) + "`");
    return failure();
  }

  SMRange r = args.range;
  int64_t mask = (int64_t(1) << *nbit) - 1;
  auto typed = [&](int64_t v, DType t) {
    return castTo(Value::integer(v), t, r);
  };
  auto bin = [&](ast::BinOpKind op, FailureOr<Value> a,
                 FailureOr<Value> c) -> FailureOr<Value> {
    if (failed(a) || failed(c))
      return failure();
    return evalBinary(op, *a, *c, r);
  };
  using B = ast::BinOpKind;
  FailureOr<Value> field;
  if (fn == "_tir_packed_to_signed_convert") {
    DType u32 = DType::UInt32;
    FailureOr<Value> shift =
        bin(B::Mul, castTo(posArg.value, u32, r), typed(*nbit, u32));
    field = bin(B::BitAnd, bin(B::RShift, castTo(*val, u32, r), shift),
                typed(mask, u32));
    if (failed(field))
      return failure();
    return bin(B::Sub, castTo(*field, *to, r),
               typed(int64_t(1) << (*nbit - 1), *to));
  }
  if (fn == "_tir_packed_int_to_int_convert") {
    DType i32 = DType::Int32;
    FailureOr<Value> shift =
        bin(B::Mul, castTo(posArg.value, i32, r), typed(*nbit, i32));
    field = bin(B::BitAnd, bin(B::RShift, castTo(*val, i32, r), shift),
                typed(mask, i32));
    FailureOr<Value> up = typed(32 - *nbit, i32);
    FailureOr<Value> s = bin(B::RShift, bin(B::LShift, field, up), up);
    if (failed(s))
      return failure();
    return castTo(*s, *to, r);
  }
  // The unsigned field, in the storage type.
  FailureOr<Value> shift = bin(B::Mul, posArg.value, Value::integer(*nbit));
  if (failed(shift))
    return failure();
  field = bin(B::BitAnd, bin(B::RShift, *val, castTo(*shift, storage, r)),
              typed(mask, storage));
  if (zeros)
    field = bin(B::Sub, field, (*b)[5]->value);
  if (failed(field))
    return failure();
  return castTo(*field, *to, r);
}

} // namespace tilec::mlirgen
