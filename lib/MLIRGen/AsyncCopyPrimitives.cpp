//===- AsyncCopyPrimitives.cpp - T.ptx_cp_async, T.access_ptr & co -------===//
//
// TileLang's raw asynchronous copies, as its warp-specialized MLA decode
// producer writes them:
//
//   T.ptx_cp_async(T.access_ptr(KV_s[s, r, c], "w", 8),
//                  T.access_ptr(KV[b, i, h, c], "r", 8), 8)
//   T.cp_async_barrier_noinc(bar_k_ready[s])
//
// - T.access_ptr(base, access_type="r", *extents, offset=0, extent=None,
//   ignore_last_ndim=0): the address of an element (`A[i, j]`), of a
//   region's first element (`A[i, :]`) or of a buffer's (`A`). tilec has
//   no pointer values: the call evaluates to a compile-time object (an
//   instance of the built-in class `T.access_ptr`) holding the buffer, the
//   element's indices, the access mask and the extent, which
//   T.ptx_cp_async takes apart. The address is the element's under the
//   buffer's layout, which the lowering applies (a swizzled tensor-core
//   operand's element is where its swizzle puts it).
// - T.ptx_cp_async(dst, src, num_elems, predicate=None): one cp.async of
//   `num_elems` elements (TileLang's tl.ptx_cp_async counts elements: the
//   bytes are num_elems times the pointers' element size, 4, 8 or 16),
//   from a global tensor into a shared buffer: tile.cp_async.
// - T.cp_async_barrier_noinc(bar): cp.async.mbarrier.arrive.noinc,
//   tile.cp_async_arrive.
// - T.ptx_commit_group() / T.ptx_wait_group(n): tile.cp_async_commit /
//   tile.cp_async_wait, which the lowering drops from a kernel without
//   tile.cp_async (TileLang's `prefer_async` stores, after which kernels
//   write these fences, are synchronous in tilec).
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "tilec/Dialect/TileOps.h"

using namespace mlir;
using llvm::SMRange;
using llvm::StringRef;
using llvm::Twine;

