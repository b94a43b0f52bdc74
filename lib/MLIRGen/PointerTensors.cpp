//===- PointerTensors.cpp - T.make_tensor over a T.ptr table --------------===//
//
// TileLang passes tensors whose number or addresses vary at run time (the
// groups of a grouped GEMM) as a table of device pointers: a kernel
// parameter `T.Tensor([n], T.ptr)`, and `T.make_tensor(ptrs[g], shape,
// dtype)` on the device to see one of them as a global tensor. tilec keeps
// the table an ordinary 64-bit memref argument marked `tile.dtype = "ptr"`
// (for the launch header and the metadata), and an element read from it a
// runtime value of dtype ptr, which refusePointer keeps out of arithmetic,
// casts and stores. T.make_tensor turns one into `tile.make_tensor`, a
// global memref built on the address: every T.copy, T.gemm operand copy
// and element access then treats it as a global tensor, except what needs
// its address on the host (TMA tensor maps, the header's checks), which
// only kernel arguments have.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "tilec/Dialect/TileOps.h"

using namespace mlir;
using llvm::SMRange;
using llvm::Twine;

namespace tilec::mlirgen {

FailureOr<Value> Elaborator::callMakeTensor(CallArgs &args) {
  auto b = bindArgs(args, {"ptr", "shape", "dtype", "strides"}, 2);
  if (failed(b))
    return failure();
  if (failed(requireKernel(args)))
    return failure();
  const Arg &ptrArg = *(*b)[0];
  const Arg &shapeArg = *(*b)[1];
  if ((*b)[3] && !(*b)[3]->value.isNone()) {
    error((*b)[3]->range, "`T.make_tensor` with `strides` is not supported "
                          "yet by tilec: the tensor is row-major (see "
                          "docs/language.md, section 11)");
    return failure();
  }

  // The address: an element of a T.ptr table, or such an element bound to a
  // name before.
  std::string table;
  Value address;
  const Value &p = ptrArg.value;
  if (p.is(Value::Subscript) &&
      p.getSubscript().base.getBuffer().dtype.isPointer()) {
    table = p.getSubscript().base.getBuffer().name;
    FailureOr<Value> loaded = toScalar(p, ptrArg.range);
    if (failed(loaded))
      return failure();
    address = *loaded;
  } else if (p.is(Value::Runtime) && p.getRuntime().dtype.isPointer()) {
    address = p;
  } else if (p.is(Value::Buffer) && p.getBuffer().dtype.isPointer()) {
    error(ptrArg.range, "`T.make_tensor` takes one address: index the "
                        "`T.ptr` table `" +
                            p.getBuffer().name + "`, e.g. `" +
                            p.getBuffer().name + "[i]`");
    return failure();
  } else {
    std::string seen =
        p.is(Value::Subscript)
            ? "an element of `" + p.getSubscript().base.getBuffer().name +
                  "`, a " +
                  p.getSubscript().base.getBuffer().dtype.name().str() +
                  " buffer"
        : p.is(Value::Runtime)
            ? "a runtime " + p.getRuntime().dtype.name().str()
            : "`" + p.repr() + "`";
    error(ptrArg.range, "`T.make_tensor` needs a device address, an element "
                        "of a `T.Tensor([n], T.ptr)` parameter; got " +
                            seen);
    return failure();
  }

  // A static row-major shape: the descriptor is built from it alone.
  std::vector<int64_t> shape;
  std::vector<Value> dims = shapeArg.value.isSequence()
                                ? shapeArg.value.getElements()
                                : std::vector<Value>{shapeArg.value};
  for (const Value &d : dims) {
    if (!d.isIntLike()) {
      error(shapeArg.range,
            "`T.make_tensor` needs a shape of compile-time integers, got `" +
                d.repr() + "`" +
                (d.is(Value::Runtime) || d.is(Value::Symbol)
                     ? "; a tensor of run-time shape is not supported yet "
                       "(see docs/language.md, section 11)"
                     : ""));
      return failure();
    }
    if (d.getInt() <= 0) {
      error(shapeArg.range,
            "`T.make_tensor` dimensions must be positive, got " +
                Twine(d.getInt()));
      return failure();
    }
    shape.push_back(d.getInt());
  }
  if (shape.empty()) {
    error(shapeArg.range, "`T.make_tensor` needs at least one dimension");
    return failure();
  }
  DType dtype = DType::Float32;
  if ((*b)[2]) {
    FailureOr<DType> d = requireDType(*(*b)[2]);
    if (failed(d))
      return failure();
    dtype = *d;
  }
  std::vector<Value> shapeValues;
  for (int64_t d : shape)
    shapeValues.push_back(Value::integer(d));
  if (std::string why = elementCountProblem(
          "a tensor", shapeValues, options.indexBits != IndexBits::Bits32);
      !why.empty()) {
    error(shapeArg.range, why);
    return failure();
  }

  auto type = MemRefType::get(shape, irType(dtype));
  auto op = tile::MakeTensorOp::create(builder, loc(args.range.Start), type,
                                       address.getRuntime().value);
  auto buf = std::make_shared<BufferObject>();
  buf->name = table.empty() ? "make_tensor" : table + "_tensor";
  buf->scope = MemScope::Global;
  buf->dtype = dtype;
  buf->shape = shapeValues;
  buf->memref = op.getResult();
  buf->loc = args.range.Start;
  return Value::buffer(buf);
}

} // namespace tilec::mlirgen
