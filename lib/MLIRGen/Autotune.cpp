//===- Autotune.cpp - The search spaces of @tilelang.autotune -------------===//
//
// Runs the module's top level (so that the decorators, the configs list or
// callable and the parameter defaults are evaluated as Python would), then,
// per autotune factory and instance, binds the parameters the way
// instantiate() does (--instances, then -D, then the default) without
// running the factory body. A configs callable is called with the bound
// values of the factory parameters it names, as TileLang calls it with the
// arguments the kernel was called with.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace tilec::mlirgen {

namespace {
/// The keywords TileLang's tilelang.autotune takes besides `configs`.
const llvm::StringRef kNumberOptions[] = {"warmup", "rep", "timeout", "rtol",
                                          "atol", "max_mismatched_ratio"};
const llvm::StringRef kBoolOptions[] = {"skip_check", "cache_input_tensors"};
const llvm::StringRef kHostOptions[] = {"ref_prog", "supply_prog",
                                        "manual_check_prog",
                                        "do_not_specialize"};

/// A compile-time value as JSON; nullopt for what a configuration cannot
/// hold (functions, buffers, runtime values).
std::optional<llvm::json::Value> toJSON(const Value &v) {
  switch (v.getKind()) {
  case Value::None:
    return llvm::json::Value(nullptr);
  case Value::Bool:
    return llvm::json::Value(v.getBool());
  case Value::Int:
    return llvm::json::Value(v.getInt());
  case Value::Float:
    return llvm::json::Value(v.getFloat());
  case Value::Str:
    return llvm::json::Value(v.getStr());
  case Value::DTypeV:
    return llvm::json::Value(v.getDType().name().str());
  case Value::Tuple:
  case Value::List: {
    llvm::json::Array a;
    for (const Value &e : v.getElements()) {
      std::optional<llvm::json::Value> j = toJSON(e);
      if (!j)
        return std::nullopt;
      a.push_back(std::move(*j));
    }
    return llvm::json::Value(std::move(a));
  }
  default:
    return std::nullopt;
  }
}

/// `tilelang.TensorSupplyType.Normal` -> "normal" (the member, lower case).
std::string supplyTypeName(llvm::SMRange range) {
  llvm::StringRef text(range.Start.getPointer(),
                       range.End.getPointer() - range.Start.getPointer());
  text = text.trim();
  size_t dot = text.rfind('.');
  if (dot != llvm::StringRef::npos)
    text = text.drop_front(dot + 1);
  text = text.take_while([](char c) { return llvm::isAlnum(c) || c == '_'; });
  return text.lower();
}
} // namespace

