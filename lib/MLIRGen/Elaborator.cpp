//===- Elaborator.cpp - Module, factories, prim_funcs and statements ------===//
//
// Runs a .tile file the way Python would import it (definitions only; code
// that would run a kernel is host code and is rejected), then instantiates
// each kernel factory: parameters bound from --instances, -D or defaults, the
// body executed, and the @T.prim_func it returns traced into a func.func.
// Statements inside a traced prim_func emit IR: device loops and branches
// become regions, and names bound inside them are poisoned on exit so that a
// value never escapes the region that defines it.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "llvm/ADT/ScopeExit.h"

#include "tilec/Dialect/TileDialect.h"
#include "tilec/Dialect/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using llvm::SMLoc;
using llvm::SMRange;
using llvm::StringRef;
using llvm::Twine;

namespace tilec::mlirgen {

/// Deep Python recursion would exhaust the C++ stack; CPython stops at 1000.
static constexpr unsigned kMaxCallDepth = 100;
/// Compile-time loops that run longer than this are almost surely a bug.
static constexpr int64_t kMaxIterations = 1 << 20;
/// Statements and comprehension items one compile may evaluate.
static constexpr uint64_t kMaxSteps = 2'000'000;

//===----------------------------------------------------------------------===//
// Scopes
//===----------------------------------------------------------------------===//

} // namespace tilec::mlirgen

namespace tilec::sema {
Binding *Scope::lookupLocal(StringRef name) {
  auto it = vars.find(name);
  return it == vars.end() ? nullptr : &it->second;
}

Binding *Scope::lookup(StringRef name) {
  for (Scope *s = this; s; s = s->parent.get())
    if (Binding *b = s->lookupLocal(name))
      return b;
  return nullptr;
}
} // namespace tilec::sema

