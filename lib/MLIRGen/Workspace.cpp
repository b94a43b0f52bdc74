//===- Workspace.cpp - T.alloc_global: a global workspace of the launch ---===//
//
// `T.alloc_global(shape, dtype)` in a prim_func body, outside `T.Kernel`,
// is global memory the launch needs for itself: a split-K or flash-decoding
// kernel writes partial results there and a second kernel of the same
// prim_func combines them. TileLang's runtime allocates it per call; ahead
// of time the launch function cannot allocate behind the caller's back (no
// hidden cuMemAlloc in a launch), so tilec makes it a pointer argument of
// the launch function, after the others, that the caller allocates once
// and passes (as CUTLASS does with its workspaces). The header documents it
// as a workspace; its contents between launches are unspecified.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using llvm::SMRange;

namespace tilec::mlirgen {

FailureOr<Value> Elaborator::allocGlobalWorkspace(CallArgs &args) {
  if (!traced || kernelDepth > 0 || callDepth != 0) {
    error(args.range, "`" + args.callee + "` allocates a global workspace "
                      "of the launch: call it in the @T.prim_func body (or "
                      "the eager factory's), outside `T.Kernel`");
    return failure();
  }
  CallArgs tensor = args;
  tensor.callee = args.callee;
  tensor.keywords.erase(
      std::remove_if(tensor.keywords.begin(), tensor.keywords.end(),
                     [](auto &kw) { return kw.first == "scope"; }),
      tensor.keywords.end());
  if (tensor.positional.size() > 2)
    tensor.positional.resize(2);
  FailureOr<Value> type = callPrimitive("T.Tensor", tensor);
  if (failed(type))
    return failure();
  const sema::TensorTypeObject &t = type->getTensorType();
  if (t.dtype.isPointer()) {
    error(args.range, "`" + args.callee + "` of `T.ptr` elements: a "
                      "workspace holds data; pointer tables are kernel "
                      "parameters (`T.Tensor([n], T.ptr)`)");
    return failure();
  }
  SmallVector<int64_t> shape;
  SmallVector<Attribute> dims;
  for (const Value &d : t.shape) {
    if (d.is(Value::Symbol)) {
      // Its size argument must exist before the device can use it.
      if (failed(materialize(d, args.range)))
        return failure();
      shape.push_back(ShapedType::kDynamic);
      dims.push_back(builder.getStringAttr(d.getSymbol().name));
    } else if (d.is(Value::Runtime)) {
      shape.push_back(ShapedType::kDynamic);
      dims.push_back(builder.getStringAttr(d.getRuntime().hostExpr));
    } else {
      shape.push_back(d.getInt());
      dims.push_back(builder.getStringAttr(std::to_string(d.getInt())));
    }
  }
  func::FuncOp func = traced->func;
  unsigned index = func.getNumArguments();
  std::string name = pendingName.empty()
                         ? "workspace" + std::to_string(index)
                         : pendingName;
  (void)func.insertArgument(index, MemRefType::get(shape, irType(t.dtype)),
                            {}, loc(args.range.Start));
  func.setArgAttr(index, "tile.name", builder.getStringAttr(name));
  func.setArgAttr(index, "tile.shape", builder.getArrayAttr(dims));
  func.setArgAttr(index, "tile.workspace", builder.getUnitAttr());
  auto buf = std::make_shared<BufferObject>();
  buf->name = name;
  buf->scope = MemScope::Global;
  buf->dtype = t.dtype;
  buf->shape = t.shape;
  buf->memref = func.getArgument(index);
  buf->loc = args.range.Start;
  return Value::buffer(buf);
}

} // namespace tilec::mlirgen
