//===- Eager.cpp - Eager-style @tilelang.jit factories --------------------===//
//
// TileLang's newer factory style has no nested @T.prim_func: the factory's
// own body is the kernel. Its tensor parameters get their types from
// annotations in the body (`A: T.Tensor((M, K), dtype)`), sizes named with
// `T.const("M, K")` are compile-time constants that TileLang reads off the
// tensors at call time, and outputs are allocated with `T.empty(...)` and
// returned. Compiling ahead of time there is no call: `-D` and --instances
// bind the T.const names, the tensor parameters and the T.empty outputs
// become the launch function's pointer arguments (inputs in signature order,
// then outputs in allocation order, then the T.dynamic sizes), and the body
// is traced like a prim_func whose signature grows as declarations are met.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "tilec/Dialect/TileDialect.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <functional>

using namespace mlir;
using llvm::SMLoc;
using llvm::SMRange;
using llvm::StringRef;
using llvm::Twine;

namespace tilec::mlirgen {

/// What an eager-style factory's trace has declared so far.
struct EagerTrace {
  const ast::FunctionDefStmt *factory = nullptr;
  const InstanceSpec *spec = nullptr;
  /// Launch-argument parameters in signature order, and which are declared.
  std::vector<StringRef> runtimeParams;
  std::vector<bool> declared;
  std::vector<SMLoc> declaredAt;
  /// T.empty tensors in allocation order.
  std::vector<std::shared_ptr<BufferObject>> outputs;
  /// T.const bindings, for the instance's recorded parameters.
  std::vector<std::pair<std::string, Value>> consts;
  /// T.const sizes with no value: runtime dimensions, one symbol per name.
  std::vector<std::shared_ptr<sema::SymbolObject>> genericConsts;
};

//===----------------------------------------------------------------------===//
// Recognizing the style (on the AST, before anything runs)
//===----------------------------------------------------------------------===//

/// `a.b.c` for a name/attribute chain, "" otherwise.
static std::string dottedName(const ast::Expr *e) {
  if (auto *name = llvm::dyn_cast_or_null<ast::NameExpr>(e))
    return name->getName().str();
  if (auto *attr = llvm::dyn_cast_or_null<ast::AttributeExpr>(e)) {
    std::string base = dottedName(attr->getValue());
    return base.empty() ? "" : base + "." + attr->getAttr().str();
  }
  return "";
}

/// The dotted callee of a call, "" if `e` is not a call of a name.
static std::string calleeName(const ast::Expr *e) {
  auto *call = llvm::dyn_cast_or_null<ast::CallExpr>(e);
  return call ? dottedName(call->getCallee()) : "";
}

/// Visits the statements of a body as Python runs them in one frame: into
/// branches, loops and `with` blocks, not into nested `def`s.
static void walkBody(llvm::ArrayRef<ast::StmtPtr> body,
                     llvm::function_ref<void(const ast::Stmt &)> visit) {
  for (const ast::StmtPtr &s : body) {
    visit(*s);
    if (auto *i = llvm::dyn_cast<ast::IfStmt>(s.get())) {
      for (const ast::IfBranch &br : i->getBranches())
        walkBody(br.body, visit);
      walkBody(i->getElseBody(), visit);
    } else if (auto *f = llvm::dyn_cast<ast::ForStmt>(s.get())) {
      walkBody(f->getBody(), visit);
    } else if (auto *w = llvm::dyn_cast<ast::WhileStmt>(s.get())) {
      walkBody(w->getBody(), visit);
    } else if (auto *w = llvm::dyn_cast<ast::WithStmt>(s.get())) {
      walkBody(w->getBody(), visit);
    }
  }
}

bool isEagerFactory(const ast::FunctionDefStmt &factory) {
  // TileLang tells the styles apart by whether calling the factory returns
  // a prim_func (one defined inside makes it lazy); statically, the eager
  // body opens the kernel itself.
  for (const ast::StmtPtr &s : factory.getBody())
    if (auto *def = llvm::dyn_cast<ast::FunctionDefStmt>(s.get()))
      for (const ast::ExprPtr &d : def->getDecorators())
        if (StringRef(dottedName(d.get())).ends_with("prim_func") ||
            StringRef(calleeName(d.get())).ends_with("prim_func"))
          return false;
  bool found = false;
  walkBody(factory.getBody(), [&](const ast::Stmt &s) {
    if (auto *w = llvm::dyn_cast<ast::WithStmt>(&s))
      for (const ast::WithItem &item : w->getItems())
        if (StringRef(calleeName(item.context.get())).ends_with("Kernel"))
          found = true;
  });
  return found;
}

/// Whether a signature annotation makes a parameter a launch argument:
/// `T.Tensor(...)` / `T.Tensor[...]` / `T.Buffer...`, or a dtype such as
/// `T.float32`. Others (`dtype: T.dtype`, `n: int`) stay compile-time.
static bool isRuntimeAnnotation(const ast::Expr *e) {
  const ast::Expr *head = e;
  if (auto *call = llvm::dyn_cast<ast::CallExpr>(e))
    head = call->getCallee();
  else if (auto *sub = llvm::dyn_cast<ast::SubscriptExpr>(e))
    head = sub->getValue();
  std::string name = dottedName(head);
  StringRef last = StringRef(name).rsplit('.').second;
  if (last.empty())
    last = name;
  if (head != e)
    return last == "Tensor" || last == "Buffer";
  return llvm::isa<ast::AttributeExpr>(e) && DType::parse(last).has_value();
}

/// Names of the parameters that get a bare annotation in the body.
static llvm::StringSet<> bodyAnnotated(const ast::FunctionDefStmt &f) {
  llvm::StringSet<> names;
  walkBody(f.getBody(), [&](const ast::Stmt &s) {
    auto *a = llvm::dyn_cast<ast::AnnAssignStmt>(&s);
    if (!a || a->getValue())
      return;
    if (auto *n = llvm::dyn_cast<ast::NameExpr>(a->getTarget()))
      names.insert(n->getName());
  });
  return names;
}

std::vector<StringRef> eagerRuntimeParams(const ast::FunctionDefStmt &f) {
  llvm::StringSet<> inBody = bodyAnnotated(f);
  std::vector<StringRef> out;
  for (const ast::Param &p : f.getParams())
    if (inBody.contains(p.name) ||
        (p.annotation && isRuntimeAnnotation(p.annotation.get())))
      out.push_back(p.name);
  return out;
}

/// TileLang's spelling rules for `T.const("M, N")` / `T.const("M N")`.
static std::vector<std::string> splitConstNames(StringRef text) {
  std::vector<std::string> names;
  llvm::SmallVector<StringRef> parts;
  if (text.contains(','))
    text.split(parts, ',');
  else
    text.split(parts, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef p : parts)
    names.push_back(p.trim().str());
  return names;
}

std::vector<std::string> eagerConstNames(const ast::FunctionDefStmt &f) {
  std::vector<std::string> names;
  walkBody(f.getBody(), [&](const ast::Stmt &s) {
    const ast::Expr *value = nullptr;
    if (auto *a = llvm::dyn_cast<ast::AssignStmt>(&s))
      value = a->getValue();
    else if (auto *a = llvm::dyn_cast<ast::AnnAssignStmt>(&s))
      value = a->getValue();
    else if (auto *e = llvm::dyn_cast<ast::ExprStmt>(&s))
      value = e->getValue();
    auto *call = llvm::dyn_cast_or_null<ast::CallExpr>(value);
    if (!call || !StringRef(dottedName(call->getCallee())).ends_with(".const") ||
        call->getArgs().empty())
      return;
    if (auto *str = llvm::dyn_cast<ast::StringExpr>(call->getArgs()[0].get()))
      for (std::string &n : splitConstNames(str->getValue()))
        names.push_back(std::move(n));
  });
  return names;
}

//===----------------------------------------------------------------------===//
// Tracing
//===----------------------------------------------------------------------===//

/// The shape as written (symbols by name) for the header's documentation.
static ArrayAttr shapeAttr(OpBuilder &b, const std::vector<Value> &shape) {
  SmallVector<Attribute> dims;
  for (const Value &d : shape)
    dims.push_back(b.getStringAttr(
        d.is(Value::Symbol)    ? d.getSymbol().name
        : d.is(Value::Runtime) ? d.getRuntime().hostExpr
                               : d.repr()));
  return b.getArrayAttr(dims);
}

std::string Elaborator::nonSymbolIn(StringRef e) const {
  auto word = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  for (size_t i = 0; i < e.size();) {
    if (!word(e[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < e.size() && word(e[j]))
      ++j;
    StringRef id = e.slice(i, j);
    if (llvm::isDigit(id[0])) { // a number ("128")
      i = j;
      continue;
    }
    if (!traced || llvm::none_of(traced->symbols, [&](auto &kv) {
          return kv.first->name == id;
        }))
      return id.str();
    i = j;
  }
  return "";
}

std::string Elaborator::constHint(const Value &v) const {
  if (!eager || eager->genericConsts.empty())
    return "";
  std::vector<std::string> names;
  auto add = [&](StringRef n) {
    if (!llvm::is_contained(names, n) &&
        llvm::any_of(eager->genericConsts,
                     [&](auto &s) { return s->name == n; }))
      names.push_back(n.str());
  };
  std::function<void(const Value &)> visit = [&](const Value &x) {
    if (x.is(Value::Symbol) && x.getSymbol().fromConst) {
      add(x.getSymbol().name);
    } else if (x.is(Value::Runtime)) {
      // The sizes a computed value came from, by name in its host form.
      StringRef e = x.getRuntime().hostExpr;
      for (size_t i = 0; i < e.size();) {
        size_t j = i;
        while (j < e.size() && (llvm::isAlnum(e[j]) || e[j] == '_'))
          ++j;
        if (j > i)
          add(e.slice(i, j));
        i = j == i ? i + 1 : j;
      }
    } else if (x.isSequence()) {
      for (const Value &el : x.getElements())
        visit(el);
    }
  };
  visit(v);
  if (names.empty())
    return "";
  std::string list, flags;
  for (size_t k = 0; k < names.size(); ++k) {
    list += (k ? ", `" : "`") + names[k] + "`";
    flags += (k ? " -D " : "-D ") + names[k] + "=<value>";
  }
  return "; " + list + (names.size() == 1 ? " is a T.const size" : " are T.const sizes") +
         " given no value, which tilec compiles as a run-time dimension: give " +
         flags + " to fix " + (names.size() == 1 ? "it" : "them") +
         " at compile time";
}

mlir::Value Elaborator::eagerSymbolArg(sema::SymbolObject &sym, SMLoc at) {
  auto it = traced->symbols.find(&sym);
  if (it != traced->symbols.end())
    return it->second;
  // T.dynamic sizes come last, in order of first appearance, as for a
  // prim_func.
  func::FuncOp func = traced->func;
  unsigned index = func.getNumArguments();
  (void)func.insertArgument(index, builder.getIndexType(), {}, loc(at));
  setSymbolArg(func, index, sym);
  mlir::Value arg = func.getArgument(index);
  traced->symbols[&sym] = arg;
  return arg;
}

/// Inserts a tensor argument of type `t` at `index` and returns its buffer.
static std::shared_ptr<BufferObject>
insertTensorArg(Elaborator &e, unsigned index, StringRef name,
                const sema::TensorTypeObject &t, SMLoc at) {
  SmallVector<int64_t> shape;
  for (const Value &d : t.shape) {
    if (d.is(Value::Symbol)) {
      e.eagerSymbolArg(d.getSymbol(), at);
      shape.push_back(ShapedType::kDynamic);
    } else if (d.is(Value::Runtime)) {
      // A size computed from symbols (their arguments exist already).
      shape.push_back(ShapedType::kDynamic);
    } else {
      shape.push_back(d.getInt());
    }
  }
  func::FuncOp func = e.traced->func;
  (void)func.insertArgument(index, MemRefType::get(shape, e.irType(t.dtype)),
                            {}, e.loc(at));
  func.setArgAttr(index, "tile.name", e.builder.getStringAttr(name));
  func.setArgAttr(index, "tile.shape", shapeAttr(e.builder, t.shape));
  if (t.dtype.isPointer())
    func.setArgAttr(index, "tile.dtype", e.builder.getStringAttr("ptr"));
  e.addTensorSizeChecks(func, t.shape);
  auto buf = std::make_shared<BufferObject>();
  buf->name = name.str();
  buf->scope = MemScope::Global;
  buf->dtype = t.dtype;
  buf->shape = t.shape;
  buf->memref = func.getArgument(index);
  buf->loc = at;
  return buf;
}

LogicalResult Elaborator::declareEagerParam(StringRef name, const Value &ann,
                                            SMRange annRange, Frame &frame) {
  EagerTrace &et = *eager;
  size_t k = llvm::find(et.runtimeParams, name) - et.runtimeParams.begin();
  if (et.declared[k]) {
    error(annRange, "parameter `" + name + "` is annotated twice");
    note(et.declaredAt[k], "first annotated here");
    return failure();
  }
  // Inputs come first in signature order, whatever order the annotations
  // run in; outputs and symbols follow.
  unsigned index = 0;
  for (size_t j = 0; j < k; ++j)
    index += et.declared[j];
  Value v;
  if (ann.is(Value::TensorType)) {
    v = Value::buffer(
        insertTensorArg(*this, index, name, ann.getTensorType(), annRange.Start));
  } else if (std::optional<DType> dt = toDType(ann)) {
    func::FuncOp func = traced->func;
    (void)func.insertArgument(index, irType(*dt), {}, loc(annRange.Start));
    func.setArgAttr(index, "tile.name", builder.getStringAttr(name));
    v = wrapRuntime(func.getArgument(index), *dt, /*isIndex=*/false);
    v.getRuntime().hostExpr = name.str();
  } else {
    error(annRange, "parameter `" + name + "` of kernel factory `" +
                        et.factory->getName() +
                        "` must be annotated with T.Tensor(shape, dtype) or "
                        "a dtype, not `" + ann.repr() + "`");
    return failure();
  }
  et.declared[k] = true;
  et.declaredAt[k] = annRange.Start;
  frame.scope->bind(name, {v, annRange.Start, 0, ""});
  return success();
}

Flow Elaborator::execBareAnnotation(const ast::AnnAssignStmt &s,
                                    Frame &frame) {
  // Only the factory's own body declares parameters; elsewhere (a helper,
  // a kernel body) a bare annotation binds nothing, as in Python.
  auto *target = llvm::dyn_cast<ast::NameExpr>(s.getTarget());
  if (!eager || callDepth != 0 || kernelDepth != 0 || !target ||
      !llvm::is_contained(eager->runtimeParams, target->getName()))
    return Flow::Normal;
  FailureOr<Value> ann = eval(*s.getAnnotation(), frame);
  if (failed(ann))
    return Flow::Error;
  return succeeded(declareEagerParam(target->getName(), *ann,
                                     s.getAnnotation()->getRange(), frame))
             ? Flow::Normal
             : Flow::Error;
}

/// The text bound to `name` for this instance: --instances, then -D.
static const std::string *boundText(const InstanceSpec &spec,
                                    const MLIRGenOptions &options,
                                    StringRef name) {
  for (const auto &[k, v] : spec.params)
    if (k == name)
      return &v;
  for (const auto &[k, v] : options.defines)
    if (k == name)
      return &v;
  return nullptr;
}

FailureOr<Value> Elaborator::callEagerPrimitive(StringRef name,
                                                CallArgs &args) {
  if (!eager) {
    error(args.range, "`" + name + "` belongs to an eager-style kernel "
                      "factory (a @tilelang.jit function whose body opens "
                      "`with T.Kernel`), not to a @T.prim_func or a helper");
    return failure();
  }
  EagerTrace &et = *eager;
  if (name == "T.const") {
    auto b = bindArgs(args, {"name", "dtype"}, 1);
    if (failed(b))
      return failure();
    const Arg &text = *(*b)[0];
    if (!text.value.is(Value::Str)) {
      error(text.range, "`T.const` takes the names as a string, e.g. "
                        "T.const(\"M, N\")");
      return failure();
    }
    std::vector<Value> values;
    for (const std::string &n : splitConstNames(text.value.getStr())) {
      const std::string *bound = boundText(*et.spec, options, n);
      if (!bound) {
        // No value: compile the kernel generic over the size, exactly as
        // if it were `T.dynamic(n)` (a launch argument, range-checked by
        // the header). Uses that need the value at compile time say so.
        auto it = llvm::find_if(et.genericConsts,
                                [&](auto &s) { return s->name == n; });
        if (it == et.genericConsts.end()) {
          auto sym = std::make_shared<sema::SymbolObject>();
          sym->name = n;
          sym->loc = text.range.Start;
          sym->fromConst = true;
          et.genericConsts.push_back(sym);
          it = std::prev(et.genericConsts.end());
          // Its launch argument comes now, so that the sizes are in the
          // order the T.const calls name them.
          eagerSymbolArg(*sym, text.range.Start);
        }
        values.push_back(Value::symbol(*it));
        continue;
      }
      std::optional<Value> v = sema::parseDefineValue(*bound);
      if (!v || !v->is(Value::Int)) {
        error(text.range, "`" + n + "` (T.const) must be an integer, but "
                          "is given as `" + *bound + "`");
        return failure();
      }
      if (llvm::none_of(et.consts, [&](auto &c) { return c.first == n; }))
        et.consts.push_back({n, *v});
      values.push_back(*v);
    }
    if (values.size() == 1)
      return values.front();
    return Value::tuple(std::move(values));
  }

  // T.empty(shape, dtype=float32), T.empty(shape, "dtype") or
  // T.empty(d0, d1, ..., dtype=...).
  if (kernelDepth > 0 || callDepth != 0) {
    error(args.range, "`T.empty` declares an output of the launch: call it "
                      "in the kernel factory's body, outside `T.Kernel`");
    return failure();
  }
  CallArgs tensor;
  tensor.callee = "T.empty";
  tensor.range = args.range;
  auto &pos = args.positional;
  if (!pos.empty() && pos[0].value.isSequence()) {
    tensor.positional = pos;
  } else {
    std::vector<Value> dims;
    for (const Arg &a : pos)
      dims.push_back(a.value);
    tensor.positional.push_back(
        {Value::tuple(std::move(dims)), pos.empty() ? args.range : SMRange(pos.front().range.Start, pos.back().range.End)});
  }
  tensor.keywords = args.keywords;
  bool hasDType = tensor.positional.size() > 1 ||
                  llvm::any_of(args.keywords,
                               [](auto &kw) { return kw.first == "dtype"; });
  if (!hasDType)
    tensor.keywords.push_back({"dtype", {Value::dtype(DType::Float32), args.range}});
  FailureOr<Value> type = callPrimitive("T.Tensor", tensor);
  if (failed(type))
    return failure();
  unsigned index = 0;
  for (bool d : et.declared)
    index += d;
  index += et.outputs.size();
  std::string bufName = pendingName.empty()
                            ? "out" + std::to_string(et.outputs.size())
                            : pendingName;
  std::shared_ptr<BufferObject> buf = insertTensorArg(
      *this, index, bufName, type->getTensorType(), args.range.Start);
  et.outputs.push_back(buf);
  return Value::buffer(buf);
}

FailureOr<Value> Elaborator::traceEager(sema::FunctionObject &fn,
                                        CallArgs &args,
                                        const InstanceSpec &spec) {
  const ast::FunctionDefStmt &def = *fn.def;
  EagerTrace et;
  et.factory = &def;
  et.spec = &spec;
  et.runtimeParams = eagerRuntimeParams(def);
  et.declared.assign(et.runtimeParams.size(), false);
  et.declaredAt.assign(et.runtimeParams.size(), SMLoc());

  Frame frame;
  frame.scope = std::make_shared<Scope>(fn.closure);
  frame.functionName = def.getName();
  for (auto &[k, a] : args.keywords)
    frame.scope->bind(k, {a.value, a.range.Start, 0, ""});
  for (const ast::Param &p : def.getParams())
    if (llvm::is_contained(et.runtimeParams, p.name))
      frame.scope->bind(
          p.name, {Value::none(), p.nameRange.Start, 0,
                   ("tensor parameter `" + p.name +
                    "` is used before its annotation (`" + p.name +
                    ": T.Tensor(shape, dtype)`) gives it a type")
                       .str()});

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(module.getBody());
  std::string tmpName = (def.getName() + "$eager$" + Twine(tracedFuncs.size()) +
                         "$" +
                         Twine(module.getBody()->getOperations().size()))
                            .str();
  auto func = func::FuncOp::create(builder, loc(def.getNameRange().Start),
                                   tmpName, builder.getFunctionType({}, {}));
  func->setAttr(tile::TileDialect::getKernelFuncAttrName(),
                builder.getUnitAttr());
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);

  TracedFunction tf;
  tf.func = func;
  TracedFunction *savedTraced = traced;
  EagerTrace *savedEager = eager;
  traced = &tf;
  eager = &et;
  unsigned savedDepth = regionDepth, savedKernel = kernelDepth,
           savedCall = callDepth;
  regionDepth = kernelDepth = callDepth = 0;
  auto restore = [&] {
    regionDepth = savedDepth;
    kernelDepth = savedKernel;
    callDepth = savedCall;
    traced = savedTraced;
    eager = savedEager;
  };

  // Signature annotations run first, in the defining scope (Python
  // evaluates them when `def` runs); one in the body takes precedence.
  llvm::StringSet<> inBody = bodyAnnotated(def);
  Flow flow = Flow::Normal;
  for (const ast::Param &p : def.getParams()) {
    if (!p.annotation || inBody.contains(p.name) ||
        !llvm::is_contained(et.runtimeParams, p.name))
      continue;
    Frame annFrame{fn.closure, Value(), def.getName()};
    FailureOr<Value> ann = eval(*p.annotation, annFrame);
    if (failed(ann) || failed(declareEagerParam(p.name, *ann,
                                                p.annotation->getRange(),
                                                frame))) {
      flow = Flow::Error;
      break;
    }
  }
  if (flow != Flow::Error)
    flow = execBlock(def.getBody(), frame);
  restore();
  auto fail = [&]() -> FailureOr<Value> {
    func.erase();
    return failure();
  };
  if (flow == Flow::Error || hadError)
    return fail();

  for (size_t k = 0; k < et.runtimeParams.size(); ++k) {
    if (et.declared[k])
      continue;
    const ast::Param *p = llvm::find_if(def.getParams(), [&](auto &q) {
      return q.name == et.runtimeParams[k];
    });
    error(p->nameRange, "tensor parameter `" + p->name + "` of kernel "
                        "factory `" + def.getName() + "` gets no type: its "
                        "annotation was not reached");
    return fail();
  }

  // The factory returns its T.empty tensors (all of them), as TileLang
  // requires; the return order is recorded on each output argument.
  std::vector<const BufferObject *> returned;
  if (flow == Flow::Return && !frame.returnValue.isNone()) {
    std::vector<Value> items = frame.returnValue.isSequence()
                                   ? frame.returnValue.getElements()
                                   : std::vector<Value>{frame.returnValue};
    for (const Value &v : items) {
      bool isOutput =
          v.is(Value::Buffer) && llvm::any_of(et.outputs, [&](auto &o) {
            return o.get() == &v.getBuffer();
          });
      if (!isOutput || llvm::is_contained(returned, &v.getBuffer())) {
        error(frame.returnRange,
              "an eager-style kernel factory returns the tensors it "
              "allocates with T.empty, each once; `" + v.repr() +
                  "` is not one");
        return fail();
      }
      returned.push_back(&v.getBuffer());
    }
  }
  for (const std::shared_ptr<BufferObject> &o : et.outputs)
    if (!llvm::is_contained(returned, o.get())) {
      error(o->loc, "`" + o->name + "` is allocated with T.empty but kernel "
                    "factory `" + def.getName() + "` does not return it");
      return fail();
    }
  for (size_t r = 0; r < returned.size(); ++r)
    func.setArgAttr(cast<BlockArgument>(returned[r]->memref).getArgNumber(),
                    "tile.output", builder.getI64IntegerAttr(r));

  builder.setInsertionPointToEnd(entry);
  func::ReturnOp::create(builder, loc(def.getNameRange().Start));
  tracedFuncs[tmpName] = func;
  for (auto &[n, v] : et.consts)
    args.keywords.push_back({n, Arg{v, def.getNameRange()}});

  auto prim = std::make_shared<sema::FunctionObject>();
  prim->def = &def;
  prim->closure = fn.closure;
  prim->isPrimFunc = true;
  prim->tracedName = tmpName;
  return Value::function(prim);
}

} // namespace tilec::mlirgen