namespace tilec::mlirgen {

std::string Region::text() const {
  std::string s = "[";
  for (size_t k = 0; k < extents.size(); ++k)
    s += (k ? ", " : "") +
         (extents[k] < 0 ? std::string("?") : std::to_string(extents[k]));
  return s + "]";
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

Elaborator::Elaborator(const ast::Module &astModule, MLIRContext &context,
                       DiagnosticEngine &diag, const MLIRGenOptions &options)
    : astModule(astModule), context(context), diag(diag), options(options),
      builder(&context) {
  fileName = StringAttr::get(&context, astModule.getBufferIdentifier());
}

void Elaborator::error(SMLoc l, const Twine &msg) {
  hadError = true;
  if (l.isValid()) {
    diag.error(l, msg);
    return;
  }
  // Problems of the command line (-D, --instances) have no source position.
  llvm::WithColor::error(diag.getStream(), "tilec") << msg << "\n";
}
void Elaborator::error(SMRange r, const Twine &msg) {
  hadError = true;
  diag.error(r, msg);
}
void Elaborator::note(SMLoc l, const Twine &msg) { diag.note(l, msg); }

Location Elaborator::loc(SMLoc l) {
  auto [line, col] = diag.lineCol(l);
  return FileLineColLoc::get(fileName, line, col);
}

//===----------------------------------------------------------------------===//
// Entry: the module and its factories
//===----------------------------------------------------------------------===//

/// The dotted name of a decorator (`tilelang.jit`, `T.prim_func`), looking
/// through a call (`@tilelang.jit(out_idx=[-1])`).
static std::string decoratorName(const ast::Expr *e) {
  if (auto *call = llvm::dyn_cast<ast::CallExpr>(e))
    e = call->getCallee();
  if (auto *name = llvm::dyn_cast<ast::NameExpr>(e))
    return name->getName().str();
  if (auto *attr = llvm::dyn_cast<ast::AttributeExpr>(e)) {
    std::string base = decoratorName(attr->getValue());
    return base.empty() ? "" : base + "." + attr->getAttr().str();
  }
  return "";
}

/// Whether `def` holds (at any depth of its own body) a @T.prim_func def.
static bool definesPrimFunc(const ast::FunctionDefStmt &def) {
  for (const ast::StmtPtr &s : def.getBody())
    if (auto *inner = llvm::dyn_cast<ast::FunctionDefStmt>(s.get()))
      for (const ast::ExprPtr &d : inner->getDecorators())
        if (StringRef(decoratorName(d.get())).ends_with("prim_func"))
          return true;
  return false;
}

OwningOpRef<ModuleOp> Elaborator::run() {
  OwningOpRef<ModuleOp> owned =
      ModuleOp::create(FileLineColLoc::get(fileName, 1, 1));
  module = *owned;
  module->setAttr("tile.source", fileName);
  // The one place the chip is recorded; every pass and the code emitters
  // read it from here (the driver has checked the name).
  if (TargetInfo::lookup(options.target))
    module->setAttr(tile::kTargetAttrName,
                    tile::TargetAttr::get(module.getContext(), options.target));
  builder.setInsertionPointToEnd(module.getBody());

  Frame top;
  top.scope = std::make_shared<Scope>();
  top.functionName = "<module>";
  // Importing a module is not running it: `if __name__ == "__main__":`
  // blocks (host code in TileLang scripts) are skipped, as Python would.
  top.scope->bind("__name__", {Value::string("tile_module"), SMLoc(), 0, ""});
  if (execBlock(astModule.getBody(), top) == Flow::Error || hadError)
    return nullptr;

  // Factories in source order.
  std::vector<std::pair<const ast::FunctionDefStmt *,
                        std::shared_ptr<sema::FunctionObject>>>
      factories;
  for (const ast::StmtPtr &s : astModule.getBody()) {
    auto *def = llvm::dyn_cast<ast::FunctionDefStmt>(s.get());
    if (!def)
      continue;
    Binding *b = top.scope->lookupLocal(def->getName());
    if (!b || !b->value.is(Value::Function))
      continue;
    sema::FunctionObject &fn = b->value.getFunction();
    if (fn.def != def || fn.isPrimFunc)
      continue;
    if (fn.isJit || fn.isAutotune || definesPrimFunc(*def))
      factories.push_back({def, std::make_shared<sema::FunctionObject>(fn)});
  }

  bool hasBareKernel = llvm::any_of(module.getOps<func::FuncOp>(), [](func::FuncOp f) {
    return f->hasAttr(tile::TileDialect::getKernelFuncAttrName());
  });
  if (factories.empty() && !hasBareKernel) {
    diag.error(SMLoc::getFromPointer(
                   diag.getSourceMgr()
                       .getMemoryBuffer(diag.getSourceMgr().getMainFileID())
                       ->getBufferStart()),
               "no kernel in this file: expected a @T.prim_func or a kernel "
               "factory (a function that defines one)");
    return nullptr;
  }

  // -D names must each name a parameter of some factory.
  for (const auto &[name, text] : options.defines) {
    bool used = llvm::any_of(factories, [&](const auto &f) {
      return llvm::any_of(f.first->getParams(),
                          [&](const ast::Param &p) { return p.name == name; }) ||
             llvm::is_contained(eagerConstNames(*f.first), name);
    });
    if (!used) {
      std::string known;
      for (const auto &f : factories) {
        std::vector<StringRef> launchArgs;
        if (isEagerFactory(*f.first))
          launchArgs = eagerRuntimeParams(*f.first);
        for (const ast::Param &p : f.first->getParams())
          if (!llvm::is_contained(launchArgs, p.name))
            known += (known.empty() ? "`" : ", `") + p.name.str() + "`";
        for (const std::string &c : eagerConstNames(*f.first))
          known += (known.empty() ? "`" : ", `") + c + "`";
      }
      error(SMLoc(), "-D " + name +
                              " does not name a parameter of any kernel "
                              "factory in this file" +
                              (known.empty() ? "" : " (parameters: " + known + ")"));
      return nullptr;
    }
  }

  llvm::StringMap<unsigned> nameUse;
  if (options.instances.empty()) {
    for (auto &[def, fn] : factories) {
      // A file that instantiates a factory itself (`k = matmul(...)` at the
      // top level, as TileLang scripts do) has chosen its instances.
      if (instantiatedAtTopLevel.count(def))
        continue;
      if (failed(instantiate(*def, fn.get(), InstanceSpec{}, def->getName())))
        return nullptr;
    }
  } else {
    for (const InstanceSpec &spec : options.instances) {
      bool any = false;
      for (auto &[def, fn] : factories) {
        if (!spec.factory.empty() && spec.factory != def->getName())
          continue;
        any = true;
        // Unnamed instances of one factory get suffixes (docs/language.md,
        // section 3.4); a name the file gives is used as is, and two alike
        // are an error in instantiate.
        std::string base = spec.name.empty() ? def->getName().str() : spec.name;
        unsigned n = spec.name.empty() ? nameUse[base]++ : 0;
        std::string name = n ? base + "_" + std::to_string(n) : base;
        if (failed(instantiate(*def, fn.get(), spec, name)))
          return nullptr;
      }
      if (!any) {
        error(SMLoc(), "--instances names factory `" + spec.factory +
                                "`, which this file does not define");
        return nullptr;
      }
    }
  }
  if (hadError || failed(checkModulePassConfigs()))
    return nullptr;
  decideIndexWidths();
  if (failed(verify(module))) {
    hadError = true;
    return nullptr;
  }
  return owned;
}

LogicalResult Elaborator::countStep(SMRange range) {
  // Compile-time evaluation is Python running at build time: bound it so
  // that `for i in range(10**6): for j in range(10**6): ...` fails with a
  // message instead of hanging a build.
  if (++steps <= kMaxSteps)
    return success();
  error(range, "compile-time evaluation took more than " + Twine(kMaxSteps) +
                   " steps; is a loop in the factory unbounded?");
  return failure();
}

LogicalResult
Elaborator::instantiate(const ast::FunctionDefStmt &factory,
                        sema::FunctionObject *fn, const InstanceSpec &spec,
                        StringRef name, const CallArgs *given) {
  instanceName = name.str();
  // An eager-style factory's tensor parameters are launch arguments; its
  // T.const names take values like parameters (Eager.cpp).
  bool eagerStyle = isEagerFactory(factory);
  std::vector<StringRef> runtimeParams;
  if (eagerStyle)
    runtimeParams = eagerRuntimeParams(factory);
  for (const auto &[k, v] : spec.params)
    if (!llvm::any_of(factory.getParams(),
                      [&](const ast::Param &p) { return p.name == k; }) &&
        !(eagerStyle && llvm::is_contained(eagerConstNames(factory), k))) {
      error(SMLoc(), "--instances: instance `" + name + "` sets `" + k +
                         "`, which is not a parameter of kernel factory `" +
                         factory.getName() + "`");
      return failure();
    }
  CallArgs args;
  args.callee = factory.getName().str();
  args.range = factory.getNameRange();
  llvm::ArrayRef<ast::Param> factoryParams = factory.getParams();
  for (size_t index = 0; index < factoryParams.size(); ++index) {
    const ast::Param &p = factoryParams[index];
    if (llvm::is_contained(runtimeParams, p.name)) {
      bool bound = llvm::any_of(spec.params, [&](auto &kv) { return kv.first == p.name; }) ||
                   llvm::any_of(options.defines, [&](auto &kv) { return kv.first == p.name; });
      if (bound) {
        error(SMLoc(), "`" + p.name + "` is a tensor parameter of kernel "
                           "factory `" + factory.getName() + "`, an argument "
                           "of the launch function; it takes no -D value");
        return failure();
      }
      continue;
    }
    // Arguments of a top-level call (`k = matmul(1024, ...)`) come first.
    if (given) {
      const Arg *a = index < given->positional.size() ? &given->positional[index]
                                                      : nullptr;
      for (const auto &[k, v] : given->keywords)
        if (k == p.name)
          a = &v;
      if (a) {
        args.keywords.push_back({p.name.str(), *a});
        continue;
      }
    }
    const std::string *text = nullptr;
    for (const auto &[k, v] : spec.params)
      if (k == p.name)
        text = &v;
    for (const auto &[k, v] : options.defines)
      if (k == p.name && !text)
        text = &v;
    if (text) {
      std::string why;
      std::optional<Value> v = sema::parseDefineValue(*text, &why);
      if (!v && !why.empty()) {
        error(SMLoc(), "value for parameter `" + p.name + "`: " + why);
        return failure();
      }
      if (!v) {
        std::string shown =
            text->size() > 40 ? text->substr(0, 40) + "..." : *text;
        error(SMLoc(), "value `" + shown + "` for parameter `" + p.name +
                           "` is not a Python literal (a number, True/False, "
                           "a string, or a tuple/list of these)");
        return failure();
      }
      args.keywords.push_back({p.name.str(), Arg{*v, p.nameRange}});
      continue;
    }
    if (p.defaultValue) {
      // Evaluated here (in the defining scope, as Python does) so that the
      // instance records every parameter's value.
      Frame defFrame{fn->closure, Value(), factory.getName()};
      FailureOr<Value> d = eval(*p.defaultValue, defFrame);
      if (failed(d))
        return failure();
      args.keywords.push_back({p.name.str(), Arg{*d, p.nameRange}});
      continue;
    }
    // An autotune factory without a value takes the first configuration.
    if (fn->isAutotune && fn->autotuneConfigs &&
        fn->autotuneConfigs->isSequence() &&
        !fn->autotuneConfigs->getElements().empty()) {
      const Value &first = fn->autotuneConfigs->getElements().front();
      if (first.is(Value::Dict)) {
        bool found = false;
        for (const auto &[k, v] : first.getItems())
          if (k.is(Value::Str) && k.getStr() == p.name) {
            args.keywords.push_back({p.name.str(), Arg{v, p.nameRange}});
            found = true;
          }
        if (found)
          continue;
      }
    }
    error(p.nameRange, "no value for parameter `" + p.name + "` of kernel "
                           "factory `" + factory.getName() + "`" +
                           (options.instances.empty()
                                ? Twine("")
                                : Twine(" in instance `") + name + "`") +
                           ": give one with -D " + p.name +
                           "=<value> or a default");
    return failure();
  }

  if (given) {
    if (given->positional.size() > factoryParams.size()) {
      error(given->positional[factoryParams.size()].range,
            "`" + factory.getName() + "` takes " +
                Twine(factoryParams.size()) + " arguments but " +
                Twine(given->positional.size()) + " were given");
      return failure();
    }
    for (const auto &[k, v] : given->keywords)
      if (llvm::none_of(factoryParams,
                        [&](const ast::Param &p) { return p.name == k; })) {
        error(v.range, "`" + factory.getName() +
                           "` got an unexpected keyword argument `" + k + "`");
        return failure();
      }
  }
  bool savedInstantiating = instantiating;
  instantiating = true;
  FailureOr<Value> result =
      eagerStyle ? traceEager(*fn, args, spec) : callFunction(*fn, args);
  instantiating = savedInstantiating;
  if (failed(result))
    return failure();
  lastInstance = *result;
  if (!result->is(Value::Function) || !result->getFunction().isPrimFunc) {
    bool hasReturn = lastReturnRange.isValid();
    error(hasReturn ? lastReturnRange : factory.getNameRange(),
          "kernel factory `" + factory.getName() +
              "` must return its @T.prim_func, but returned `" +
              result->repr() + "`");
    if (hasReturn)
      note(factory.getNameRange().Start, "kernel factory `" +
                                             factory.getName() +
                                             "` defined here");
    return failure();
  }
  sema::FunctionObject &prim = result->getFunction();
  auto it = tracedFuncs.find(prim.tracedName);
  if (it == tracedFuncs.end()) {
    error(factory.getNameRange(), "kernel factory `" + factory.getName() +
                                      "` returned a prim_func it did not "
                                      "define");
    return failure();
  }
  func::FuncOp func = it->second;
  // The name becomes a PTX/HSACO symbol and a C++ function of the header.
  if (name.empty() || !(llvm::isAlpha(name[0]) || name[0] == '_') ||
      !llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; })) {
    error(factory.getNameRange(),
          "kernel name `" + name + "` (from --instances) is not an identifier; "
          "kernel names become C++ and PTX symbols: use letters, digits and "
          "`_`, not starting with a digit");
    return failure();
  }
  if (module.lookupSymbol(name)) {
    error(factory.getNameRange(), "two kernels are named `" + name +
                                      "`; give instances distinct names");
    return failure();
  }
  func.setSymName(name);
  func->setAttr("tile.factory", builder.getStringAttr(factory.getName()));
  // Record the binding of every factory parameter: the metadata reports it
  // and tuning caches key on it.
  SmallVector<NamedAttribute> params;
  for (const auto &kw : args.keywords) {
    const Value &v = kw.second.value;
    Attribute a = v.is(Value::Bool)    ? (Attribute)builder.getBoolAttr(v.getBool())
                  : v.is(Value::Int)   ? (Attribute)builder.getI64IntegerAttr(v.getInt())
                  : v.is(Value::Float) ? (Attribute)builder.getF64FloatAttr(v.getFloat())
                  : v.is(Value::Str)   ? (Attribute)builder.getStringAttr(v.getStr())
                                       : (Attribute)builder.getStringAttr(v.repr());
    params.push_back(builder.getNamedAttr(kw.first, a));
  }
  func->setAttr("tile.params", builder.getDictionaryAttr(params));
  applyPassConfigs(func, *fn);
  if (fn->passConfigsLoc.isValid())
    passConfigLocs[name] = fn->passConfigsLoc;
  tracedFuncs.erase(it);
  // prim_funcs defined but not returned are not kernels of this instance.
  for (auto &entry : tracedFuncs)
    entry.second.erase();
  tracedFuncs.clear();
  return success();
}