namespace tilec::mlirgen {

static const StringRef kAsyncCopyPrimitives[] = {
    "access_ptr", "ptx_cp_async", "cp_async_barrier_noinc",
    // cp.async group fences
    "ptx_commit_group", "ptx_wait_group"};

llvm::ArrayRef<StringRef> asyncCopyPrimitiveNames() {
  return kAsyncCopyPrimitives;
}

namespace {

/// The class of the objects T.access_ptr returns.
const std::shared_ptr<sema::ClassObject> &accessPtrClass() {
  static const std::shared_ptr<sema::ClassObject> cls = [] {
    auto c = std::make_shared<sema::ClassObject>();
    c->name = "T.access_ptr";
    return c;
  }();
  return cls;
}

/// What a T.access_ptr object holds.
struct AccessPtr {
  std::shared_ptr<BufferObject> buffer;
  std::vector<Value> indices; // Int or Runtime, one per dimension
  int64_t mask = 1;           // 1 read, 2 write, 3 both
  Value extent;               // Int, or Runtime when not known
};

Value makeAccessPtr(const AccessPtr &p) {
  auto obj = std::make_shared<sema::InstanceObject>();
  obj->cls = accessPtrClass();
  obj->attrs = {{"buffer", Value::buffer(p.buffer)},
                {"indices", Value::tuple(p.indices)},
                {"access_mask", Value::integer(p.mask)},
                {"extent", p.extent}};
  return Value::instance(obj);
}

std::optional<AccessPtr> readAccessPtr(const Value &v) {
  if (!v.is(Value::Instance) || v.getInstance().cls != accessPtrClass())
    return std::nullopt;
  sema::InstanceObject &obj = v.getInstance();
  AccessPtr p;
  p.buffer = obj.find("buffer")->getBufferPtr();
  p.indices = obj.find("indices")->getElements();
  p.mask = obj.find("access_mask")->getInt();
  p.extent = *obj.find("extent");
  return p;
}

std::string modeName(int64_t mask) {
  return mask == 1 ? "\"r\"" : mask == 2 ? "\"w\"" : "\"rw\"";
}

} // namespace

FailureOr<std::optional<Value>>
Elaborator::callAsyncCopyPrimitive(StringRef name, CallArgs &args) {
  using R = std::optional<Value>;
  if (!name.starts_with("T.") ||
      !llvm::is_contained(kAsyncCopyPrimitives, name.drop_front(2)))
    return R();
  auto bind = [&](llvm::ArrayRef<StringRef> names, unsigned required) {
    return bindArgs(args, names, required);
  };

  if (name == "T.access_ptr") {
    // base and access_type, then any number of per-axis extents; the rest
    // by keyword only.
    std::optional<Arg> base, access, offset, extent, ignore;
    std::vector<Arg> extents;
    for (auto [i, a] : llvm::enumerate(args.positional)) {
      if (i == 0)
        base = a;
      else if (i == 1)
        access = a;
      else
        extents.push_back(a);
    }
    for (auto &[key, a] : args.keywords) {
      std::optional<Arg> *slot = key == "base"               ? &base
                                 : key == "access_type"      ? &access
                                 : key == "offset"           ? &offset
                                 : key == "extent"           ? &extent
                                 : key == "ignore_last_ndim" ? &ignore
                                                             : nullptr;
      if (!slot) {
        error(a.range, "`T.access_ptr` has no parameter `" + key + "`");
        return failure();
      }
      if (*slot) {
        error(a.range, "`T.access_ptr` got `" + key + "` twice");
        return failure();
      }
      *slot = a;
    }
    if (!base) {
      error(args.range, "`T.access_ptr` needs the element, region or buffer "
                        "whose address it takes");
      return failure();
    }
    // The buffer and the minima of the subscript.
    AccessPtr p;
    std::vector<Value> mins;
    bool element = false;
    std::optional<int64_t> regionElems = 1;
    auto notAddressable = [&]() -> FailureOr<std::optional<Value>> {
      error(base->range, "`T.access_ptr` takes an element, a region or a "
                         "buffer (`A[i, j]`, `A[i, :]`, `A`), got `" +
                             base->value.repr() + "`");
      return failure();
    };
    if (base->value.is(Value::Buffer)) {
      p.buffer = base->value.getBufferPtr();
      for (size_t d = 0; d < p.buffer->shape.size(); ++d) {
        mins.push_back(Value::integer(0));
        std::optional<int64_t> n = p.buffer->staticDim(d);
        regionElems =
            n && regionElems ? std::optional(*regionElems * *n) : std::nullopt;
      }
    } else if (base->value.is(Value::Subscript)) {
      sema::SubscriptObject &s = base->value.getSubscript();
      if (!s.base.is(Value::Buffer))
        return notAddressable();
      p.buffer = s.base.getBufferPtr();
      if (s.indices.size() != p.buffer->shape.size()) {
        error(base->range, "`T.access_ptr` needs one index per dimension of `" +
                               p.buffer->name + "` (" +
                               Twine(p.buffer->shape.size()) + "), got " +
                               Twine(s.indices.size()));
        return failure();
      }
      element = true;
      for (auto [d, ix] : llvm::enumerate(s.indices)) {
        if (!ix.is(Value::Slice)) {
          mins.push_back(ix);
          continue;
        }
        element = false;
        const auto &parts = ix.getSliceParts();
        if (parts[2] && !(parts[2]->isIntLike() && parts[2]->getInt() == 1)) {
          error(base->range, "`T.access_ptr` of a strided region: its "
                             "elements are not one run of memory");
          return failure();
        }
        Value lo = parts[0] ? *parts[0] : Value::integer(0);
        mins.push_back(lo);
        std::optional<int64_t> hi =
            parts[1]
                ? (parts[1]->isIntLike() ? std::optional(parts[1]->getInt())
                                         : std::nullopt)
                : p.buffer->staticDim(d);
        regionElems = hi && lo.isIntLike() && regionElems
                          ? std::optional(*regionElems * (*hi - lo.getInt()))
                          : std::nullopt;
      }
      if (element && failed(checkElementInBounds(s)))
        return failure();
    } else {
      return notAddressable();
    }
    BufferObject &buf = *p.buffer;
    if (buf.scope == MemScope::Fragment || buf.scope == MemScope::Var) {
      error(base->range,
            "`T.access_ptr` of " +
                Twine(buf.scope == MemScope::Fragment ? "the fragment `"
                                                      : "the variable `") +
                buf.name +
                "`: its elements live in the registers of the threads "
                "that hold them and have no address (take the address of "
                "a shared, local or global buffer)");
      return failure();
    }
    if (failed(refuseReshapeView(buf, base->range, "`T.access_ptr`")))
      return failure();
    if (!buf.indexMap.isNone()) {
      error(base->range, "`T.access_ptr` of `" + buf.name +
                             "`, whose elements `T.annotate_layout` "
                             "placed by an index map: the address of an "
                             "element is not its row-major one");
      return failure();
    }
    // The access mask.
    p.mask = 1;
    if (access) {
      const Value &a = access->value;
      if (a.is(Value::Str) &&
          (a.getStr() == "r" || a.getStr() == "w" || a.getStr() == "rw"))
        p.mask = a.getStr() == "r" ? 1 : a.getStr() == "w" ? 2 : 3;
      else if (a.isIntLike() && a.getInt() >= 1 && a.getInt() <= 3)
        p.mask = a.getInt();
      else {
        error(access->range, "`T.access_ptr`'s access type is \"r\", \"w\" "
                             "or \"rw\" (or the mask 1, 2, 3), got `" +
                                 a.repr() + "`");
        return failure();
      }
    }
    // ignore_last_ndim: the trailing indices count from 0.
    if (ignore) {
      FailureOr<int64_t> n = requireInt(*ignore, "`ignore_last_ndim`");
      if (failed(n))
        return failure();
      if (*n < 0) {
        error(ignore->range,
              "`ignore_last_ndim` must not be negative, got " + Twine(*n));
        return failure();
      }
      for (size_t d = mins.size() > size_t(*n) ? mins.size() - *n : 0;
           d < mins.size(); ++d)
        mins[d] = Value::integer(0);
    }
    // offset: an element offset, for a 1-D buffer (TileLang's rule).
    if (offset && !(offset->value.isIntLike() && offset->value.getInt() == 0)) {
      if (mins.size() != 1) {
        error(offset->range, "`T.access_ptr(offset=...)` is for 1-D buffers; "
                             "index the element of `" +
                                 buf.name + "` instead (`A[i + off, j]`)");
        return failure();
      }
      FailureOr<Value> sum = evalBinary(ast::BinOpKind::Add, mins[0],
                                        offset->value, offset->range);
      if (failed(sum))
        return failure();
      mins[0] = *sum;
    }
    for (Value &ix : mins)
      if (!ix.isIntLike() && !ix.is(Value::Runtime)) {
        FailureOr<Value> m = materialize(ix, base->range);
        if (failed(m))
          return failure();
        if (!m->isIntLike() && !m->is(Value::Runtime)) {
          error(base->range, "an index of `T.access_ptr` must be an integer, "
                             "got `" +
                                 ix.repr() + "`");
          return failure();
        }
        ix = *m;
      }
    p.indices = mins;
    // The extent, in elements: TileLang's defaults (one element, the
    // region, the whole buffer) unless given.
    auto intOrRuntime = [&](const Arg &a) -> FailureOr<Value> {
      if (a.value.isIntLike()) {
        if (a.value.getInt() <= 0) {
          error(a.range, "the extent of `T.access_ptr` must be positive, got " +
                             Twine(a.value.getInt()));
          return failure();
        }
        return a.value;
      }
      FailureOr<mlir::Value> v = toIndex(a.value, a.range);
      if (failed(v))
        return failure();
      return Value::none(); // not known at compile time
    };
    if (extent) {
      FailureOr<Value> e = intOrRuntime(*extent);
      if (failed(e))
        return failure();
      p.extent = *e;
    } else if (!extents.empty()) {
      if (extents.size() > buf.shape.size()) {
        error(extents.back().range,
              "`T.access_ptr` got " + Twine(extents.size()) +
                  " extents for the " + Twine(buf.shape.size()) +
                  "-d buffer `" + buf.name + "`");
        return failure();
      }
      std::optional<int64_t> product = 1;
      for (const Arg &a : extents) {
        FailureOr<Value> e = intOrRuntime(a);
        if (failed(e))
          return failure();
        product = product && e->isIntLike()
                      ? std::optional(*product * e->getInt())
                      : std::nullopt;
      }
      p.extent = product ? Value::integer(*product) : Value::none();
    } else {
      p.extent = element       ? Value::integer(1)
                 : regionElems ? Value::integer(*regionElems)
                               : Value::none();
    }
    return R(makeAccessPtr(p));
  }

  if (name == "T.ptx_cp_async") {
    if (failed(requireKernel(args)))
      return failure();
    auto b =
        bind({"dst_access_ptr", "src_access_ptr", "num_elems", "predicate"}, 3);
    if (failed(b))
      return failure();
    const Arg &dstArg = *(*b)[0], &srcArg = *(*b)[1];
    std::optional<AccessPtr> dst = readAccessPtr(dstArg.value);
    std::optional<AccessPtr> src = readAccessPtr(srcArg.value);
    for (auto [p, a, what] : {std::tuple(&dst, &dstArg, "destination"),
                              std::tuple(&src, &srcArg, "source")})
      if (!*p) {
        error(a->range, "`T.ptx_cp_async` takes its " + Twine(what) +
                            " as `T.access_ptr(...)`, got `" + a->value.repr() +
                            "`");
        return failure();
      }
    if (dst->buffer->scope != MemScope::Shared) {
      error(dstArg.range, "`T.ptx_cp_async` copies into shared memory; `" +
                              dst->buffer->name + "` is in " +
                              spelling(dst->buffer->scope) + " memory");
      return failure();
    }
    if (src->buffer->scope != MemScope::Global) {
      error(srcArg.range, "`T.ptx_cp_async` copies from a global tensor; `" +
                              src->buffer->name + "` is in " +
                              spelling(src->buffer->scope) + " memory");
      return failure();
    }
    if (!(dst->mask & 2)) {
      error(dstArg.range, "`T.ptx_cp_async` writes through its destination, "
                          "which `T.access_ptr(..., " +
                              modeName(dst->mask) + ")` declares read-only");
      return failure();
    }
    if (!(src->mask & 1)) {
      error(srcArg.range, "`T.ptx_cp_async` reads through its source, which "
                          "`T.access_ptr(..., " +
                              modeName(src->mask) + ")` declares write-only");
      return failure();
    }
    FailureOr<int64_t> n =
        requireInt(*(*b)[2], "the element count of `T.ptx_cp_async`");
    if (failed(n))
      return failure();
    unsigned dstBits = dst->buffer->dtype.bits(),
             srcBits = src->buffer->dtype.bits();
    if (dstBits != srcBits) {
      error(args.range, Twine("`T.ptx_cp_async` copies bytes between "
                              "elements of one width; `") +
                            src->buffer->name + "` holds " +
                            src->buffer->dtype.name() + " and `" +
                            dst->buffer->name + "` " +
                            dst->buffer->dtype.name());
      return failure();
    }
    int64_t bytes = *n * int64_t(dstBits) / 8;
    if (*n <= 0 || (bytes != 4 && bytes != 8 && bytes != 16)) {
      error((*b)[2]->range,
            "`T.ptx_cp_async` copies 4, 8 or 16 bytes (cp.async); " +
                Twine(*n) + " elements of " + dst->buffer->dtype.name() +
                " are " + Twine(*n * int64_t(dstBits) / 8) +
                " bytes (the count is of elements, as TileLang's)");
      return failure();
    }
    mlir::Value predicate;
    if ((*b)[3] && !(*b)[3]->value.isNone()) {
      const Arg &a = *(*b)[3];
      FailureOr<Value> scalar = toScalar(a.value, a.range);
      if (failed(scalar))
        return failure();
      FailureOr<mlir::Value> c = toIR(*scalar, builder.getI1Type(), a.range);
      if (failed(c))
        return failure();
      predicate = *c;
    }
    auto indices = [&](const AccessPtr &p,
                       SMRange range) -> FailureOr<SmallVector<mlir::Value>> {
      SmallVector<mlir::Value> idx;
      for (const Value &ix : p.indices) {
        FailureOr<mlir::Value> v = toIndex(ix, range);
        if (failed(v))
          return failure();
        idx.push_back(*v);
      }
      return idx;
    };
    FailureOr<SmallVector<mlir::Value>> dstIdx = indices(*dst, dstArg.range);
    FailureOr<SmallVector<mlir::Value>> srcIdx = indices(*src, srcArg.range);
    if (failed(dstIdx) || failed(srcIdx))
      return failure();
    tile::CpAsyncOp::create(builder, loc(args.range.Start), src->buffer->memref,
                            *srcIdx, dst->buffer->memref, *dstIdx, *n,
                            predicate);
    return R(Value::none());
  }

  if (name == "T.cp_async_barrier_noinc") {
    if (failed(requireKernel(args)))
      return failure();
    auto b = bind({"barrier"}, 1);
    if (failed(b))
      return failure();
    auto bar = barrierRef(*(*b)[0], "barrier");
    if (failed(bar))
      return failure();
    tile::CpAsyncArriveOp::create(builder, loc(args.range.Start), bar->first,
                                  bar->second);
    return R(Value::none());
  }

  if (name == "T.ptx_commit_group") {
    if (failed(bind({}, 0)))
      return failure();
    if (kernelDepth)
      tile::CpAsyncCommitOp::create(builder, loc(args.range.Start));
    return R(Value::none());
  }
  // name == "T.ptx_wait_group"
  auto b = bind({"num"}, 1);
  if (failed(b))
    return failure();
  FailureOr<int64_t> n = requireInt(*(*b)[0], "`num`");
  if (failed(n))
    return failure();
  if (*n < 0) {
    error((*b)[0]->range, "`T.ptx_wait_group` takes the number of groups "
                          "left in flight, a non-negative integer; got " +
                              Twine(*n));
    return failure();
  }
  if (kernelDepth)
    tile::CpAsyncWaitOp::create(builder, loc(args.range.Start), *n);
  return R(Value::none());
}

} // namespace tilec::mlirgen