LogicalResult Elaborator::listAutotune(std::vector<AutotuneSpace> &out) {
  OwningOpRef<ModuleOp> owned =
      ModuleOp::create(FileLineColLoc::get(fileName, 1, 1));
  module = *owned;
  builder.setInsertionPointToEnd(module.getBody());
  Frame top;
  top.scope = std::make_shared<Scope>();
  top.functionName = "<module>";
  top.scope->bind("__name__", {Value::string("tile_module"), llvm::SMLoc(), 0, ""});
  if (execBlock(astModule.getBody(), top) == Flow::Error || hadError)
    return failure();

  const llvm::SourceMgr &sm = diag.getSourceMgr();
  for (const ast::StmtPtr &s : astModule.getBody()) {
    auto *def = llvm::dyn_cast<ast::FunctionDefStmt>(s.get());
    if (!def)
      continue;
    Binding *b = top.scope->lookupLocal(def->getName());
    if (!b || !b->value.is(Value::Function))
      continue;
    sema::FunctionObject &fn = b->value.getFunction();
    if (fn.def != def || !fn.isAutotune)
      continue;
    const ast::CallExpr *decorator = fn.autotuneDecorator;
    if (!decorator || !fn.autotuneConfigs) {
      error(def->getNameRange(),
            "@tilelang.autotune on `" + def->getName() +
                "` needs `configs=` (a list of dicts or a callable)");
      return failure();
    }

    // The decorator's other keywords, shared by every instance.
    llvm::json::Object options;
    std::vector<std::string> ignored;
    Frame defFrame{fn.closure, Value(), def->getName()};
    for (const ast::Keyword &kw : decorator->getKeywords()) {
      llvm::StringRef name = kw.name;
      if (name == "configs")
        continue;
      if (llvm::is_contained(kHostOptions, name)) {
        ignored.push_back(name.str());
        continue;
      }
      if (name == "supply_type") {
        std::string member = supplyTypeName(kw.value->getRange());
        if (!llvm::is_contained({"auto", "normal", "randn", "uniform",
                                 "integer", "zero", "one"},
                                member)) {
          error(kw.value->getRange(),
                "supply_type `" + member +
                    "` is not a TensorSupplyType tilec-bench can fill with "
                    "(Auto, Normal, Randn, Uniform, Integer, Zero, One)");
          return failure();
        }
        options["supply_type"] = member == "randn" ? "normal" : member;
        continue;
      }
      bool number = llvm::is_contained(kNumberOptions, name);
      bool boolean = llvm::is_contained(kBoolOptions, name);
      if (!number && !boolean) {
        error(kw.nameRange,
              "unknown keyword `" + name +
                  "` of @tilelang.autotune (it takes configs, warmup, rep, "
                  "timeout, supply_type, ref_prog, supply_prog, rtol, atol, "
                  "max_mismatched_ratio, skip_check, manual_check_prog, "
                  "cache_input_tensors and do_not_specialize)");
        return failure();
      }
      FailureOr<Value> v = eval(*kw.value, defFrame);
      if (failed(v))
        return failure();
      if (number ? !v->isNumber() || v->is(Value::Bool) : !v->is(Value::Bool)) {
        error(kw.value->getRange(),
              "`" + name + "` of @tilelang.autotune must be " +
                  (number ? "a number" : "True or False") + ", got `" +
                  v->repr() + "`");
        return failure();
      }
      options[name] = *toJSON(*v);
    }

    std::vector<InstanceSpec> specs;
    std::vector<unsigned> specIndex;
    if (this->options.instances.empty()) {
      specs.push_back(InstanceSpec{});
      specIndex.push_back(0);
    } else {
      for (auto [k, spec] : llvm::enumerate(this->options.instances))
        if (spec.factory.empty() || spec.factory == def->getName()) {
          specs.push_back(spec);
          specIndex.push_back(unsigned(k));
        }
    }

    for (auto [k, spec] : llvm::enumerate(specs)) {
      AutotuneSpace space;
      space.factory = def->getName().str();
      space.instanceIndex = specIndex[k];
      unsigned line = sm.FindLineNumber(def->getNameRange().Start);
      space.location = fileName.str() + ":" + std::to_string(line);
      space.options = options;
      space.ignoredOptions = ignored;

      // Bind every parameter that has a value, as instantiate() would.
      std::vector<std::pair<std::string, Value>> bound;
      llvm::StringSet<> fixedByUser;
      for (const ast::Param &p : def->getParams()) {
        const std::string *text = nullptr;
        for (const auto &[name, v] : spec.params)
          if (name == p.name)
            text = &v;
        for (const auto &[name, v] : this->options.defines)
          if (name == p.name && !text)
            text = &v;
        if (text) {
          std::optional<Value> v = sema::parseDefineValue(*text);
          if (!v) {
            error(llvm::SMLoc(), "value `" + *text + "` for parameter `" +
                                     p.name + "` is not a Python literal");
            return failure();
          }
          bound.push_back({p.name.str(), *v});
          fixedByUser.insert(p.name);
          continue;
        }
        if (p.defaultValue) {
          FailureOr<Value> d = eval(*p.defaultValue, defFrame);
          if (failed(d))
            return failure();
          bound.push_back({p.name.str(), *d});
        }
      }
      auto boundValue = [&](llvm::StringRef name) -> const Value * {
        for (const auto &[n, v] : bound)
          if (n == name)
            return &v;
        return nullptr;
      };

      // The configurations: the list, or the callable's result.
      Value configs = *fn.autotuneConfigs;
      if (configs.is(Value::Function)) {
        sema::FunctionObject &gen = configs.getFunction();
        CallArgs args;
        args.callee = "configs";
        args.range = decorator->getRange();
        llvm::ArrayRef<ast::Param> params =
            gen.lambda ? gen.lambda->getParams() : gen.def->getParams();
        for (const ast::Param &p : params) {
          const Value *v = boundValue(p.name);
          if (gen.lambda) {
            if (!v) {
              error(decorator->getRange(),
                    "the configs lambda takes `" + p.name +
                        "`, which is not a bound parameter of `" +
                        def->getName() + "`");
              return failure();
            }
            args.positional.push_back(Arg{*v, decorator->getRange()});
          } else if (v) {
            args.keywords.push_back({p.name.str(), Arg{*v, decorator->getRange()}});
          }
        }
        FailureOr<Value> r = callFunction(gen, args);
        if (failed(r))
          return failure();
        configs = *r;
      }
      if (!configs.isSequence()) {
        error(decorator->getRange(),
              "configs of @tilelang.autotune must be a list of dicts, got `" +
                  configs.repr() + "`");
        return failure();
      }
      for (auto [c, config] : llvm::enumerate(configs.getElements())) {
        if (!config.is(Value::Dict)) {
          error(decorator->getRange(),
                "configuration " + llvm::Twine(c) + " of `" + def->getName() +
                    "` is not a dict: `" + config.repr() + "`");
          return failure();
        }
        llvm::json::Object object;
        bool contradicts = false;
        for (const auto &[key, value] : config.getItems()) {
          if (!key.is(Value::Str) ||
              llvm::none_of(def->getParams(), [&](const ast::Param &p) {
                return p.name == key.getStr();
              })) {
            error(decorator->getRange(),
                  "configuration " + llvm::Twine(c) + " sets `" +
                      (key.is(Value::Str) ? key.getStr() : key.repr()) +
                      "`, which is not a parameter of kernel factory `" +
                      def->getName() + "`");
            return failure();
          }
          std::optional<llvm::json::Value> j = toJSON(value);
          if (!j) {
            error(decorator->getRange(),
                  "configuration " + llvm::Twine(c) + " gives `" +
                      key.getStr() + "` the value `" + value.repr() +
                      "`, which is not a number, bool, string or list");
            return failure();
          }
          if (!llvm::is_contained(space.tunedParams, key.getStr()))
            space.tunedParams.push_back(key.getStr());
          if (fixedByUser.contains(key.getStr())) {
            std::optional<llvm::json::Value> given =
                toJSON(*boundValue(key.getStr()));
            if (!given || *given != *j)
              contradicts = true;
          }
          object[key.getStr()] = std::move(*j);
        }
        if (contradicts)
          ++space.droppedByDefines;
        else
          space.configs.push_back(std::move(object));
      }
      for (const auto &[name, v] : bound) {
        if (llvm::is_contained(space.tunedParams, name)) {
          if (std::optional<llvm::json::Value> j = toJSON(v))
            space.defaults[name] = std::move(*j);
          continue;
        }
        if (std::optional<llvm::json::Value> j = toJSON(v))
          space.bindings[name] = std::move(*j);
        else
          space.bindings[name] = v.repr();
      }
      out.push_back(std::move(space));
    }
  }
  return success();
}

} // namespace tilec::mlirgen

namespace tilec {

std::optional<std::vector<AutotuneSpace>>
listAutotuneSpaces(const ast::Module &module, MLIRContext &context,
                   DiagnosticEngine &diag, const MLIRGenOptions &options) {
  loadMLIRGenDialects(context);
  mlirgen::Elaborator e(module, context, diag, options);
  std::vector<AutotuneSpace> spaces;
  if (failed(e.listAutotune(spaces)) || diag.hasErrors())
    return std::nullopt;
  return spaces;
}

std::string toDefineText(const llvm::json::Value &value) {
  if (auto b = value.getAsBoolean())
    return *b ? "True" : "False";
  if (auto i = value.getAsInteger())
    return std::to_string(*i);
  if (auto s = value.getAsString())
    return "\"" + s->str() + "\"";
  if (value.getAsNull())
    return "None";
  if (const llvm::json::Array *a = value.getAsArray()) {
    std::string text = "(";
    for (const llvm::json::Value &e : *a)
      text += toDefineText(e) + ",";
    return text + ")";
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value;
  return text;
}

} // namespace tilec