//===----------------------------------------------------------------------===//
// Calls of Python functions
//===----------------------------------------------------------------------===//

FailureOr<Value> Elaborator::callFunction(sema::FunctionObject &fn,
                                          CallArgs &args) {
  if (fn.partial)
    return callPartial(*fn.partial, args);
  if (fn.lambda) {
    llvm::ArrayRef<ast::Param> params = fn.lambda->getParams();
    if (args.positional.size() != params.size() || !args.keywords.empty()) {
      error(args.range, "this lambda takes " + Twine(params.size()) +
                            " positional argument" +
                            (params.size() == 1 ? "" : "s"));
      return failure();
    }
    Frame frame;
    frame.scope = std::make_shared<Scope>(fn.closure);
    frame.functionName = "<lambda>";
    for (size_t k = 0; k < params.size(); ++k)
      frame.scope->bind(params[k].name, {args.positional[k].value,
                                         params[k].nameRange.Start,
                                         regionDepth, ""});
    if (callDepth >= kMaxCallDepth) {
      error(args.range, "maximum recursion depth exceeded");
      return failure();
    }
    ++callDepth;
    FailureOr<Value> v = eval(*fn.lambda->getBody(), frame);
    --callDepth;
    return v;
  }
  const ast::FunctionDefStmt &def = *fn.def;
  if (fn.isPrimFunc) {
    error(args.range, "calling @T.prim_func `" + def.getName() +
                          "` is host code; .tile files only define kernels");
    return failure();
  }
  if (!traced && callDepth == 0 && !instantiating &&
      (fn.isJit || fn.isAutotune || definesPrimFunc(def))) {
    // `kernel = matmul(1024, 1024, ...)` at the top level of a TileLang
    // script: an instance, named after the variable it is assigned to.
    std::string name = pendingName.empty() ? def.getName().str() : pendingName;
    if (!options.instances.empty()) {
      error(args.range, "this file instantiates `" + def.getName() +
                            "` itself; drop --instances or the call");
      return failure();
    }
    instantiatedAtTopLevel.insert(&def);
    if (failed(instantiate(def, &fn, InstanceSpec{}, name, &args)))
      return failure();
    return lastInstance;
  }
  if (callDepth >= kMaxCallDepth) {
    error(args.range, "maximum recursion depth exceeded in `" +
                          def.getName() + "`");
    return failure();
  }

  Frame frame;
  frame.scope = std::make_shared<Scope>(fn.closure);
  frame.functionName = def.getName();
  llvm::ArrayRef<ast::Param> params = def.getParams();
  if (args.positional.size() > params.size()) {
    error(args.positional[params.size()].range,
          "`" + def.getName() + "` takes " + Twine(params.size()) +
              " positional argument" + (params.size() == 1 ? "" : "s") +
              " but " + Twine(args.positional.size()) + " were given");
    note(def.getNameRange().Start, "`" + def.getName() + "` defined here");
    return failure();
  }
  std::vector<bool> given(params.size(), false);
  for (size_t k = 0; k < args.positional.size(); ++k) {
    frame.scope->bind(params[k].name,
                      {args.positional[k].value, params[k].nameRange.Start,
                       regionDepth, ""});
    given[k] = true;
  }
  for (auto &[kwName, arg] : args.keywords) {
    auto it = llvm::find_if(params,
                            [&](const ast::Param &p) { return p.name == kwName; });
    if (it == params.end()) {
      error(arg.range, "`" + def.getName() +
                           "` got an unexpected keyword argument `" + kwName +
                           "`");
      note(def.getNameRange().Start, "`" + def.getName() + "` defined here");
      return failure();
    }
    size_t idx = it - params.begin();
    if (given[idx]) {
      error(arg.range, "`" + def.getName() +
                           "` got multiple values for argument `" + kwName +
                           "`");
      return failure();
    }
    frame.scope->bind(kwName, {arg.value, it->nameRange.Start, regionDepth, ""});
    given[idx] = true;
  }
  for (size_t k = 0; k < params.size(); ++k) {
    if (given[k])
      continue;
    if (!params[k].defaultValue) {
      error(args.range, "`" + def.getName() +
                            "` missing required argument `" + params[k].name +
                            "`");
      note(params[k].nameRange.Start, "parameter declared here");
      return failure();
    }
    // Defaults are evaluated in the defining scope, as Python does.
    Frame defFrame{fn.closure, Value(), def.getName()};
    FailureOr<Value> d = eval(*params[k].defaultValue, defFrame);
    if (failed(d))
      return failure();
    frame.scope->bind(params[k].name,
                      {*d, params[k].nameRange.Start, regionDepth, ""});
  }

  ++callDepth;
  Flow flow = execBlock(def.getBody(), frame);
  --callDepth;
  if (flow == Flow::Error || hadError)
    return failure();
  lastReturnRange = frame.returnRange;
  return frame.returnValue;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

Flow Elaborator::execBlock(llvm::ArrayRef<ast::StmtPtr> body, Frame &frame) {
  for (size_t i = 0; i < body.size(); ++i) {
    LoopExit *exit = loopExits.empty() ? nullptr : loopExits.back();
    unsigned exits = exit ? exit->exits : 0;
    Flow f = execStmt(*body[i], frame);
    if (f != Flow::Normal)
      return f;
    if (hadError)
      return Flow::Error;
    // A traced `break` / `continue` may have run: the rest waits on it.
    if (exit && exit->exits != exits && i + 1 < body.size())
      return execUnlessExited(body.drop_front(i + 1), *exit, frame);
  }
  return Flow::Normal;
}

Flow Elaborator::execStmt(const ast::Stmt &stmt, Frame &frame) {
  using K = ast::Stmt::Kind;
  if (failed(countStep(stmt.getRange())))
    return Flow::Error;
  switch (stmt.getKind()) {
  case K::Import:
  case K::ImportFrom:
    return execImport(stmt, frame);
  case K::FunctionDef:
    return execFunctionDef(llvm::cast<ast::FunctionDefStmt>(stmt), frame);
  case K::ClassDef:
    return execClassDef(llvm::cast<ast::ClassDefStmt>(stmt), frame);
  case K::Return: {
    auto &r = llvm::cast<ast::ReturnStmt>(stmt);
    if (traced && callDepth == 0 && (!eager || kernelDepth > 0)) {
      error(stmt.getRange(), "`return` is not allowed in a @T.prim_func; "
                             "write results into an output tensor");
      return Flow::Error;
    }
    if (r.getValue()) {
      FailureOr<Value> v = eval(*r.getValue(), frame);
      if (failed(v))
        return Flow::Error;
      frame.returnValue = *v;
      frame.returnRange = r.getValue()->getRange();
    } else {
      frame.returnValue = Value::none();
    }
    return Flow::Return;
  }
  case K::Assign:
    return execAssign(llvm::cast<ast::AssignStmt>(stmt), frame);
  case K::AugAssign:
    return execAugAssign(llvm::cast<ast::AugAssignStmt>(stmt), frame);
  case K::AnnAssign: {
    auto &a = llvm::cast<ast::AnnAssignStmt>(stmt);
    if (!a.getValue())
      return execBareAnnotation(a, frame);
    FailureOr<Value> v = eval(*a.getValue(), frame);
    if (failed(v))
      return Flow::Error;
    // `x: T.int32 = 0` in a kernel: the annotation is the dtype.
    FailureOr<Value> ann = eval(*a.getAnnotation(), frame);
    if (failed(ann))
      return Flow::Error;
    Value value = *v;
    if (std::optional<DType> dt = toDType(*ann)) {
      if (traced) {
        FailureOr<Value> c = castTo(value, *dt, a.getValue()->getRange());
        if (failed(c))
          return Flow::Error;
        value = *c;
      }
    }
    return succeeded(assignTo(*a.getTarget(), value, a.getValue()->getRange(),
                              frame))
               ? Flow::Normal
               : Flow::Error;
  }
  case K::ExprStmt: {
    auto &e = llvm::cast<ast::ExprStmt>(stmt);
    if (llvm::isa<ast::StringExpr>(e.getValue()))
      return Flow::Normal; // docstring
    return succeeded(eval(*e.getValue(), frame)) ? Flow::Normal : Flow::Error;
  }
  case K::If:
    return execIf(llvm::cast<ast::IfStmt>(stmt), frame);
  case K::For:
    return execFor(llvm::cast<ast::ForStmt>(stmt), frame);
  case K::While:
    return execWhile(llvm::cast<ast::WhileStmt>(stmt), frame);
  case K::With:
    return execWith(llvm::cast<ast::WithStmt>(stmt), frame);
  case K::Pass:
    return Flow::Normal;
  case K::Break:
  case K::Continue:
    if (std::optional<Flow> f = execLoopExit(stmt))
      return *f;
    if (regionDepth > 0 && traced) {
      error(stmt.getRange(),
            Twine("`") + (stmt.getKind() == K::Break ? "break" : "continue") +
                "` is not supported inside a device loop");
      return Flow::Error;
    }
    return stmt.getKind() == K::Break ? Flow::Break : Flow::Continue;
  case K::Assert:
    return execAssert(llvm::cast<ast::AssertStmt>(stmt), frame);
  case K::Raise:
    return execRaise(llvm::cast<ast::RaiseStmt>(stmt), frame);
  }
  return Flow::Normal;
}

Flow Elaborator::execImport(const ast::Stmt &stmt, Frame &frame) {
  // Only TileLang and a few pure-Python helpers exist at compile time.
  auto moduleValue = [&](StringRef mod, SMRange range) -> std::optional<Value> {
    if (mod == "tilelang.language")
      return Value::builtin("T");
    if (isCompileTimeModule(mod))
      return Value::builtin(canonicalBuiltin(mod));
    StringRef top = mod.split('.').first;
    if (top == "torch" || top == "numpy" || top == "triton" ||
        top == "tvm" || top == "cupy" || top == "jax")
      error(range, "`import " + mod + "` is host code: a .tile file holds "
                   "kernels only; remove it (see docs/porting.md)");
    else
      error(range, "module `" + mod + "` is not available in .tile files "
                   "(only tilelang and its compile-time submodules, "
                   "math, itertools, functools and typing)");
    return std::nullopt;
  };
  if (auto *imp = llvm::dyn_cast<ast::ImportStmt>(&stmt)) {
    for (const ast::ImportAlias &a : imp->getNames()) {
      std::optional<Value> v = moduleValue(a.name, a.nameRange);
      if (!v)
        return Flow::Error;
      if (!a.asName.empty()) {
        frame.scope->bind(a.asName, {*v, a.asNameRange.Start, 0, ""});
      } else {
        // `import tilelang.language` binds `tilelang`.
        StringRef top = StringRef(a.name).split('.').first;
        frame.scope->bind(top, {Value::builtin(top.str()), a.nameRange.Start, 0, ""});
      }
    }
    return Flow::Normal;
  }
  auto &from = llvm::cast<ast::ImportFromStmt>(stmt);
  if (from.getLevel() != 0) {
    error(from.getRange(), "relative imports are not available in .tile files");
    return Flow::Error;
  }
  std::optional<Value> mod = moduleValue(from.getModule(), from.getModuleRange());
  if (!mod)
    return Flow::Error;
  if (from.isWildcard()) {
    error(from.getRange(), "`from " + from.getModule() +
                               " import *` is not supported; import the "
                               "names you use");
    return Flow::Error;
  }
  for (const ast::ImportAlias &a : from.getNames()) {
    if (std::optional<llvm::ArrayRef<StringRef>> known =
            moduleNames(mod->getBuiltin());
        known && !llvm::is_contained(*known, StringRef(a.name))) {
      std::string best = closestName(a.name, *known);
      error(a.nameRange, "cannot import `" + a.name + "` from `" +
                             from.getModule() + "`" +
                             (best.empty() ? "" : "; did you mean `" + best + "`?"));
      return Flow::Error;
    }
    std::string qualified = canonicalBuiltin(mod->getBuiltin() + "." + a.name);
    Value v = Value::builtin(qualified);
    if (qualified == "tilelang.language")
      v = Value::builtin("T");
    StringRef bindAs = a.asName.empty() ? StringRef(a.name) : a.asName;
    frame.scope->bind(bindAs, {v, a.nameRange.Start, 0, ""});
  }
  return Flow::Normal;
}

Flow Elaborator::execFunctionDef(const ast::FunctionDefStmt &def,
                                 Frame &frame) {
  auto fn = std::make_shared<sema::FunctionObject>();
  fn->def = &def;
  fn->closure = frame.scope;
  for (const ast::ExprPtr &d : def.getDecorators()) {
    std::string dname = decoratorName(d.get());
    StringRef dref = dname;
    if ((dref.starts_with("tilelang.") || dref.starts_with("T.")) &&
        !llvm::is_contained({"tilelang.jit", "tilelang.autotune",
                             "tilelang.autotuner.autotune", "T.prim_func",
                             "T.macro", "tilelang.transform.simplify_prim_func"},
                            dref)) {
      error(d->getRange(), "unknown decorator `" + dname +
                               "`: .tile files accept @tilelang.jit, "
                               "@tilelang.autotune, @T.prim_func and @T.macro");
      return Flow::Error;
    }
    FailureOr<Value> dv = eval(*d, frame);
    if (failed(dv))
      return Flow::Error;
    StringRef name = dv->is(Value::Builtin) ? StringRef(dv->getBuiltin()) : "";
    bool isAutotune =
        name == "tilelang.autotune" || name == "tilelang.autotuner.autotune";
    if (name == "T.prim_func") {
      fn->isPrimFunc = true;
    } else if (name == "T.macro") {
      fn->isMacro = true;
    } else if (name == "tilelang.transform.simplify_prim_func") {
      // TVM's simplifier: tilec folds as it traces, nothing to do.
    } else if (name == "tilelang.jit" || isAutotune) {
      fn->isJit |= name == "tilelang.jit";
      fn->isAutotune |= isAutotune;
      if (auto *call = llvm::dyn_cast<ast::CallExpr>(d.get())) {
        if (isAutotune)
          fn->autotuneDecorator = call;
        if (const ast::Keyword *kw =
                isAutotune ? call->findKeyword("configs") : nullptr) {
          FailureOr<Value> cfg = eval(*kw->value, frame);
          if (failed(cfg))
            return Flow::Error;
          fn->autotuneConfigs = *cfg;
        }
        if (const ast::Keyword *kw = call->findKeyword("pass_configs")) {
          FailureOr<Value> cfg = eval(*kw->value, frame);
          if (failed(cfg) ||
              failed(recordPassConfigs(*fn, *cfg, *kw->value)))
            return Flow::Error;
        }
      }
    } else {
      error(d->getRange(), "unknown decorator `" + decoratorName(d.get()) +
                               "`: .tile files accept @tilelang.jit, "
                               "@tilelang.autotune, @T.prim_func and @T.macro");
      return Flow::Error;
    }
  }
  frame.scope->bind(def.getName(),
                    {Value::function(fn), def.getNameRange().Start, regionDepth, ""});
  if (fn->isPrimFunc) {
    if (traced) {
      error(def.getNameRange(), "a @T.prim_func cannot be defined inside "
                                "another prim_func");
      return Flow::Error;
    }
    if (failed(tracePrimFunc(*fn, def.getName())))
      return Flow::Error;
    // A bare top-level prim_func is a kernel by itself.
    if (callDepth == 0 && frame.functionName == "<module>") {
      auto it = tracedFuncs.find(fn->tracedName);
      func::FuncOp func = it->second;
      if (module.lookupSymbol(def.getName())) {
        error(def.getNameRange(), "a kernel named `" + def.getName() +
                                      "` is already defined");
        return Flow::Error;
      }
      func.setSymName(def.getName());
      tracedFuncs.erase(it);
    }
  }
  return Flow::Normal;
}

LogicalResult Elaborator::bindName(StringRef name, SMRange range,
                                   const Value &value, Frame &frame) {
  Binding *existing = frame.scope->lookupLocal(name);
  // Assigning to a T.alloc_var name stores into it, as in TileLang.
  if (existing && existing->value.is(Value::Buffer) &&
      existing->value.getBuffer().scope == MemScope::Var && traced) {
    BufferObject &var = existing->value.getBuffer();
    FailureOr<Value> scalar = toScalar(value, range);
    if (failed(scalar))
      return failure();
    FailureOr<mlir::Value> v = toIR(*scalar, irType(var.dtype), range);
    if (failed(v))
      return failure();
    memref::StoreOp::create(builder, loc(range.Start), *v, var.memref,
                            ValueRange{});
    return success();
  }
  // A poisoned name (bound inside an earlier loop or branch, unusable
  // since) is bound afresh: nothing can read the old value.
  if (existing && traced && existing->depth < regionDepth &&
      existing->poison.empty() && !value.isConstant()) {
    error(range, "cannot rebind `" + name +
                     "` inside a device loop or branch: it is defined "
                     "outside; use T.alloc_var for a value that changes");
    if (existing->loc.isValid())
      note(existing->loc, "`" + name + "` first defined here");
    return failure();
  }
  frame.scope->bind(name, {value, range.Start, regionDepth, ""});
  return success();
}

LogicalResult Elaborator::assignTo(const ast::Expr &target, const Value &value,
                                   SMRange valueRange, Frame &frame) {
  if (auto *name = llvm::dyn_cast<ast::NameExpr>(&target)) {
    // `val = buf[i]` in a kernel reads the element here, as TileLang's
    // LetStmt does: binding the subscript itself would re-read it at every
    // use, after later stores (`buf[i] = buf[j]; buf[j] = val` then copied
    // buf[j] into both, and a bitonic sort lost half its entries).
    if (kernelDepth > 0 && value.is(Value::Subscript)) {
      sema::SubscriptObject &sub = value.getSubscript();
      bool element =
          sub.base.is(Value::Buffer) &&
          sub.indices.size() == sub.base.getBuffer().shape.size() &&
          llvm::none_of(sub.indices,
                        [](const Value &i) { return i.is(Value::Slice); });
      // A fragment element is a register of whichever thread holds it: it
      // can be read only inside a T.Parallel loop, so one bound outside
      // stays a subscript, read where it is used.
      auto insideParallel = [&] {
        for (Operation *op = builder.getInsertionBlock()->getParentOp(); op;
             op = op->getParentOp())
          if (isa<tile::ParallelOp>(op))
            return true;
        return false;
      };
      if (element && (sub.base.getBuffer().scope != MemScope::Fragment ||
                      insideParallel())) {
        FailureOr<Value> loaded = toScalar(value, valueRange);
        if (failed(loaded))
          return failure();
        return bindName(name->getName(), name->getRange(), *loaded, frame);
      }
    }
    return bindName(name->getName(), name->getRange(), value, frame);
  }

  if (auto *tup = llvm::dyn_cast<ast::TupleExpr>(&target)) {
    llvm::ArrayRef<ast::ExprPtr> elts = tup->getElts();
    if (!value.isSequence()) {
      error(valueRange, "cannot unpack a `" + value.typeName() +
                            "` into " + Twine(elts.size()) + " names");
      return failure();
    }
    if (value.getElements().size() != elts.size()) {
      error(valueRange, "cannot unpack " + Twine(value.getElements().size()) +
                            " values into " + Twine(elts.size()) + " names");
      return failure();
    }
    for (size_t k = 0; k < elts.size(); ++k)
      if (failed(assignTo(*elts[k], value.getElements()[k], valueRange, frame)))
        return failure();
    return success();
  }
  if (auto *list = llvm::dyn_cast<ast::ListExpr>(&target)) {
    if (!value.isSequence() || value.getElements().size() != list->getElts().size()) {
      error(valueRange, "cannot unpack into " +
                            Twine(list->getElts().size()) + " names");
      return failure();
    }
    for (size_t k = 0; k < list->getElts().size(); ++k)
      if (failed(assignTo(*list->getElts()[k], value.getElements()[k],
                          valueRange, frame)))
        return failure();
    return success();
  }

  if (auto *sub = llvm::dyn_cast<ast::SubscriptExpr>(&target)) {
    FailureOr<std::optional<Flow>> item = assignItem(*sub, value, frame);
    if (failed(item))
      return failure();
    if (*item)
      return success();
    FailureOr<Value> lhs = evalSubscript(*sub, frame);
    if (failed(lhs))
      return failure();
    if (!lhs->is(Value::Subscript)) {
      error(target.getRange(), "cannot assign to this subscript");
      return failure();
    }
    sema::SubscriptObject &s = lhs->getSubscript();
    BufferObject &buf = s.base.getBuffer();
    if (!traced) {
      error(target.getRange(), "buffer stores are only allowed in a kernel");
      return failure();
    }
    if (s.indices.size() != buf.shape.size() ||
        llvm::any_of(s.indices, [](const Value &i) { return i.is(Value::Slice); })) {
      error(target.getRange(),
            "assigning to a region of `" + buf.name +
                "` is not supported; use T.copy, T.fill or a T.Parallel loop");
      return failure();
    }
    if (failed(checkElementInBounds(s)))
      return failure();
    if (buf.dtype.isPointer()) {
      error(target.getRange(), "`" + buf.name +
                                   "` is a table of device addresses "
                                   "(`T.ptr`); a kernel can only read it");
      return failure();
    }
    FailureOr<Value> scalar = toScalar(value, valueRange);
    if (failed(scalar))
      return failure();
    FailureOr<mlir::Value> v = toIR(*scalar, irType(buf.dtype), valueRange);
    if (failed(v))
      return failure();
    SmallVector<mlir::Value> idx;
    for (const Value &i : s.indices) {
      FailureOr<mlir::Value> iv = toIndex(i, target.getRange());
      if (failed(iv))
        return failure();
      idx.push_back(*iv);
    }
    if (failed(remapIndices(buf, idx, target.getRange())))
      return failure();
    memref::StoreOp::create(builder, loc(target.getLoc()), *v, buf.memref, idx);
    return success();
  }
  if (auto *attr = llvm::dyn_cast<ast::AttributeExpr>(&target)) {
    // `self.x = v` on a compile-time object; other attributes are not
    // assignable.
    FailureOr<Value> base = eval(*attr->getValue(), frame);
    if (failed(base))
      return failure();
    if (base->is(Value::Instance) || base->is(Value::Class))
      return setObjectAttribute(*base, attr->getAttr(), value);
    error(target.getRange(), "assigning to an attribute of a `" +
                                 base->typeName() +
                                 "` is not supported in .tile files");
    return failure();
  }
  error(target.getRange(), "cannot assign to this expression");
  return failure();
}

Flow Elaborator::execAssign(const ast::AssignStmt &s, Frame &frame) {
  // Allocations take the name they are assigned to (`A_shared = ...`).
  pendingName.clear();
  if (s.getTargets().size() == 1)
    if (auto *n = llvm::dyn_cast<ast::NameExpr>(s.getTargets()[0].get()))
      pendingName = n->getName().str();
  FailureOr<Value> v = eval(*s.getValue(), frame);
  pendingName.clear();
  if (failed(v))
    return Flow::Error;
  for (const ast::ExprPtr &t : s.getTargets())
    if (failed(assignTo(*t, *v, s.getValue()->getRange(), frame)))
      return Flow::Error;
  return Flow::Normal;
}

Flow Elaborator::execAugAssign(const ast::AugAssignStmt &s, Frame &frame) {
  FailureOr<Value> cur = eval(*s.getTarget(), frame);
  if (failed(cur))
    return Flow::Error;
  FailureOr<Value> rhs = eval(*s.getValue(), frame);
  if (failed(rhs))
    return Flow::Error;
  FailureOr<Value> result =
      evalBinary(s.getOp(), *cur, *rhs, s.getRange());
  if (failed(result))
    return Flow::Error;
  return succeeded(assignTo(*s.getTarget(), *result, s.getRange(), frame))
             ? Flow::Normal
             : Flow::Error;
}

Flow Elaborator::execAssert(const ast::AssertStmt &s, Frame &frame) {
  FailureOr<Value> c = eval(*s.getTest(), frame);
  if (failed(c))
    return Flow::Error;
  std::string msg;
  if (s.getMsg()) {
    FailureOr<Value> m = eval(*s.getMsg(), frame);
    if (failed(m))
      return Flow::Error;
    msg = m->is(Value::Str) ? m->getStr() : m->repr();
  }
  if (c->isConstant()) {
    if (!c->truthy()) {
      SMRange r = s.getTest()->getRange();
      StringRef text(r.Start.getPointer(),
                     r.End.getPointer() - r.Start.getPointer());
      error(r, "assertion failed: " +
                   (msg.empty() ? "`" + text.str() + "`" : msg));
      return Flow::Error;
    }
    return Flow::Normal;
  }
  // A condition on the launch's sizes outside the kernel (`assert M % 128
  // == 0` in a factory generic over M): the launch header checks it before
  // launching, as TileLang's assert checks it at call time.
  if (kernelDepth == 0 && traced && c->is(Value::Runtime) &&
      !c->getRuntime().hostExpr.empty() &&
      nonSymbolIn(c->getRuntime().hostExpr).empty()) {
    // The symbol it is documented under is found by the header model.
    addLaunchCheck(traced->func, "", c->getRuntime().hostExpr);
    return Flow::Normal;
  }
  // A runtime condition in a kernel: a device assertion.
  FailureOr<Value> scalar = toScalar(*c, s.getTest()->getRange());
  if (failed(scalar))
    return Flow::Error;
  FailureOr<mlir::Value> cond =
      toIR(*scalar, builder.getI1Type(), s.getTest()->getRange());
  if (failed(cond) || kernelDepth == 0) {
    if (!failed(cond))
      error(s.getRange(), "a runtime `assert` must be inside T.Kernel");
    return Flow::Error;
  }
  tile::DeviceAssertOp::create(builder, loc(s.getLoc()), *cond,
                               builder.getStringAttr(msg));
  return Flow::Normal;
}

void poisonRegionBindings(Scope &scope, unsigned depth, StringRef reason,
                          bool constantsToo) {
  for (auto &entry : scope.getVars()) {
    Binding &b = entry.second;
    if (b.depth > depth && (constantsToo || !b.value.isConstant()) &&
        b.poison.empty())
      b.poison = ("`" + entry.getKey() + "` " + reason).str();
  }
}

Flow Elaborator::execIf(const ast::IfStmt &s, Frame &frame) {
  return execIfArms(s, 0, frame);
}

/// Arms `k..` of an if/elif/else chain. Arms on compile-time conditions are
/// chosen here; the first runtime condition becomes an scf.if whose else
/// region holds the remaining arms.
Flow Elaborator::execIfArms(const ast::IfStmt &s, size_t k, Frame &frame) {
  llvm::ArrayRef<ast::IfBranch> branches = s.getBranches();
  for (; k < branches.size(); ++k) {
    const ast::IfBranch &br = branches[k];
    FailureOr<Value> c = eval(*br.test, frame);
    if (failed(c))
      return Flow::Error;
    if (c->isConstant()) {
      if (c->truthy())
        return execBlock(br.body, frame);
      continue;
    }
    if (!traced) {
      error(br.test->getRange(), "condition is not a compile-time value");
      return Flow::Error;
    }
    FailureOr<Value> scalar = toScalar(*c, br.test->getRange());
    if (failed(scalar))
      return Flow::Error;
    FailureOr<mlir::Value> cond =
        toIR(*scalar, builder.getI1Type(), br.test->getRange());
    if (failed(cond))
      return Flow::Error;
    bool hasElse = k + 1 < branches.size() || s.hasElse();
    auto ifOp = scf::IfOp::create(builder, loc(br.keywordLoc), *cond, hasElse);
    OpBuilder::InsertionGuard guard(builder);
    unsigned depth = regionDepth++;
    builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    Flow f = execBlock(br.body, frame);
    if (f == Flow::Normal && hasElse) {
      builder.setInsertionPoint(ifOp.elseBlock()->getTerminator());
      f = execIfArms(s, k + 1, frame);
    }
    regionDepth = depth;
    // A name assigned in an arm has, after the `if`, the value of whichever
    // arm ran: not a compile-time value even when each arm assigns one.
    poisonRegionBindings(*frame.scope, depth,
                         "is assigned inside a branch on a run-time condition "
                         "and cannot be used after it (which branch ran is "
                         "known only at run time; use T.if_then_else or a "
                         "T.alloc_var)",
                         /*constantsToo=*/true);
    if (f == Flow::Break || f == Flow::Continue || f == Flow::Return) {
      error(s.getRange(), "`break`, `continue` and `return` cannot leave a "
                          "branch on a runtime condition");
      return Flow::Error;
    }
    return f;
  }
  if (s.hasElse())
    return execBlock(s.getElseBody(), frame);
  return Flow::Normal;
}

Flow Elaborator::execWhile(const ast::WhileStmt &s, Frame &frame) {
  loopExits.push_back(nullptr);
  llvm::scope_exit popExit([&] { loopExits.pop_back(); });
  for (int64_t iter = 0;; ++iter) {
    if (iter >= kMaxIterations) {
      error(s.getRange(), "compile-time `while` loop ran more than " +
                              Twine(kMaxIterations) + " iterations");
      return Flow::Error;
    }
    FailureOr<Value> c = eval(*s.getTest(), frame);
    if (failed(c))
      return Flow::Error;
    if (!c->isConstant()) {
      error(s.getTest()->getRange(), "`while` on a runtime condition is not "
                                     "supported; use a T.serial loop");
      return Flow::Error;
    }
    if (!c->truthy())
      return Flow::Normal;
    Flow f = execBlock(s.getBody(), frame);
    if (f == Flow::Break)
      return Flow::Normal;
    if (f == Flow::Return || f == Flow::Error)
      return f;
  }
}

Flow Elaborator::execFor(const ast::ForStmt &s, Frame &frame) {
  FailureOr<Value> iter = eval(*s.getIter(), frame);
  if (failed(iter))
    return Flow::Error;
  if (iter->is(Value::Loop))
    return execDeviceLoop(s, iter->getLoop(), frame);
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
    error(s.getIter()->getRange(),
          "cannot iterate over a `" + iter->typeName() + "`");
    return Flow::Error;
  }
  loopExits.push_back(nullptr);
  llvm::scope_exit popExit([&] { loopExits.pop_back(); });
  for (const Value &item : items) {
    if (failed(assignTo(*s.getTarget(), item, s.getIter()->getRange(), frame)))
      return Flow::Error;
    Flow f = execBlock(s.getBody(), frame);
    if (f == Flow::Break)
      break;
    if (f == Flow::Return || f == Flow::Error)
      return f;
  }
  return Flow::Normal;
}

