//===- Persistent.cpp - T.Persistent tile scheduling ----------------------===//
//
// `for bx, by in T.Persistent(domain, wave_size, index, group_size)` walks a
// tile domain with a fixed number of blocks: wave `w` gives the block at
// position `index` the tile of linear number `w * wave_size + index`. As in
// TileLang, the last dimension is split into groups of `group_size` tiles
// (clamped to 1..extent) and the linear number is read in the mixed radix
// (D0, .., D(n-2), groups, group_size), so the last dimension is padded to
// whole groups; tiles past the domain (the padding, and the last partial
// wave) skip the body. The loop is an ordinary serial loop over the waves
// with the coordinates computed at its top: every later pass sees the same
// shape as a hand-written `for w in T.serial(waves): if ...:` loop.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"
#include "ValueArith.h"

#include "tilec/Dialect/TileOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using llvm::SMRange;
using llvm::Twine;

namespace tilec::mlirgen {

FailureOr<Value> Elaborator::persistentLoop(CallArgs &args) {
  auto b = bindArgs(args, {"domain", "wave_size", "index", "group_size"}, 3);
  if (failed(b))
    return failure();
  auto spec = std::make_shared<sema::LoopSpec>();
  spec->kind = sema::LoopSpec::Persistent;
  spec->loc = args.range.Start;
  const Arg &domain = *(*b)[0];
  std::vector<Value> extents = domain.value.isSequence()
                                   ? domain.value.getElements()
                                   : std::vector<Value>{domain.value};
  if (extents.empty()) {
    error(domain.range, "`T.Persistent` needs at least one domain extent");
    return failure();
  }
  auto integral = [](const Value &v) {
    return v.isIntLike() || v.is(Value::Runtime) || v.is(Value::Symbol) ||
           v.is(Value::Subscript);
  };
  for (const Value &e : extents) {
    if (!integral(e)) {
      error(domain.range, "`T.Persistent` domain extents must be integers, "
                          "got `" +
                              e.repr() + "`");
      return failure();
    }
    if (e.isIntLike() && e.getInt() <= 0) {
      error(domain.range, "`T.Persistent` domain extents must be positive, "
                          "got " +
                              Twine(e.getInt()));
      return failure();
    }
  }
  spec->domain = extents;
  spec->waveSize = (*b)[1]->value;
  spec->index = (*b)[2]->value;
  spec->groupSize = (*b)[3] ? (*b)[3]->value : Value::integer(8);
  for (auto [v, what, range] :
       {std::tuple{&spec->waveSize, "wave_size", (*b)[1]->range},
        std::tuple{&spec->index, "index", (*b)[2]->range},
        std::tuple{&spec->groupSize, "group_size",
                   (*b)[3] ? (*b)[3]->range : args.range}}) {
    if (v->is(Value::Buffer) && v->getBuffer().scope == MemScope::Var) {
      FailureOr<Value> s = toScalar(*v, range);
      if (failed(s))
        return failure();
      *v = *s;
    }
    if (!integral(*v)) {
      error(range, "`" + Twine(what) +
                       "` of `T.Persistent` must be an "
                       "integer, got `" +
                       v->repr() + "`");
      return failure();
    }
  }
  if (spec->waveSize.isIntLike() && spec->waveSize.getInt() <= 0) {
    error((*b)[1]->range, "`wave_size` of `T.Persistent` must be positive");
    return failure();
  }
  return Value::loop(spec);
}

Flow Elaborator::execPersistentLoop(const ast::ForStmt &s,
                                    const sema::LoopSpec &spec,
                                    llvm::ArrayRef<const ast::NameExpr *> vars,
                                    Frame &frame) {
  SMRange r = s.getIter()->getRange();
  size_t n = spec.domain.size();
  if (vars.size() != n) {
    error(s.getTarget()->getRange(),
          "this loop binds " + Twine(vars.size()) + " variable" +
              (vars.size() == 1 ? "" : "s") +
              " but its `T.Persistent` "
              "domain has " +
              Twine(n) + " dimension" + (n == 1 ? "" : "s"));
    return Flow::Error;
  }
  ValueArith va(*this, r);
  using K = ast::BinOpKind;
  const Value &last = spec.domain.back();
  Value group = va.op(BinaryOpLike::Max, Value::integer(1),
                      va.op(BinaryOpLike::Min, spec.groupSize, last));
  Value groups = va.ceilDiv(last, group);
  Value outer = Value::integer(1);
  for (size_t k = 0; k + 1 < n; ++k)
    outer = va.bin(K::Mul, outer, spec.domain[k]);
  Value padded = va.bin(K::Mul, va.bin(K::Mul, outer, groups), group);
  Value waves = va.ceilDiv(padded, spec.waveSize);
  if (va.failed())
    return Flow::Error;

  Location l = loc(s.getLoc());
  OpBuilder::InsertionGuard guard(builder);
  FailureOr<mlir::Value> ub = toIndex(waves, r);
  if (failed(ub) || failed(noteLoopBound(*ub, r)))
    return Flow::Error;
  auto loop = tile::ForOp::create(builder, l, tile::LoopKind::serial,
                                  constIndex(0), *ub, constIndex(1));
  builder.setInsertionPoint(loop.getBody()->getTerminator());
  Value w = wrapRuntime(loop.getInductionVar(), DType::Int32,
                        /*isIndex=*/true);
  Value linear = va.bin(K::Add, va.bin(K::Mul, w, spec.waveSize), spec.index);
  // Mixed-radix digits, least significant first.
  Value offset = va.bin(K::Mod, linear, group);
  Value rem = va.bin(K::FloorDiv, linear, group);
  std::vector<Value> coords(n);
  if (n == 1) {
    coords[0] = va.bin(K::Add, va.bin(K::Mul, rem, group), offset);
  } else {
    Value g = va.bin(K::Mod, rem, groups);
    rem = va.bin(K::FloorDiv, rem, groups);
    coords[n - 1] = va.bin(K::Add, va.bin(K::Mul, g, group), offset);
    for (size_t k = n - 2; k >= 1; --k) {
      coords[k] = va.bin(K::Mod, rem, spec.domain[k]);
      rem = va.bin(K::FloorDiv, rem, spec.domain[k]);
    }
    coords[0] = rem;
  }
  // The guards TileLang emits: past the padded domain (a partial last wave),
  // and past the last dimension (its partial last group). One that folds to
  // true is dropped.
  std::optional<Value> cond;
  auto require = [&](const Value &c) {
    if (va.failed() || (c.isConstant() && c.truthy()))
      return;
    cond = cond ? va.op(BinaryOpLike::And, *cond, c) : c;
  };
  bool wholeWaves = waves.isIntLike() && spec.waveSize.isIntLike() &&
                    padded.isIntLike() &&
                    waves.getInt() * spec.waveSize.getInt() == padded.getInt();
  if (!wholeWaves)
    require(va.op(BinaryOpLike::Lt, linear, padded));
  bool wholeGroups = last.isIntLike() && group.isIntLike() &&
                     last.getInt() % group.getInt() == 0;
  if (!wholeGroups)
    require(va.op(BinaryOpLike::Lt, coords[n - 1], last));
  if (va.failed())
    return Flow::Error;
  loopExits.push_back(nullptr);
  llvm::scope_exit popExit([&] { loopExits.pop_back(); });
  unsigned depth = regionDepth++;
  if (cond) {
    FailureOr<Value> scalar = toScalar(*cond, r);
    if (failed(scalar))
      return Flow::Error;
    FailureOr<mlir::Value> c = toIR(*scalar, builder.getI1Type(), r);
    if (failed(c))
      return Flow::Error;
    auto ifOp = scf::IfOp::create(builder, l, *c, /*withElse=*/false);
    builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  }
  for (size_t k = 0; k < n; ++k)
    frame.scope->bind(vars[k]->getName(),
                      {coords[k], vars[k]->getLoc(), regionDepth, ""});
  Flow f = execBlock(s.getBody(), frame);
  regionDepth = depth;
  poisonRegionBindings(*frame.scope, depth,
                       "is defined inside the T.Persistent loop and cannot "
                       "be used after it");
  for (const ast::NameExpr *v : vars)
    if (Binding *b = frame.scope->lookupLocal(v->getName()))
      b->poison =
          ("loop variable `" + v->getName() + "` cannot be used after its loop")
              .str();
  if (f == Flow::Break || f == Flow::Continue) {
    error(s.getRange(), "`break` and `continue` cannot leave a T.Persistent "
                        "loop");
    return Flow::Error;
  }
  if (f == Flow::Return) {
    error(s.getRange(), "`return` cannot leave a device loop");
    return Flow::Error;
  }
  return f;
}

} // namespace tilec::mlirgen