/// Whether `body` calls a gemm (`T.gemm`, `T.wgmma_gemm`, ...) directly or
/// in a nested block (`gemm`), and whether it may leave its loop by a
/// `break` / `continue` (`exits`; those of nested loops are their own).
static void findGemms(llvm::ArrayRef<ast::StmtPtr> body, bool &gemm,
                      bool &exits, bool nested = false) {
  using K = ast::Stmt::Kind;
  for (const ast::StmtPtr &s : body) {
    switch (s->getKind()) {
    case K::Break:
    case K::Continue:
      exits |= !nested;
      break;
    case K::ExprStmt: {
      auto *call = llvm::dyn_cast<ast::CallExpr>(
          llvm::cast<ast::ExprStmt>(*s).getValue());
      auto *callee = call
                         ? llvm::dyn_cast<ast::AttributeExpr>(call->getCallee())
                         : nullptr;
      gemm |= callee && callee->getAttr().contains("gemm");
      break;
    }
    case K::If: {
      auto &i = llvm::cast<ast::IfStmt>(*s);
      for (const ast::IfBranch &br : i.getBranches())
        findGemms(br.body, gemm, exits, nested);
      findGemms(i.getElseBody(), gemm, exits, nested);
      break;
    }
    case K::With:
      findGemms(llvm::cast<ast::WithStmt>(*s).getBody(), gemm, exits, nested);
      break;
    case K::For:
      findGemms(llvm::cast<ast::ForStmt>(*s).getBody(), gemm, exits, true);
      break;
    default:
      break;
    }
  }
}

Flow Elaborator::execDeviceLoop(const ast::ForStmt &s, sema::LoopSpec &spec,
                                Frame &frame) {
  if (!traced || kernelDepth == 0) {
    error(s.getIter()->getRange(),
          "device loops (T.Parallel, T.Pipelined, T.serial, ...) must be "
          "inside a T.Kernel block");
    return Flow::Error;
  }
  // The loop variables.
  std::vector<const ast::NameExpr *> vars;
  const ast::Expr *target = s.getTarget();
  if (auto *n = llvm::dyn_cast<ast::NameExpr>(target)) {
    vars.push_back(n);
  } else if (auto *t = llvm::dyn_cast<ast::TupleExpr>(target)) {
    for (const ast::ExprPtr &e : t->getElts()) {
      auto *n = llvm::dyn_cast<ast::NameExpr>(e.get());
      if (!n) {
        error(e->getRange(), "a device loop variable must be a name");
        return Flow::Error;
      }
      vars.push_back(n);
    }
  } else {
    error(target->getRange(), "a device loop variable must be a name");
    return Flow::Error;
  }
  if (spec.kind == sema::LoopSpec::Persistent)
    return execPersistentLoop(s, spec, vars, frame);
  size_t want = spec.kind == sema::LoopSpec::Parallel ? spec.extents.size() : 1;
  if (vars.size() != want) {
    error(target->getRange(), "this loop binds " + Twine(vars.size()) +
                                  " variable" + (vars.size() == 1 ? "" : "s") +
                                  " but its range has " + Twine(want) +
                                  " dimension" + (want == 1 ? "" : "s"));
    return Flow::Error;
  }

  // A gemm addresses its operand regions from constant origins (the
  // shared-memory descriptors and ldmatrix addresses are made from them),
  // and TileLang's T.unroll loops over K tiles slice them by the loop
  // variable (`Q_s[:, j * 64 : (j + 1) * 64]`). Such a loop with constant
  // bounds is unrolled here, its variable a constant in each copy; the
  // other T.unroll loops stay tile.for unroll, unrolled by the lowering.
  if (spec.kind == sema::LoopSpec::Unroll && !spec.wide && vars.size() == 1 &&
      spec.start.isIntLike() && spec.stop.isIntLike() &&
      spec.step.isIntLike() && spec.step.getInt() > 0 && [&] {
        bool gemm = false, exits = false;
        findGemms(s.getBody(), gemm, exits);
        return gemm && !exits;
      }()) {
    loopExits.push_back(nullptr);
    llvm::scope_exit popExit([&] { loopExits.pop_back(); });
    for (int64_t i = spec.start.getInt(); i < spec.stop.getInt();
         i += spec.step.getInt()) {
      if (failed(assignTo(*target, sema::Value::integer(i),
                          s.getIter()->getRange(), frame)))
        return Flow::Error;
      if (Flow f = execBlock(s.getBody(), frame); f != Flow::Normal)
        return f;
    }
    return Flow::Normal;
  }

  Location l = loc(s.getLoc());
  OpBuilder::InsertionGuard guard(builder);
  SmallVector<mlir::Value> ivs;
  StringRef what = "loop";
  // T.serial / T.unroll bodies may `break` / `continue` (flags made here,
  // before the loop); other device loops take no exits.
  LoopExit exit;
  bool exitable = spec.kind == sema::LoopSpec::Serial ||
                  spec.kind == sema::LoopSpec::Unroll;
  if (exitable && !spec.wide)
    makeLoopExitFlags(s.getBody(), exit, l);
  loopExits.push_back(&exit);
  llvm::scope_exit popExit([&] { loopExits.pop_back(); });
  tile::ParallelOp parallel;
  if (spec.kind == sema::LoopSpec::Parallel) {
    auto op = tile::ParallelOp::create(builder, l, spec.extents);
    parallel = op;
    builder.setInsertionPoint(op.getBody()->getTerminator());
    for (BlockArgument a : op.getBody()->getArguments())
      ivs.push_back(a);
    what = "T.Parallel loop";
  } else if (spec.wide) {
    ivs.push_back(buildWideLoop(spec, l));
  } else {
    FailureOr<mlir::Value> lb = toIndex(spec.start, s.getIter()->getRange());
    FailureOr<mlir::Value> ub = toIndex(spec.stop, s.getIter()->getRange());
    FailureOr<mlir::Value> step = toIndex(spec.step, s.getIter()->getRange());
    if (failed(lb) || failed(ub) || failed(step))
      return Flow::Error;
    for (mlir::Value bound : {*lb, *ub, *step})
      if (failed(noteLoopBound(bound, s.getIter()->getRange())))
        return Flow::Error;
    if (spec.kind == sema::LoopSpec::Pipelined) {
      auto op = tile::PipelinedOp::create(builder, l, *lb, *ub, *step,
                                          spec.numStages);
      if (!spec.order.empty())
        op.setOrderAttr(builder.getDenseI64ArrayAttr(spec.order));
      if (!spec.stage.empty())
        op.setStageAttr(builder.getDenseI64ArrayAttr(spec.stage));
      if (!spec.group.empty()) {
        SmallVector<Attribute> groups;
        for (const auto &g : spec.group)
          groups.push_back(builder.getDenseI64ArrayAttr(g));
        op.setGroupAttr(builder.getArrayAttr(groups));
      }
      builder.setInsertionPoint(op.getBody()->getTerminator());
      ivs.push_back(op.getInductionVar());
      what = "T.Pipelined loop";
    } else {
      tile::LoopKind kind = spec.kind == sema::LoopSpec::Unroll
                                ? tile::LoopKind::unroll
                            : spec.kind == sema::LoopSpec::Vectorized
                                ? tile::LoopKind::vectorized
                                : tile::LoopKind::serial;
      auto op = tile::ForOp::create(builder, l, kind, *lb, *ub, *step);
      builder.setInsertionPoint(op.getBody()->getTerminator());
      ivs.push_back(op.getInductionVar());
    }
  }
  unsigned depth = regionDepth++;
  for (size_t k = 0; k < vars.size(); ++k)
    frame.scope->bind(vars[k]->getName(),
                      {spec.wide ? wrapRuntime(ivs[k], DType::Int64,
                                               /*isIndex=*/false)
                                 : wrapRuntime(ivs[k], DType::Int32,
                                               /*isIndex=*/true),
                       vars[k]->getLoc(), regionDepth, ""});
  bool scheduled = spec.kind == sema::LoopSpec::Pipelined &&
                   (!spec.order.empty() || !spec.stage.empty());
  Flow f = scheduled ? execScheduledBody(s, spec, frame)
           : exit.broken || exit.skipped
               ? execLoopBody(s.getBody(), exit, frame)
               : execBlock(s.getBody(), frame);
  regionDepth = depth;
  poisonRegionBindings(*frame.scope, depth,
                       ("is defined inside the " + what +
                        " and cannot be used after it")
                           .str());
  for (const ast::NameExpr *v : vars)
    if (Binding *b = frame.scope->lookupLocal(v->getName()))
      b->poison = ("loop variable `" + v->getName() +
                   "` cannot be used after its loop")
                      .str();
  if (f == Flow::Return) {
    error(s.getRange(), "`return` cannot leave a device loop");
    return Flow::Error;
  }
  if (parallel && f == Flow::Normal)
    mergeParallelNest(parallel);
  return f;
}

/// The body of a T.Pipelined loop with a hand-written `order` / `stage`:
/// as TileLang counts them, a statement is one that emits code, and each
/// top-level op it emits is tagged `tile.stmt = N` so tile-plan-pipeline
/// can look its schedule up; the lists must have one entry per statement
/// (per group, with `group`).
Flow Elaborator::execScheduledBody(const ast::ForStmt &s,
                                   const sema::LoopSpec &spec, Frame &frame) {
  Block *body = builder.getInsertionBlock();
  Operation *end = &*builder.getInsertionPoint();
  int64_t statements = 0;
  for (const ast::StmtPtr &stmt : s.getBody()) {
    Operation *before = end->getPrevNode();
    Flow f = execStmt(*stmt, frame);
    if (f != Flow::Normal)
      return f;
    if (hadError)
      return Flow::Error;
    Operation *first = before ? before->getNextNode() : &body->front();
    if (first == end)
      continue;
    for (Operation *op = first; op != end; op = op->getNextNode())
      op->setAttr("tile.stmt", builder.getI64IntegerAttr(statements));
    ++statements;
  }
  int64_t units = statements;
  if (!spec.group.empty()) {
    std::vector<int> seen(statements, 0);
    for (const std::vector<int64_t> &g : spec.group)
      for (int64_t i : g) {
        if (i < 0 || i >= statements) {
          error(spec.groupRange, "`group` names statement " + Twine(i) +
                                     " but the loop body has " +
                                     Twine(statements) + " statements");
          return Flow::Error;
        }
        ++seen[i];
      }
    for (int64_t i = 0; i < statements; ++i)
      if (seen[i] != 1) {
        error(spec.groupRange,
              "`group` must name every statement of the loop body once; "
              "statement " +
                  Twine(i) + " is named " + Twine(seen[i]) + " times");
        return Flow::Error;
      }
    units = int64_t(spec.group.size());
  }
  StringRef unit = spec.group.empty() ? "statement" : "group";
  for (auto [list, what, range] :
       {std::tuple{&spec.order, "order", spec.orderRange},
        std::tuple{&spec.stage, "stage", spec.stageRange}}) {
    if (list->empty())
      continue;
    if (int64_t(list->size()) != units) {
      error(range, "`" + Twine(what) + "` has " + Twine(list->size()) +
                       " entries but the loop body has " + Twine(units) + " " +
                       unit + (units == 1 ? "" : "s"));
      return Flow::Error;
    }
  }
  for (int64_t v : spec.order)
    if (v >= units) {
      error(spec.orderRange, "`order` entry " + Twine(v) +
                                 " is past the last position, " +
                                 Twine(units - 1));
      return Flow::Error;
    }
  return Flow::Normal;
}

//===----------------------------------------------------------------------===//
// prim_func tracing
//===----------------------------------------------------------------------===//

LogicalResult Elaborator::tracePrimFunc(sema::FunctionObject &fn,
                                        StringRef name) {
  const ast::FunctionDefStmt &def = *fn.def;
  Frame annFrame{fn.closure, Value(), def.getName()};

  struct ParamInfo {
    const ast::Param *param;
    Value ann;
  };
  std::vector<ParamInfo> infos;
  SmallVector<Type> argTypes;
  std::vector<sema::SymbolObject *> symbols;
  for (const ast::Param &p : def.getParams()) {
    if (!p.annotation) {
      error(p.nameRange, "parameter `" + p.name +
                             "` of a @T.prim_func needs a type, e.g. `" +
                             p.name + ": T.Tensor((M, N), \"float16\")`");
      return failure();
    }
    FailureOr<Value> ann = eval(*p.annotation, annFrame);
    if (failed(ann))
      return failure();
    if (ann->is(Value::TensorType)) {
      sema::TensorTypeObject &t = ann->getTensorType();
      SmallVector<int64_t> shape;
      for (const Value &d : t.shape) {
        if (d.is(Value::Symbol)) {
          shape.push_back(ShapedType::kDynamic);
          if (!llvm::is_contained(symbols, &d.getSymbol()))
            symbols.push_back(&d.getSymbol());
        } else {
          shape.push_back(d.getInt());
        }
      }
      argTypes.push_back(MemRefType::get(shape, irType(t.dtype)));
    } else if (std::optional<DType> dt = toDType(*ann)) {
      argTypes.push_back(irType(*dt));
    } else {
      error(p.annotation->getRange(),
            "parameter `" + p.name + "` must be annotated with T.Tensor(...) "
            "or a dtype, not `" + ann->repr() + "`");
      return failure();
    }
    infos.push_back({&p, *ann});
  }
  for (size_t k = 0; k < symbols.size(); ++k)
    argTypes.push_back(builder.getIndexType());

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(module.getBody());
  std::string tmpName =
      (name + "$" + Twine(tracedFuncs.size()) + "$" + Twine(module.getBody()->getOperations().size())).str();
  auto func = func::FuncOp::create(builder, loc(def.getNameRange().Start),
                                   tmpName,
                                   builder.getFunctionType(argTypes, {}));
  func->setAttr(tile::TileDialect::getKernelFuncAttrName(), builder.getUnitAttr());
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  for (const ParamInfo &info : infos)
    if (info.ann.is(Value::TensorType))
      addTensorSizeChecks(func, info.ann.getTensorType().shape);

  TracedFunction tf;
  tf.func = func;
  TracedFunction *savedTraced = traced;
  traced = &tf;

  Frame frame;
  frame.scope = std::make_shared<Scope>(fn.closure);
  frame.functionName = def.getName();
  for (size_t k = 0; k < infos.size(); ++k) {
    const ast::Param &p = *infos[k].param;
    func.setArgAttr(k, "tile.name", builder.getStringAttr(p.name));
    if (infos[k].ann.is(Value::TensorType)) {
      // The shape as the user wrote it (symbols by name), for the launch
      // header's documentation and checks.
      SmallVector<Attribute> dims;
      for (const Value &d : infos[k].ann.getTensorType().shape)
        dims.push_back(builder.getStringAttr(
            d.is(Value::Symbol) ? d.getSymbol().name : d.repr()));
      func.setArgAttr(k, "tile.shape", builder.getArrayAttr(dims));
      // Its i64 elements are addresses: the header and metadata say so.
      if (infos[k].ann.getTensorType().dtype.isPointer())
        func.setArgAttr(k, "tile.dtype", builder.getStringAttr("ptr"));
    }
    Value v;
    if (infos[k].ann.is(Value::TensorType)) {
      auto buf = std::make_shared<BufferObject>();
      buf->name = p.name.str();
      buf->scope = MemScope::Global;
      buf->dtype = infos[k].ann.getTensorType().dtype;
      buf->shape = infos[k].ann.getTensorType().shape;
      buf->memref = entry->getArgument(k);
      buf->loc = p.nameRange.Start;
      v = Value::buffer(buf);
    } else {
      v = wrapRuntime(entry->getArgument(k), *toDType(infos[k].ann),
                      /*isIndex=*/false);
      v.getRuntime().hostExpr = p.name.str();
    }
    frame.scope->bind(p.name, {v, p.nameRange.Start, 0, ""});
  }
  for (size_t k = 0; k < symbols.size(); ++k) {
    unsigned argNo = infos.size() + k;
    setSymbolArg(func, argNo, *symbols[k]);
    tf.symbols[symbols[k]] = entry->getArgument(argNo);
  }

  unsigned savedDepth = regionDepth, savedKernel = kernelDepth,
           savedCall = callDepth;
  regionDepth = kernelDepth = callDepth = 0;
  Flow flow = execBlock(def.getBody(), frame);
  regionDepth = savedDepth;
  kernelDepth = savedKernel;
  callDepth = savedCall;
  traced = savedTraced;
  if (flow == Flow::Error || hadError) {
    func.erase();
    return failure();
  }
  builder.setInsertionPointToEnd(entry);
  func::ReturnOp::create(builder, loc(def.getNameRange().Start));
  fn.tracedName = tmpName;
  tracedFuncs[tmpName] = func;
  return success();
}

} // namespace tilec::mlirgen

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

namespace tilec {

void loadMLIRGenDialects(MLIRContext &context) {
  context.loadDialect<tile::TileDialect, func::FuncDialect,
                      arith::ArithDialect, math::MathDialect,
                      memref::MemRefDialect, scf::SCFDialect,
                      gpu::GPUDialect>();
}

OwningOpRef<ModuleOp> elaborate(const ast::Module &module, MLIRContext &context,
                                DiagnosticEngine &diag,
                                const MLIRGenOptions &options) {
  loadMLIRGenDialects(context);
  mlirgen::Elaborator e(module, context, diag, options);
  return e.run();
}

/// What the JSON parser would not survive or would silently change: nesting
/// deeper than sema::kMaxLiteralDepth (it recurses per level), and integers
/// too large for 64 bits (it would read them as floats). "" when fine.
static std::string scanInstancesJSON(StringRef text) {
  unsigned depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c == '[' || c == '{') {
      if (++depth > sema::kMaxLiteralDepth)
        return "nested more than " + std::to_string(sema::kMaxLiteralDepth) +
               " levels deep (the limit is " +
               std::to_string(sema::kMaxLiteralDepth) + ")";
    } else if (c == ']' || c == '}') {
      if (depth > 0)
        --depth;
    } else if (llvm::isDigit(c) || c == '-') {
      size_t end = i + 1;
      while (end < text.size() &&
             (llvm::isAlnum(text[end]) || text[end] == '.' || text[end] == '+' ||
              text[end] == '-'))
        ++end;
      StringRef number = text.slice(i, end);
      int64_t value;
      StringRef digits = number;
      digits.consume_front("-");
      if (!digits.empty() && llvm::all_of(digits, llvm::isDigit) &&
          number.getAsInteger(10, value))
        return "integer " +
               (number.size() > 40 ? number.take_front(40).str() + "..."
                                   : number.str()) +
               " does not fit in 64 bits";
      i = end - 1;
    }
  }
  return "";
}

std::string parseInstancesJSON(StringRef text, std::vector<InstanceSpec> &out) {
  if (std::string problem = scanInstancesJSON(text); !problem.empty())
    return problem;
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed)
    return llvm::toString(parsed.takeError());
  const llvm::json::Array *items = parsed->getAsArray();
  if (!items)
    return "expected a JSON list of instances";
  auto literal = [](const llvm::json::Value &v) -> std::optional<std::string> {
    if (auto s = v.getAsString())
      return "\"" + s->str() + "\"";
    if (auto b = v.getAsBoolean())
      return std::string(*b ? "True" : "False");
    if (auto i = v.getAsInteger())
      return std::to_string(*i);
    if (auto d = v.getAsNumber()) {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << llvm::json::Value(*d);
      return s;
    }
    if (auto *a = v.getAsArray()) {
      std::string s = "(";
      for (const llvm::json::Value &e : *a) {
        if (auto i = e.getAsInteger())
          s += std::to_string(*i) + ",";
        else
          return std::nullopt;
      }
      return s + ")";
    }
    return std::nullopt;
  };
  for (size_t k = 0; k < items->size(); ++k) {
    const llvm::json::Object *obj = (*items)[k].getAsObject();
    if (!obj)
      return "instance " + std::to_string(k) + " is not a JSON object";
    InstanceSpec spec;
    const llvm::json::Object *params = obj;
    if (const llvm::json::Object *p = obj->getObject("params")) {
      params = p;
      if (auto f = obj->getString("factory"))
        spec.factory = f->str();
      if (auto n = obj->getString("name"))
        spec.name = n->str();
    }
    if (params == obj) {
      // In the flat form, "name" and "factory" keep their meaning too.
      if (auto f = obj->getString("factory"))
        spec.factory = f->str();
      if (auto n = obj->getString("name"))
        spec.name = n->str();
    }
    for (const auto &kv : *params) {
      if (params == obj && (kv.first == "name" || kv.first == "factory"))
        continue;
      std::optional<std::string> lit = literal(kv.second);
      if (!lit)
        return "instance " + std::to_string(k) + ": value of `" +
               kv.first.str() + "` must be a number, string, bool or list "
               "of ints";
      spec.params.push_back({kv.first.str(), *lit});
    }
    llvm::sort(spec.params);
    out.push_back(std::move(spec));
  }
  return "";
}

} // namespace tilec
